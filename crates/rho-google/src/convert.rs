//! rho messages and tools → Gemini `contents` and `functionDeclarations` (pi-reference §5.4
//! "Contents"). Object keys are written in the order the `@google/genai` SDK serializes them, so
//! the body matches Pi's byte for byte.

use rho_ai::{
    AssistantMessage, ContentBlock, ImageContent, Message, Model, ToolResultMessage, ToolSpec,
    UserContent, UserMessage,
};
use serde_json::{Map, Value, json};

/// The text of the extra user turn carrying tool-result images for Gemini before 3.
pub const TOOL_RESULT_IMAGE: &str = "Tool result image:";
/// The function response of a tool result that has images but no text.
pub const SEE_ATTACHED_IMAGE: &str = "(see attached image)";

/// Models reached through Google's API that need explicit ids on function calls and responses.
pub fn requires_tool_call_id(model_id: &str) -> bool {
    model_id.starts_with("claude-") || model_id.starts_with("gpt-oss-")
}

/// The Google id rule for tool calls written by another model: only for `claude-*` / `gpt-oss-*`
/// targets, every character outside `[a-zA-Z0-9_-]` becomes `_` and the id is cut to 64 chars;
/// otherwise the id is kept.
pub fn normalize_tool_call_id(model_id: &str, id: &str) -> String {
    if !requires_tool_call_id(model_id) {
        return id.to_owned();
    }
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

/// Whether a signature can be sent back: Google types it as bytes, so it must be base64.
pub fn is_valid_thought_signature(signature: &str) -> bool {
    if signature.is_empty() || !signature.len().is_multiple_of(4) {
        return false;
    }
    let body = signature.trim_end_matches('=');
    let padding = signature.len() - body.len();
    !body.is_empty()
        && padding <= 2
        && body
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/')
}

/// The major version of a `gemini-<N>…` / `gemini-live-<N>…` model id.
fn gemini_major_version(model_id: &str) -> Option<u32> {
    let id = model_id.to_ascii_lowercase();
    let rest = id.strip_prefix("gemini-")?;
    let rest = rest.strip_prefix("live-").unwrap_or(rest);
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// Gemini 3 and non-Gemini models take images inside a function response; Gemini 1–2 do not.
fn supports_multimodal_function_response(model_id: &str) -> bool {
    gemini_major_version(model_id).is_none_or(|major| major >= 3)
}

/// `{inlineData:{data, mimeType}}`, as the SDK writes a top-level part.
fn inline_data(image: &ImageContent) -> Value {
    json!({"inlineData": {"data": image.data, "mimeType": image.mime_type}})
}

fn content(role: &str, parts: Vec<Value>) -> Value {
    json!({"parts": parts, "role": role})
}

fn user_parts(user: &UserMessage) -> Vec<Value> {
    match &user.content {
        UserContent::Text(text) => vec![json!({"text": text})],
        UserContent::Blocks(blocks) => blocks
            .iter()
            .filter_map(|block| match block {
                ContentBlock::Text(text) => Some(json!({"text": text.text})),
                ContentBlock::Image(image) => Some(inline_data(image)),
                // Thinking and tool calls never belong in user content.
                ContentBlock::Thinking(_) | ContentBlock::ToolCall(_) => None,
            })
            .collect(),
    }
}

/// Inserts `thoughtSignature` when the message is this model's and the signature is base64.
fn with_signature(mut part: Map<String, Value>, same: bool, signature: Option<&str>) -> Value {
    if let Some(signature) = signature.filter(|s| same && is_valid_thought_signature(s)) {
        part.insert("thoughtSignature".into(), json!(signature));
    }
    Value::Object(part)
}

fn assistant_parts(assistant: &AssistantMessage, model: &Model) -> Vec<Value> {
    // Pi compares provider and model id here (not the api).
    let same = assistant.provider == model.provider && assistant.model == model.id;
    let mut parts = Vec::new();
    for block in &assistant.content {
        match block {
            ContentBlock::Text(text) if !text.text.trim().is_empty() => {
                let mut part = Map::new();
                part.insert("text".into(), json!(text.text));
                parts.push(with_signature(part, same, text.text_signature.as_deref()));
            }
            ContentBlock::Thinking(thinking) if !thinking.thinking.trim().is_empty() => {
                let mut part = Map::new();
                part.insert("text".into(), json!(thinking.thinking));
                if same {
                    part.insert("thought".into(), json!(true));
                }
                let signature = thinking.thinking_signature.as_deref();
                parts.push(with_signature(part, same, signature));
            }
            ContentBlock::ToolCall(call) => {
                let mut function_call = Map::new();
                if requires_tool_call_id(&model.id) {
                    function_call.insert("id".into(), json!(call.id));
                }
                function_call.insert("args".into(), call.arguments.clone());
                function_call.insert("name".into(), json!(call.name));
                let mut part = Map::new();
                part.insert("functionCall".into(), Value::Object(function_call));
                parts.push(with_signature(
                    part,
                    same,
                    call.thought_signature.as_deref(),
                ));
            }
            _ => {}
        }
    }
    parts
}

/// Appends one tool result: a `functionResponse` part, merged into the previous user content when
/// that content already holds function responses (all responses of a turn go in one content).
fn push_tool_result(contents: &mut Vec<Value>, result: &ToolResultMessage, model: &Model) {
    let text: Vec<&str> = result
        .content
        .iter()
        .filter_map(ContentBlock::as_text)
        .collect();
    let text = text.join("\n");
    let vision = model.input.iter().any(|kind| kind == "image");
    let images: Vec<&ImageContent> = result
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Image(image) if vision => Some(image),
            _ => None,
        })
        .collect();
    let value = if !text.is_empty() {
        text
    } else if !images.is_empty() {
        SEE_ATTACHED_IMAGE.to_owned()
    } else {
        String::new()
    };
    let nested_images = supports_multimodal_function_response(&model.id);
    let mut response = Map::new();
    response.insert("name".into(), json!(result.tool_name));
    let key = if result.is_error { "error" } else { "output" };
    response.insert("response".into(), json!({ key: value }));
    if !images.is_empty() && nested_images {
        // Nested parts pass through the SDK untouched, so they keep Pi's own key order.
        let parts: Vec<Value> = images
            .iter()
            .map(|image| json!({"inlineData": {"mimeType": image.mime_type, "data": image.data}}))
            .collect();
        response.insert("parts".into(), Value::Array(parts));
    }
    if requires_tool_call_id(&model.id) {
        response.insert("id".into(), json!(result.tool_call_id));
    }
    let part = json!({"functionResponse": response});

    let merged = contents.last_mut().is_some_and(|last| {
        let holds_responses = last["role"] == "user"
            && last["parts"]
                .as_array()
                .is_some_and(|parts| parts.iter().any(|p| p.get("functionResponse").is_some()));
        if let (true, Some(parts)) = (holds_responses, last["parts"].as_array_mut()) {
            parts.push(part.clone());
            return true;
        }
        false
    });
    if !merged {
        contents.push(content("user", vec![part]));
    }
    if !images.is_empty() && !nested_images {
        let mut parts = vec![json!({"text": TOOL_RESULT_IMAGE})];
        parts.extend(images.into_iter().map(inline_data));
        contents.push(content("user", parts));
    }
}

