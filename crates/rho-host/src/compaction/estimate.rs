//! Pi's token arithmetic (pi-reference §8.4.1): the context size is the last successful
//! reply's usage plus `ceil(chars/4)` of every message after it — conservative on purpose, so
//! compaction starts a little early rather than too late.

use rho_agent::AgentMessage;
use rho_ai::{ContentBlock, Message, StopReason, Usage, UserContent};
use serde_json::Value;

use super::{CompactionPolicy, js_len};

/// What an image counts as, in characters (Pi: 1200 tokens).
const IMAGE_CHARS: u64 = 4800;

/// The context tokens a usage reports: `totalTokens`, or the sum of its parts when that is 0.
pub fn context_tokens(usage: &Usage) -> u64 {
    if usage.total_tokens > 0 {
        usage.total_tokens
    } else {
        usage.input + usage.output + usage.cache_read + usage.cache_write
    }
}

/// The estimated size of one message: `ceil(chars / 4)`. Roles without text count 0.
pub fn estimate_tokens(message: &AgentMessage) -> u64 {
    chars_of(message).div_ceil(4)
}

fn chars_of(message: &AgentMessage) -> u64 {
    match message {
        AgentMessage::Llm(Message::User(user)) => match &user.content {
            UserContent::Text(text) => js_len(text),
            // Pi counts only the text of user messages, images are free here.
            UserContent::Blocks(blocks) => blocks
                .iter()
                .filter_map(ContentBlock::as_text)
                .map(js_len)
                .sum(),
        },
        AgentMessage::Llm(Message::Assistant(assistant)) => assistant
            .content
            .iter()
            .map(|block| match block {
                ContentBlock::Text(t) => js_len(&t.text),
                ContentBlock::Thinking(t) => js_len(&t.thinking),
                ContentBlock::ToolCall(call) => {
                    js_len(&call.name) + js_len(&call.arguments.to_string())
                }
                ContentBlock::Image(_) => 0,
            })
            .sum(),
        AgentMessage::Llm(Message::ToolResult(result)) => blocks_chars(&result.content),
        // Pi 1.6: the content, every section and the declared tools as JSON.
        AgentMessage::System(system) => {
            let content = match &system.content {
                UserContent::Text(text) => js_len(text),
                UserContent::Blocks(blocks) => blocks
                    .iter()
                    .filter_map(ContentBlock::as_text)
                    .map(js_len)
                    .sum(),
            };
            let sections: u64 = system
                .sections
                .iter()
                .flatten()
                .filter_map(|(_, text)| text.as_str())
                .map(js_len)
                .sum();
            let tools = system
                .tools_added
                .as_ref()
                .and_then(|tools| serde_json::to_string(tools).ok())
                .map_or(0, |json| js_len(&json));
            content + sections + tools
        }
        AgentMessage::Custom(custom) => {
            let str_field = |name: &str| {
                custom
                    .fields
                    .get(name)
                    .and_then(Value::as_str)
                    .map_or(0, js_len)
            };
            match custom.role.as_str() {
                "custom" => match custom.fields.get("content") {
                    Some(Value::String(text)) => js_len(text),
                    Some(Value::Array(blocks)) => blocks.iter().map(json_block_chars).sum(),
                    _ => 0,
                },
                "bashExecution" => str_field("command") + str_field("output"),
                "branchSummary" | "compactionSummary" => str_field("summary"),
                _ => 0,
            }
        }
    }
}

fn blocks_chars(blocks: &[ContentBlock]) -> u64 {
    blocks
        .iter()
        .map(|block| match block {
            ContentBlock::Text(t) => js_len(&t.text),
            ContentBlock::Image(_) => IMAGE_CHARS,
            _ => 0,
        })
        .sum()
}

/// A content block of a `custom` message, still as JSON.
fn json_block_chars(block: &Value) -> u64 {
    match block.get("type").and_then(Value::as_str) {
        Some("text") => block.get("text").and_then(Value::as_str).map_or(0, js_len),
        Some("image") => IMAGE_CHARS,
        _ => 0,
    }
}

/// Pi's `estimateContextTokens` result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContextEstimate {
    /// The estimate: `usage_tokens + trailing_tokens`.
    pub tokens: u64,
    /// What the last successful reply's usage reports (0 without one).
    pub usage_tokens: u64,
    /// The estimate of the messages after that reply (all messages without one).
    pub trailing_tokens: u64,
    /// The index of that reply, if any.
    pub last_usage_index: Option<usize>,
}

/// The context size of `messages`: the usage of the last assistant reply that neither failed
/// nor was aborted, plus the estimate of every later message; without such a reply, the
/// estimate of all of them.
pub fn estimate_context_tokens(messages: &[AgentMessage]) -> ContextEstimate {
    let last_usage = messages.iter().enumerate().rev().find_map(|(i, m)| {
        m.as_assistant()
            .filter(|a| !matches!(a.stop_reason, StopReason::Error | StopReason::Aborted))
            .map(|a| (i, context_tokens(&a.usage)))
    });
    let (start, usage_tokens, last_usage_index) = match last_usage {
        Some((i, tokens)) => (i + 1, tokens, Some(i)),
        None => (0, 0, None),
    };
    let trailing_tokens = messages[start..].iter().map(estimate_tokens).sum();
    ContextEstimate {
        tokens: usage_tokens + trailing_tokens,
        usage_tokens,
        trailing_tokens,
        last_usage_index,
    }
}

/// Pi's `shouldCompact`: enabled, and `context_tokens > context_window − reserveTokens`.
pub fn should_compact(context_tokens: u64, context_window: u64, policy: &CompactionPolicy) -> bool {
    // Signed, as in Pi: a window smaller than the reserve makes every context too big.
    policy.enabled
        && i128::from(context_tokens)
            > i128::from(context_window) - i128::from(policy.reserve_tokens)
}
