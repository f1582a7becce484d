//! rho messages → Chat Completions `messages` (pi-reference §5.3 "Messages").
//!
//! Input is the transcript after `transform_messages` (§5.0), so foreign thinking is already
//! text, failed assistant turns are gone and every tool call has a result.

use rho_ai::{ContentBlock, Message, Model, ToolCall, ToolResultMessage, UserContent};
use serde_json::{Map, Value, json};

use super::compat::{CompletionsCompat, ThinkingFormat};

/// The reasoning delta fields a server streams; a thinking block's signature names one of them,
/// and replay writes the thinking back under that name.
pub const REASONING_FIELDS: [&str; 3] = ["reasoning_content", "reasoning", "reasoning_text"];

/// The synthetic assistant turn for servers that reject a user message right after tool results.
pub const TOOL_RESULTS_PROCESSED: &str = "I have processed the tool results.";
/// The text of the user message that carries images returned by tools.
pub const TOOL_IMAGES_INTRO: &str = "Attached image(s) from tool result:";
/// The content of a tool result that has only images.
pub const SEE_ATTACHED_IMAGE: &str = "(see attached image)";

/// Chat Completions' rule for tool-call ids written by another model (pi-reference §5.0): a
/// Responses-style `call|item` id keeps its sanitized call part (≤ 40 chars); OpenAI itself
/// rejects ids longer than 40.
pub fn normalize_tool_call_id(id: &str, model: &Model) -> String {
    if let Some((call_id, _)) = id.split_once('|') {
        return call_id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .take(40)
            .collect();
    }
    if model.provider == "openai" && id.chars().count() > 40 {
        return id.chars().take(40).collect();
    }
    id.to_owned()
}

fn supports_images(model: &Model) -> bool {
    model.input.iter().any(|kind| kind == "image")
}

fn image_part(mime_type: &str, data: &str) -> Value {
    json!({"type": "image_url", "image_url": {"url": format!("data:{mime_type};base64,{data}")}})
}

/// Converts the system prompt and the (transformed) transcript to wire messages.
pub fn convert_messages(
    model: &Model,
    system_prompt: Option<&str>,
    messages: &[Message],
    compat: &CompletionsCompat,
) -> Vec<Value> {
    let mut out = Vec::with_capacity(messages.len() + 1);
    if let Some(prompt) = system_prompt.filter(|p| !p.is_empty()) {
        let role = if model.reasoning && compat.supports_developer_role {
            "developer"
        } else {
            "system"
        };
        out.push(json!({"role": role, "content": prompt}));
    }
    let mut last_role: Option<&'static str> = None;
    let mut i = 0;
    while let Some(message) = messages.get(i) {
        i += 1;
        match message {
            Message::User(user) => {
                if compat.requires_assistant_after_tool_result && last_role == Some("toolResult") {
                    out.push(json!({"role": "assistant", "content": TOOL_RESULTS_PROCESSED}));
                }
                let Some(content) = user_content(model, &user.content) else {
                    continue;
                };
                out.push(json!({"role": "user", "content": content}));
                last_role = Some("user");
            }
            Message::Assistant(assistant) => {
                if let Some(wire) = assistant_message(&assistant.content, compat) {
                    out.push(wire);
                    last_role = Some("assistant");
                }
            }
            Message::ToolResult(first) => {
                // A run of consecutive results is one unit: their images follow as one user message.
                let mut run = vec![first.as_ref()];
                while let Some(Message::ToolResult(next)) = messages.get(i) {
                    run.push(next.as_ref());
                    i += 1;
                }
                last_role = Some(push_tool_results(model, &run, compat, &mut out));
            }
        }
    }
    out
}

/// A user message's content: a string, or text and image parts (`None` when nothing is left).
fn user_content(model: &Model, content: &UserContent) -> Option<Value> {
    let blocks = match content {
        UserContent::Text(text) => return Some(Value::String(text.clone())),
        UserContent::Blocks(blocks) => blocks,
    };
    let vision = supports_images(model);
    let parts: Vec<Value> = blocks
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text(t) => Some(json!({"type": "text", "text": t.text})),
            ContentBlock::Image(image) if vision => Some(image_part(&image.mime_type, &image.data)),
            _ => None,
        })
        .collect();
    (!parts.is_empty()).then_some(Value::Array(parts))
}

