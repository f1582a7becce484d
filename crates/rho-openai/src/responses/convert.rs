//! rho messages → Responses `input` items (pi-reference §5.2 "Input items").
//!
//! Replay is what makes a Responses conversation continue: reasoning items go back verbatim
//! (with their `encrypted_content`) from the thinking signature, message items keep the id and
//! phase of their text signature, and a tool call's `call_id|item_id` becomes a `function_call`
//! whose `call_id` pairs it with its `function_call_output`. The items borrow from the
//! transcript (see [`super::wire`]): nothing of it is copied.

use std::borrow::Cow;
use std::collections::HashMap;

use rho_ai::transform::transform_messages;
use rho_ai::{
    AssistantMessage, ContentBlock, Message, Model, ToolResultMessage, UserContent, UserMessage,
};
use serde_json::Value;

use super::ids::{
    message_item_id, normalize_tool_call_id, parse_text_signature, split_tool_call_id,
};
use super::wire::{InputItem, InputPart, Output, OutputText, Role, RoleContent};
use crate::body::JsonText;

/// The output of a tool result that has only images.
pub const SEE_ATTACHED_IMAGE: &str = "(see attached image)";

fn supports_images(model: &Model) -> bool {
    model.input.iter().any(|kind| kind == "image")
}

/// The transcript after the cross-provider transformation (§5.0) with the Responses id rule.
pub fn transform_for(model: &Model, messages: &[Message]) -> Vec<Message> {
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
    transform_messages(messages, model, &normalize)
}

/// The `input` items for `model`: the system prompt (as `developer` for reasoning models), then
/// the transcript, already transformed by [`transform_for`].
pub fn convert_input<'a>(
    model: &Model,
    system_prompt: Option<&'a str>,
    transformed: &'a [Message],
) -> Vec<InputItem<'a>> {
    let mut input = Vec::with_capacity(transformed.len() + 1);
    if let Some(prompt) = system_prompt {
        let role = if model.reasoning {
            Role::Developer
        } else {
            Role::System
        };
        input.push(InputItem::Role {
            role,
            content: RoleContent::Text(prompt),
        });
    }
    // Pi numbers messages for the `msg_<index>` fallback id, skipping the ones that add nothing.
    let mut index = 0;
    for message in transformed {
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

fn push_user<'a>(user: &'a UserMessage, input: &mut Vec<InputItem<'a>>) -> bool {
    let text = |text: &'a str| InputPart::InputText {
        text: Cow::Borrowed(text),
    };
    let content: Vec<InputPart<'a>> = match &user.content {
        UserContent::Text(t) => vec![text(t)],
        UserContent::Blocks(blocks) => blocks
            .iter()
            .filter_map(|block| match block {
                ContentBlock::Text(t) => Some(text(&t.text)),
                ContentBlock::Image(image) => Some(InputPart::image(&image.mime_type, &image.data)),
                ContentBlock::Thinking(_) | ContentBlock::ToolCall(_) => None,
            })
            .collect(),
    };
    if content.is_empty() {
        return false;
    }
    input.push(InputItem::Role {
        role: Role::User,
        content: RoleContent::Parts(content),
    });
    true
}

fn push_assistant<'a>(
    model: &Model,
    assistant: &'a AssistantMessage,
    index: usize,
    input: &mut Vec<InputItem<'a>>,
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
                    input.push(InputItem::Replayed(item));
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
                input.push(InputItem::Message {
                    role: "assistant",
                    content: [OutputText::new(&text.text)],
                    status: "completed",
                    id: message_item_id(id.as_deref(), index),
                    phase,
                });
            }
            ContentBlock::ToolCall(call) => {
                let (call_id, item_id) = split_tool_call_id(&call.id);
                let item_id = item_id.filter(|id| !(other_model && id.starts_with("fc_")));
                input.push(InputItem::FunctionCall {
                    id: item_id,
                    call_id,
                    name: &call.name,
                    arguments: JsonText(&call.arguments),
                });
            }
            ContentBlock::Image(_) => {}
        }
    }
    input.len() > before
}

/// `pieces` joined with newlines; borrowed when there is at most one.
fn joined_lines<'a>(mut pieces: impl Iterator<Item = &'a str>) -> Cow<'a, str> {
    let Some(first) = pieces.next() else {
        return Cow::Borrowed("");
    };
    let Some(second) = pieces.next() else {
        return Cow::Borrowed(first);
    };
    let mut joined = format!("{first}\n{second}");
    for piece in pieces {
        joined.push('\n');
        joined.push_str(piece);
    }
    Cow::Owned(joined)
}

fn tool_result_item<'a>(model: &Model, result: &'a ToolResultMessage) -> InputItem<'a> {
    let text = joined_lines(result.content.iter().filter_map(ContentBlock::as_text));
    let has_images = result
        .content
        .iter()
        .any(|b| matches!(b, ContentBlock::Image(_)));
    let output = if has_images && supports_images(model) {
        let mut parts = Vec::new();
        if !text.is_empty() {
            parts.push(InputPart::InputText { text });
        }
        parts.extend(result.content.iter().filter_map(|block| match block {
            ContentBlock::Image(image) => Some(InputPart::image(&image.mime_type, &image.data)),
            _ => None,
        }));
        Output::Parts(parts)
    } else if text.is_empty() {
        Output::Text(Cow::Borrowed(SEE_ATTACHED_IMAGE))
    } else {
        Output::Text(text)
    };
    let (call_id, _) = split_tool_call_id(&result.tool_call_id);
    InputItem::FunctionCallOutput { call_id, output }
}
