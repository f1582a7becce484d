//! Pi's `serializeConversation`: the messages to summarise as plain labelled text, so the
//! summarising model reads a transcript instead of continuing a conversation.

use rho_ai::{ContentBlock, Message, UserContent};
use serde_json::Value;

/// Longest tool result kept in the serialised text, in UTF-16 units as Pi counts.
pub const TOOL_RESULT_MAX_CHARS: usize = 2000;

/// `[User]: …`, `[Assistant thinking]: …`, `[Assistant]: …`, `[Assistant tool calls]: …`,
/// `[Tool result]: …`, parts joined by blank lines; empty parts are left out.
pub fn serialize_conversation(messages: &[Message]) -> String {
    let mut parts = Vec::new();
    for message in messages {
        match message {
            Message::User(user) => {
                let text = match &user.content {
                    UserContent::Text(text) => text.clone(),
                    UserContent::Blocks(blocks) => {
                        blocks.iter().filter_map(ContentBlock::as_text).collect()
                    }
                };
                if !text.is_empty() {
                    parts.push(format!("[User]: {text}"));
                }
            }
            Message::Assistant(assistant) => {
                let mut texts = Vec::new();
                let mut thinking = Vec::new();
                let mut calls = Vec::new();
                for block in &assistant.content {
                    match block {
                        ContentBlock::Text(t) => texts.push(t.text.as_str()),
                        ContentBlock::Thinking(t) => thinking.push(t.thinking.as_str()),
                        ContentBlock::ToolCall(call) => {
                            calls.push(format!(
                                "{}({})",
                                call.name,
                                arguments_text(&call.arguments)
                            ));
                        }
                        ContentBlock::Image(_) => {}
                    }
                }
                if !thinking.is_empty() {
                    parts.push(format!("[Assistant thinking]: {}", thinking.join("\n")));
                }
                if !texts.is_empty() {
                    parts.push(format!("[Assistant]: {}", texts.join("\n")));
                }
                if !calls.is_empty() {
                    parts.push(format!("[Assistant tool calls]: {}", calls.join("; ")));
                }
            }
            Message::ToolResult(result) => {
                let text: String = result
                    .content
                    .iter()
                    .filter_map(ContentBlock::as_text)
                    .collect();
                if !text.is_empty() {
                    parts.push(format!("[Tool result]: {}", truncate_for_summary(&text)));
                }
            }
        }
    }
    parts.join("\n\n")
}

/// `k=<JSON of v>` for each argument, joined by `, `.
fn arguments_text(arguments: &Value) -> String {
    match arguments {
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(", "),
        _ => String::new(),
    }
}

/// The first [`TOOL_RESULT_MAX_CHARS`] units and a note of how many were left out.
fn truncate_for_summary(text: &str) -> String {
    let total = text.encode_utf16().count();
    if total <= TOOL_RESULT_MAX_CHARS {
        return text.to_owned();
    }
    // Cut on a character boundary: a surrogate pair is never split, unlike JS's `slice`.
    let mut units = 0;
    let mut end = 0;
    for (i, c) in text.char_indices() {
        if units + c.len_utf16() > TOOL_RESULT_MAX_CHARS {
            break;
        }
        units += c.len_utf16();
        end = i + c.len_utf8();
    }
    format!(
        "{}\n\n[... {} more characters truncated]",
        &text[..end],
        total - units
    )
}
