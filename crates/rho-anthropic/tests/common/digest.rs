//! Final messages in SOURCES.md's terms: long strings abbreviated the way SOURCES.md writes
//! them (newlines as `\n`, the first 90 characters of text or 60 of thinking, then
//! `…(N chars)` with N the length of that form), server blocks as type, id, name and input.

use rho_ai::{AssistantMessage, ContentBlock, StopReason};
use serde_json::Value;

/// One content block as SOURCES.md describes it.
#[derive(Debug, PartialEq)]
pub enum Block {
    Text(String),
    Thinking {
        text: String,
        signature_chars: usize,
    },
    Redacted {
        text: String,
        data_chars: usize,
    },
    ToolCall {
        id: String,
        name: String,
        arguments: Value,
    },
}

/// A final message as SOURCES.md describes it.
#[derive(Debug, PartialEq)]
pub struct Digest {
    pub response_id: String,
    pub content: Vec<Block>,
    pub stop_reason: StopReason,
    /// input, output, cacheRead, cacheWrite, totalTokens.
    pub usage: [u64; 5],
}

/// A server-side block kept aside: type, its id (or the id it answers), name, input.
pub type ServerBlock = (String, String, Option<String>, Option<Value>);

pub fn abbreviate(text: &str, limit: usize) -> String {
    let escaped = text.replace('\n', "\\n");
    let length = escaped.chars().count();
    if length <= limit {
        return escaped;
    }
    let head: String = escaped.chars().take(limit).collect();
    format!("{head}…({length} chars)")
}

pub fn digest(message: &AssistantMessage) -> Digest {
    let content = message
        .content
        .iter()
        .map(|block| match block {
            ContentBlock::Text(t) => Block::Text(abbreviate(&t.text, 90)),
            ContentBlock::Thinking(t) if t.redacted == Some(true) => Block::Redacted {
                text: t.thinking.clone(),
                data_chars: t.thinking_signature.as_deref().unwrap().len(),
            },
            ContentBlock::Thinking(t) => Block::Thinking {
                text: abbreviate(&t.thinking, 60),
                signature_chars: t.thinking_signature.as_deref().unwrap().len(),
            },
            ContentBlock::ToolCall(call) => Block::ToolCall {
                id: call.id.clone(),
                name: call.name.clone(),
                arguments: call.arguments.clone(),
            },
            ContentBlock::Image(_) => panic!("an image in assistant content"),
        })
        .collect();
    let u = &message.usage;
    Digest {
        response_id: message.response_id.clone().unwrap(),
        content,
        stop_reason: message.stop_reason,
        usage: [
            u.input,
            u.output,
            u.cache_read,
            u.cache_write,
            u.total_tokens,
        ],
    }
}

pub fn text(t: &str) -> Block {
    Block::Text(t.into())
}

pub fn thinking(t: &str, signature_chars: usize) -> Block {
    Block::Thinking {
        text: t.into(),
        signature_chars,
    }
}

pub fn redacted(data_chars: usize) -> Block {
    Block::Redacted {
        text: "[Reasoning redacted]".into(),
        data_chars,
    }
}

pub fn tool(id: &str, name: &str, arguments: Value) -> Block {
    Block::ToolCall {
        id: id.into(),
        name: name.into(),
        arguments,
    }
}

pub fn server(kind: &str, id: &str, name: Option<&str>, input: Option<Value>) -> ServerBlock {
    (kind.into(), id.into(), name.map(Into::into), input)
}

pub fn server_digest(blocks: &[Value]) -> Vec<ServerBlock> {
    blocks
        .iter()
        .map(|b| {
            let id = b.get("id").or_else(|| b.get("tool_use_id")).unwrap();
            (
                b["type"].as_str().unwrap().to_owned(),
                id.as_str().unwrap().to_owned(),
                b.get("name").map(|n| n.as_str().unwrap().to_owned()),
                b.get("input").cloned(),
            )
        })
        .collect()
}
