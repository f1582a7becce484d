//! rho messages and tools → Gemini `contents` and `functionDeclarations` (pi-reference §5.4
//! "Contents"). The wire values borrow from the messages (see [`crate::wire`], whose key order is
//! the `@google/genai` SDK's): nothing of the transcript is copied.

use std::borrow::Cow;

use rho_ai::{
    AssistantMessage, ContentBlock, ImageContent, Message, Model, ToolResultMessage, ToolSpec,
    UserContent, UserMessage,
};

use crate::wire::{
    FunctionCall, FunctionDeclaration, FunctionResponse, NestedImage, Part, ResponseValue, Tools,
    WireContent,
};

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

fn content<'a>(role: &'static str, parts: Vec<Part<'a>>) -> WireContent<'a> {
    WireContent { parts, role }
}

fn user_parts(user: &UserMessage) -> Vec<Part<'_>> {
    match &user.content {
        UserContent::Text(text) => vec![Part::text(text)],
        UserContent::Blocks(blocks) => blocks
            .iter()
            .filter_map(|block| match block {
                ContentBlock::Text(text) => Some(Part::text(&text.text)),
                ContentBlock::Image(image) => Some(Part::image(&image.mime_type, &image.data)),
                // Thinking and tool calls never belong in user content.
                ContentBlock::Thinking(_) | ContentBlock::ToolCall(_) => None,
            })
            .collect(),
    }
}

/// The signature to send: only when the message is this model's and the signature is base64.
fn signature(same: bool, signature: Option<&str>) -> Option<&str> {
    signature.filter(|s| same && is_valid_thought_signature(s))
}

fn assistant_parts<'a>(assistant: &'a AssistantMessage, model: &Model) -> Vec<Part<'a>> {
    // Pi compares provider and model id here (not the api).
    let same = assistant.provider == model.provider && assistant.model == model.id;
    let mut parts = Vec::new();
    for block in &assistant.content {
        match block {
            ContentBlock::Text(text) if !text.text.trim().is_empty() => parts.push(Part::Text {
                text: &text.text,
                thought: None,
                thought_signature: signature(same, text.text_signature.as_deref()),
            }),
            ContentBlock::Thinking(thinking) if !thinking.thinking.trim().is_empty() => {
                parts.push(Part::Text {
                    text: &thinking.thinking,
                    thought: same.then_some(true),
                    thought_signature: signature(same, thinking.thinking_signature.as_deref()),
                });
            }
            ContentBlock::ToolCall(call) => parts.push(Part::FunctionCall {
                function_call: FunctionCall {
                    id: requires_tool_call_id(&model.id).then_some(call.id.as_str()),
                    args: &call.arguments,
                    name: &call.name,
                },
                thought_signature: signature(same, call.thought_signature.as_deref()),
            }),
            _ => {}
        }
    }
    parts
}

/// The text blocks joined with newlines; borrowed when there is at most one.
fn joined_text(content: &[ContentBlock]) -> Cow<'_, str> {
    let mut texts = content.iter().filter_map(ContentBlock::as_text);
    let Some(first) = texts.next() else {
        return Cow::Borrowed("");
    };
    let Some(second) = texts.next() else {
        return Cow::Borrowed(first);
    };
    let mut joined = format!("{first}\n{second}");
    for text in texts {
        joined.push('\n');
        joined.push_str(text);
    }
    Cow::Owned(joined)
}

/// Appends one tool result: a `functionResponse` part, merged into the previous user content when
/// that content already holds function responses (all responses of a turn go in one content).
fn push_tool_result<'a>(
    contents: &mut Vec<WireContent<'a>>,
    result: &'a ToolResultMessage,
    model: &Model,
) {
    let text = joined_text(&result.content);
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
        Cow::Borrowed(SEE_ATTACHED_IMAGE)
    } else {
        Cow::Borrowed("")
    };
    let nested_images = supports_multimodal_function_response(&model.id);
    let part = Part::FunctionResponse {
        function_response: FunctionResponse {
            name: &result.tool_name,
            response: if result.is_error {
                ResponseValue::Error(value)
            } else {
                ResponseValue::Output(value)
            },
            parts: (!images.is_empty() && nested_images).then(|| {
                images
                    .iter()
                    .map(|image| NestedImage::new(&image.mime_type, &image.data))
                    .collect()
            }),
            id: requires_tool_call_id(&model.id).then_some(result.tool_call_id.as_str()),
        },
    };

    match contents.last_mut() {
        Some(last) if last.role == "user" && last.parts.iter().any(Part::is_function_response) => {
            last.parts.push(part);
        }
        _ => contents.push(content("user", vec![part])),
    }
    if !images.is_empty() && !nested_images {
        let mut parts = vec![Part::text(TOOL_RESULT_IMAGE)];
        parts.extend(
            images
                .into_iter()
                .map(|image| Part::image(&image.mime_type, &image.data)),
        );
        contents.push(content("user", parts));
    }
}

/// Converts transformed messages (see [`rho_ai::transform::transform_messages`]) to `contents`.
pub fn convert_messages<'a>(messages: &'a [Message], model: &Model) -> Vec<WireContent<'a>> {
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
pub fn convert_tools(tools: &[ToolSpec]) -> Option<[Tools<'_>; 1]> {
    if tools.is_empty() {
        return None;
    }
    let function_declarations = tools
        .iter()
        .map(|tool| FunctionDeclaration {
            name: &tool.name,
            description: &tool.description,
            parameters_json_schema: &tool.parameters,
        })
        .collect();
    Some([Tools {
        function_declarations,
    }])
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
