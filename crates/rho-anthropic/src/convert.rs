//! rho messages → Anthropic wire messages (pi-reference §5.1 "Messages" and "Cache control").
//!
//! The input is the transcript *after* `rho_ai::transform::transform_messages`, so history from
//! other models is already safe to replay; this module only changes shape.

use rho_ai::{
    AssistantMessage, ContentBlock, ImageContent, Message, ToolResultMessage, ToolSpec,
    UserContent, UserMessage,
};
use serde_json::{Map, Value, json};

/// Stands in for the missing text of a tool result that holds only images.
pub const SEE_ATTACHED_IMAGE: &str = "(see attached image)";

/// How long Anthropic should keep the prompt prefix cached (Pi's `cacheRetention`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CacheRetention {
    /// No `cache_control` markers.
    None,
    /// The default five-minute ephemeral cache.
    #[default]
    Short,
    /// The one-hour cache.
    Long,
}

impl CacheRetention {
    /// The `cache_control` value a breakpoint carries, or `None` when caching is off.
    pub fn cache_control(self) -> Option<Value> {
        match self {
            CacheRetention::None => None,
            CacheRetention::Short => Some(json!({"type": "ephemeral"})),
            CacheRetention::Long => Some(json!({"type": "ephemeral", "ttl": "1h"})),
        }
    }
}

/// Anthropic's tool-call id rule for ids written by another model: every character outside
/// `[a-zA-Z0-9_-]` becomes `_`, and the result is cut to 64 characters.
pub fn normalize_tool_call_id(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect()
}

/// Converts a transformed transcript into Anthropic `messages`, then marks the cache breakpoint:
/// the last block of the last message when that message is a user message.
pub fn convert_messages(messages: &[Message], cache_control: Option<&Value>) -> Vec<Value> {
    let mut wire = Vec::with_capacity(messages.len());
    let mut index = 0;
    while index < messages.len() {
        match &messages[index] {
            Message::User(user) => wire.extend(convert_user(user)),
            Message::Assistant(assistant) => wire.extend(convert_assistant(assistant)),
            Message::ToolResult(_) => {
                // Anthropic wants every result of one assistant turn in a single user message.
                let mut results = Vec::new();
                while let Some(Message::ToolResult(result)) = messages.get(index) {
                    results.push(tool_result_block(result));
                    index += 1;
                }
                wire.push(json!({"role": "user", "content": results}));
                continue;
            }
        }
        index += 1;
    }
    if let Some(cache_control) = cache_control {
        mark_last_user_block(&mut wire, cache_control);
    }
    wire
}

/// Tool specifications as Anthropic `tools`; the last one carries the cache breakpoint.
/// `eager_input_streaming` asks for unbuffered argument deltas unless the model's compat says the
/// endpoint does not know the field (the beta header is sent instead, see `request.rs`).
pub fn convert_tools(
    tools: &[ToolSpec],
    eager_input_streaming: bool,
    cache_control: Option<&Value>,
) -> Vec<Value> {
    let mut wire: Vec<Value> = tools
        .iter()
        .map(|tool| {
            let mut out = Map::new();
            out.insert("name".into(), json!(tool.name));
            out.insert("description".into(), json!(tool.description));
            if eager_input_streaming {
                out.insert("eager_input_streaming".into(), json!(true));
            }
            let properties = tool
                .parameters
                .get("properties")
                .cloned()
                .unwrap_or_else(|| json!({}));
            let required = tool
                .parameters
                .get("required")
                .cloned()
                .unwrap_or_else(|| json!([]));
            out.insert(
                "input_schema".into(),
                json!({"type": "object", "properties": properties, "required": required}),
            );
            Value::Object(out)
        })
        .collect();
    if let (Some(cache_control), Some(Value::Object(last))) = (cache_control, wire.last_mut()) {
        last.insert("cache_control".into(), cache_control.clone());
    }
    wire
}

fn is_blank(text: &str) -> bool {
    text.trim().is_empty()
}

fn image_block(image: &ImageContent) -> Value {
    json!({
        "type": "image",
        "source": {"type": "base64", "media_type": image.mime_type, "data": image.data},
    })
}