/// Converts transformed messages (see [`rho_ai::transform::transform_messages`]) to `contents`.
pub fn convert_messages(messages: &[Message], model: &Model) -> Vec<Value> {
    let mut contents = Vec::with_capacity(messages.len());
    for message in messages {
        match message {
            Message::User(user) => {
                let parts = user_parts(user);
                if !parts.is_empty() {
                    contents.push(content("user", parts));
                }
            }
            Message::Assistant(assistant) => {
                let parts = assistant_parts(assistant, model);
                if !parts.is_empty() {
                    contents.push(content("model", parts));
                }
            }
            Message::ToolResult(result) => push_tool_result(&mut contents, result, model),
        }
    }
    contents
}

/// `[{functionDeclarations:[{name, description, parametersJsonSchema}]}]`, or `None` without tools.
pub fn convert_tools(tools: &[ToolSpec]) -> Option<Value> {
    if tools.is_empty() {
        return None;
    }
    let declarations: Vec<Value> = tools
        .iter()
        .map(|tool| {
            json!({
                "name": tool.name,
                "description": tool.description,
                "parametersJsonSchema": tool.parameters,
            })
        })
        .collect();
    Some(json!([{ "functionDeclarations": declarations }]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_claude_and_gpt_oss_targets_get_sanitized_ids() {
        assert_eq!(
            normalize_tool_call_id("gemini-2.5-pro", "call|a.b"),
            "call|a.b"
        );
        assert_eq!(
            normalize_tool_call_id("claude-sonnet-4-5", "call|a.b"),
            "call_a_b"
        );
        assert_eq!(
            normalize_tool_call_id("gpt-oss-120b", &"x".repeat(70)).len(),
            64
        );
    }

    #[test]
    fn a_signature_is_kept_only_when_it_is_padded_base64() {
        assert!(is_valid_thought_signature("EqUCCqIC"));
        assert!(is_valid_thought_signature("AB+/cd=="));
        assert!(!is_valid_thought_signature("abc"));
        assert!(!is_valid_thought_signature("ab-_"));
        assert!(!is_valid_thought_signature("===="));
        assert!(!is_valid_thought_signature(""));
    }

    #[test]
    fn the_gemini_major_version_decides_where_tool_images_go() {
        assert!(!supports_multimodal_function_response("gemini-2.5-pro"));
        assert!(!supports_multimodal_function_response(
            "gemini-live-2.5-flash"
        ));
        assert!(supports_multimodal_function_response(
            "gemini-3-pro-preview"
        ));
        assert!(supports_multimodal_function_response("claude-sonnet-4-5"));
    }
}
