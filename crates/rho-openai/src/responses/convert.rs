//! rho messages → Responses `input` items (pi-reference §5.2 "Input items").
//!
//! Replay is what makes a Responses conversation continue: reasoning items go back verbatim
//! (with their `encrypted_content`) from the thinking signature, message items keep the id and
//! phase of their text signature, and a tool call's `call_id|item_id` becomes a `function_call`
//! whose `call_id` pairs it with its `function_call_output`.

use std::collections::HashMap;

use rho_ai::transform::transform_messages;
use rho_ai::{
    AssistantMessage, ContentBlock, Message, Model, ToolResultMessage, UserContent, UserMessage,
};
use serde_json::{Map, Value, json};

use super::ids::{
    message_item_id, normalize_tool_call_id, parse_text_signature, split_tool_call_id,
};

/// The output of a tool result that has only images.
pub const SEE_ATTACHED_IMAGE: &str = "(see attached image)";

fn supports_images(model: &Model) -> bool {
    model.input.iter().any(|kind| kind == "image")
}

fn image_part(mime_type: &str, data: &str) -> Value {
    json!({"type": "input_image", "detail": "auto", "image_url": format!("data:{mime_type};base64,{data}")})
}

/// The `input` items for `model`: the system prompt (as `developer` for reasoning models), then
/// the transcript after the cross-provider transformation (§5.0).
pub fn convert_input(
    model: &Model,
    system_prompt: Option<&str>,
    messages: &[Message],
) -> Vec<Value> {
    // The id rule needs to know whether a call came from another provider or API; the shared
    // transformation only hands over the id, so the origin of each id is looked up here.
    let mut origins: HashMap<&str, bool> = HashMap::new();
    for message in messages {
        if let Message::Assistant(assistant) = message {
            let foreign = assistant.provider != model.provider || assistant.api != model.api;
            for call in assistant.tool_calls() {
                origins.insert(call.id.as_str(), foreign);
            }
        }
    }
    let normalize = |id: &str| {
        let foreign = origins.get(id).copied().unwrap_or(true);
        normalize_tool_call_id(id, model, foreign)
    };
    let transformed = transform_messages(messages, model, &normalize);

    let mut input = Vec::new();
    if let Some(prompt) = system_prompt {
        let role = if model.reasoning {
            "developer"
        } else {
            "system"
        };
        input.push(json!({"role": role, "content": prompt}));
    }
    // Pi numbers messages for the `msg_<index>` fallback id, skipping the ones that add nothing.
    let mut index = 0;
    for message in &transformed {
        let added = match message {
            Message::User(user) => push_user(user, &mut input),
            Message::Assistant(assistant) => push_assistant(model, assistant, index, &mut input),
            Message::ToolResult(result) => {
                input.push(tool_result_item(model, result));
                true
            }
        };
        if added {
            index += 1;
        }
    }
    input
}

fn push_user(user: &UserMessage, input: &mut Vec<Value>) -> bool {
    let content: Vec<Value> = match &user.content {
        UserContent::Text(text) => vec![json!({"type": "input_text", "text": text})],
        UserContent::Blocks(blocks) => blocks
            .iter()
            .filter_map(|block| match block {
                ContentBlock::Text(text) => Some(json!({"type": "input_text", "text": text.text})),
                ContentBlock::Image(image) => Some(image_part(&image.mime_type, &image.data)),
                ContentBlock::Thinking(_) | ContentBlock::ToolCall(_) => None,
            })
            .collect(),
    };
    if content.is_empty() {
        return false;
    }
    input.push(json!({"role": "user", "content": content}));
    true
}

fn push_assistant(
    model: &Model,
    assistant: &AssistantMessage,
    index: usize,
    input: &mut Vec<Value>,
) -> bool {
    // Another model of the same provider and API: its `fc_` item ids were paired with reasoning
    // items this model never saw, so they are left out.
    let other_model = assistant.model != model.id
        && assistant.provider == model.provider
        && assistant.api == model.api;
    let before = input.len();
    for block in &assistant.content {
        match block {
            ContentBlock::Thinking(thinking) => {
                // A reasoning item replays only from its signature; an item that is not JSON
                // cannot be sent back and is left out rather than failing the call.
                if let Some(item) = thinking
                    .thinking_signature
                    .as_deref()
                    .and_then(|s| serde_json::from_str::<Value>(s).ok())
                {
                    input.push(item);
                }
            }
            ContentBlock::Text(text) => {
                let (id, phase) = match text.text_signature.as_deref() {
                    Some(signature) if !signature.is_empty() => {
                        let (id, phase) = parse_text_signature(signature);
                        (Some(id), phase)
                    }
                    _ => (None, None),
                };
                let mut item = Map::new();
                item.insert("type".into(), "message".into());
                item.insert("role".into(), "assistant".into());
                item.insert(
                    "content".into(),
                    json!([{"type": "output_text", "text": text.text, "annotations": []}]),
                );
                item.insert("status".into(), "completed".into());
                item.insert("id".into(), message_item_id(id.as_deref(), index).into());
                if let Some(phase) = phase {
                    item.insert("phase".into(), phase.into());
                }
                input.push(Value::Object(item));
            }
            ContentBlock::ToolCall(call) => {
                let (call_id, item_id) = split_tool_call_id(&call.id);
                let item_id = item_id.filter(|id| !(other_model && id.starts_with("fc_")));
                let mut item = Map::new();
                item.insert("type".into(), "function_call".into());
                if let Some(item_id) = item_id {
                    item.insert("id".into(), item_id.into());
                }
                item.insert("call_id".into(), call_id.into());
                item.insert("name".into(), call.name.clone().into());
                item.insert("arguments".into(), call.arguments.to_string().into());
                input.push(Value::Object(item));
            }
            ContentBlock::Image(_) => {}
        }
    }
    input.len() > before
}

fn tool_result_item(model: &Model, result: &ToolResultMessage) -> Value {
    let text = result
        .content
        .iter()
        .filter_map(ContentBlock::as_text)
        .collect::<Vec<_>>()
        .join("\n");
    let has_images = result
        .content
        .iter()
        .any(|b| matches!(b, ContentBlock::Image(_)));
    let output = if has_images && supports_images(model) {
        let mut parts = Vec::new();
        if !text.is_empty() {
            parts.push(json!({"type": "input_text", "text": text}));
        }
        parts.extend(result.content.iter().filter_map(|block| match block {
            ContentBlock::Image(image) => Some(image_part(&image.mime_type, &image.data)),
            _ => None,
        }));
        Value::Array(parts)
    } else if text.is_empty() {
        Value::String(SEE_ATTACHED_IMAGE.to_owned())
    } else {
        Value::String(text)
    };
    let (call_id, _) = split_tool_call_id(&result.tool_call_id);
    json!({"type": "function_call_output", "call_id": call_id, "output": output})
}