/// A user message; `None` when nothing non-blank is left to send.
fn convert_user(user: &UserMessage) -> Option<Value> {
    match &user.content {
        UserContent::Text(text) if is_blank(text) => None,
        UserContent::Text(text) => Some(json!({"role": "user", "content": text})),
        UserContent::Blocks(blocks) => {
            let content: Vec<Value> = blocks
                .iter()
                .filter_map(|block| match block {
                    ContentBlock::Text(t) if !is_blank(&t.text) => {
                        Some(json!({"type": "text", "text": t.text}))
                    }
                    ContentBlock::Image(image) => Some(image_block(image)),
                    // Blank text, and blocks a user message cannot hold, are not sent.
                    _ => None,
                })
                .collect();
            (!content.is_empty()).then(|| json!({"role": "user", "content": content}))
        }
    }
}

/// An assistant message; `None` when every block was dropped.
fn convert_assistant(assistant: &AssistantMessage) -> Option<Value> {
    let converted: Vec<Option<Value>> = assistant
        .content
        .iter()
        .map(|block| match block {
            ContentBlock::Text(t) if !is_blank(&t.text) => {
                Some(json!({"type": "text", "text": t.text}))
            }
            ContentBlock::Thinking(t) if t.redacted == Some(true) => Some(json!({
                "type": "redacted_thinking",
                "data": t.thinking_signature.as_deref().unwrap_or_default(),
            })),
            ContentBlock::Thinking(t) if is_blank(&t.thinking) => None,
            ContentBlock::Thinking(t) => match t.thinking_signature.as_deref() {
                Some(signature) if !is_blank(signature) => Some(json!({
                    "type": "thinking", "thinking": t.thinking, "signature": signature,
                })),
                // Unsigned reasoning (an aborted stream) cannot be replayed as thinking.
                _ => Some(json!({"type": "text", "text": t.thinking})),
            },
            ContentBlock::ToolCall(call) => Some(json!({
                "type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments,
            })),
            _ => None,
        })
        .collect();
    // Server-side tool blocks go back where they stood (transform_messages keeps them only for
    // the model that wrote them).
    let mut content = Vec::with_capacity(converted.len() + assistant.provider_blocks.len());
    for (position, block) in converted.into_iter().enumerate() {
        let before = assistant
            .provider_blocks
            .iter()
            .filter(|p| p.position == position);
        content.extend(before.map(|p| Value::clone(&p.block)));
        content.extend(block);
    }
    let trailing = assistant
        .provider_blocks
        .iter()
        .filter(|p| p.position >= assistant.content.len());
    content.extend(trailing.map(|p| Value::clone(&p.block)));
    (!content.is_empty()).then(|| json!({"role": "assistant", "content": content}))
}

/// One `tool_result` block: the text joined with newlines, or a block array when there are images.
fn tool_result_block(result: &ToolResultMessage) -> Value {
    let has_images = result
        .content
        .iter()
        .any(|block| matches!(block, ContentBlock::Image(_)));
    let content = if has_images {
        let mut blocks: Vec<Value> = result
            .content
            .iter()
            .filter_map(|block| match block {
                ContentBlock::Text(t) if !is_blank(&t.text) => {
                    Some(json!({"type": "text", "text": t.text}))
                }
                ContentBlock::Image(image) => Some(image_block(image)),
                _ => None,
            })
            .collect();
        if !blocks.iter().any(|b| b["type"] == "text") {
            blocks.insert(0, json!({"type": "text", "text": SEE_ATTACHED_IMAGE}));
        }
        Value::Array(blocks)
    } else {
        let texts: Vec<&str> = result
            .content
            .iter()
            .filter_map(ContentBlock::as_text)
            .collect();
        Value::String(texts.join("\n"))
    };
    json!({
        "type": "tool_result",
        "tool_use_id": result.tool_call_id,
        "content": content,
        "is_error": result.is_error,
    })
}

/// Puts `cache_control` on the last block of the last message if it is a user message; string
/// content becomes one text block so it can carry the marker.
fn mark_last_user_block(wire: &mut [Value], cache_control: &Value) {
    let Some(last) = wire.last_mut() else { return };
    if last["role"] != "user" {
        return;
    }
    let Some(content) = last.get_mut("content") else {
        return;
    };
    if let Value::String(text) = content {
        let text = std::mem::take(text);
        *content = json!([{"type": "text", "text": text}]);
    }
    if let Some(Value::Object(block)) = content.as_array_mut().and_then(|blocks| blocks.last_mut())
    {
        block.insert("cache_control".into(), cache_control.clone());
    }
}