/// An assistant message, or `None` when it has neither content nor tool calls (servers reject
/// empty assistant turns, e.g. an aborted response that streamed nothing).
fn assistant_message(content: &[ContentBlock], compat: &CompletionsCompat) -> Option<Value> {
    let text: String = content
        .iter()
        .filter_map(ContentBlock::as_text)
        .filter(|t| !t.trim().is_empty())
        .collect();
    let thinking: Vec<(&str, Option<&str>)> = content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Thinking(t) if !t.thinking.trim().is_empty() => {
                Some((t.thinking.as_str(), t.thinking_signature.as_deref()))
            }
            _ => None,
        })
        .collect();
    let calls: Vec<&ToolCall> = content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::ToolCall(call) => Some(call),
            _ => None,
        })
        .collect();

    let mut text = Some(text).filter(|t| !t.is_empty());
    let mut reasoning: Option<(&str, String)> = None;
    if let Some((_, signature)) = thinking.first() {
        if compat.requires_thinking_as_text {
            let thoughts = thinking
                .iter()
                .map(|(t, _)| *t)
                .collect::<Vec<_>>()
                .join("\n\n");
            text = Some(match text {
                Some(text) => format!("{thoughts}\n\n{text}"),
                None => thoughts,
            });
        } else if let Some(field) =
            signature.and_then(|s| REASONING_FIELDS.iter().find(|f| **f == s))
        {
            let joined = thinking
                .iter()
                .map(|(t, _)| *t)
                .collect::<Vec<_>>()
                .join("\n");
            reasoning = Some((field, joined));
        }
    }
    if text.is_none() && calls.is_empty() {
        return None;
    }

    let mut wire = Map::new();
    wire.insert("role".into(), "assistant".into());
    let empty = if compat.requires_assistant_after_tool_result {
        Value::String(String::new())
    } else {
        Value::Null
    };
    wire.insert("content".into(), text.map_or(empty, Value::String));
    if let Some((field, joined)) = reasoning {
        wire.insert(field.into(), Value::String(joined));
    }
    if compat.thinking_format == ThinkingFormat::Deepseek && !wire.contains_key("reasoning_content")
    {
        // DeepSeek rejects a replayed assistant turn without `reasoning_content` in thinking mode.
        wire.insert("reasoning_content".into(), Value::String(String::new()));
    }
    if !calls.is_empty() {
        let tool_calls: Vec<Value> = calls
            .iter()
            .map(|call| {
                json!({
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments.to_string()},
                })
            })
            .collect();
        wire.insert("tool_calls".into(), Value::Array(tool_calls));
        let details: Vec<Value> = calls
            .iter()
            .filter_map(|call| call.thought_signature.as_deref())
            .filter_map(|signature| serde_json::from_str::<Value>(signature).ok())
            .filter(|detail| !detail.is_null())
            .collect();
        if !details.is_empty() {
            wire.insert("reasoning_details".into(), Value::Array(details));
        }
    }
    Some(Value::Object(wire))
}

/// Pushes a run of tool results (and the user message with their images); returns the role the
/// next message follows.
fn push_tool_results(
    model: &Model,
    run: &[&ToolResultMessage],
    compat: &CompletionsCompat,
    out: &mut Vec<Value>,
) -> &'static str {
    let vision = supports_images(model);
    let mut images = Vec::new();
    for result in run {
        let text = result
            .content
            .iter()
            .filter_map(ContentBlock::as_text)
            .collect::<Vec<_>>()
            .join("\n");
        let content = if text.is_empty() {
            SEE_ATTACHED_IMAGE.to_owned()
        } else {
            text
        };
        let mut wire =
            json!({"role": "tool", "content": content, "tool_call_id": result.tool_call_id});
        if compat.requires_tool_result_name && !result.tool_name.is_empty() {
            wire["name"] = Value::String(result.tool_name.clone());
        }
        out.push(wire);
        if vision {
            images.extend(result.content.iter().filter_map(|block| match block {
                ContentBlock::Image(image) => Some(image_part(&image.mime_type, &image.data)),
                _ => None,
            }));
        }
    }
    if images.is_empty() {
        return "toolResult";
    }
    if compat.requires_assistant_after_tool_result {
        out.push(json!({"role": "assistant", "content": TOOL_RESULTS_PROCESSED}));
    }
    let mut parts = vec![json!({"type": "text", "text": TOOL_IMAGES_INTRO})];
    parts.extend(images);
    out.push(json!({"role": "user", "content": parts}));
    "user"
}
