//! rho messages → Chat Completions `messages` (pi-reference §5.3 "Messages").
//!
//! Input is the transcript after `transform_messages` (§5.0), so foreign thinking is already
//! text, failed assistant turns are gone and every tool call has a result. The wire messages
//! borrow from it (see [`super::wire`]): nothing of the transcript is copied.

use std::borrow::Cow;

use rho_ai::{ContentBlock, Message, Model, ToolCall, ToolResultMessage, UserContent};
use serde_json::Value;

use super::compat::{CompletionsCompat, ThinkingFormat};
use super::wire::{MessageContent, Outgoing, Part, Role, WireMessage, WireToolCall};

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

/// `pieces` joined with `separator`; borrowed when there is at most one.
fn join<'a>(mut pieces: impl Iterator<Item = &'a str>, separator: &str) -> Cow<'a, str> {
    let Some(first) = pieces.next() else {
        return Cow::Borrowed("");
    };
    let Some(second) = pieces.next() else {
        return Cow::Borrowed(first);
    };
    let mut joined = format!("{first}{separator}{second}");
    for piece in pieces {
        joined.push_str(separator);
        joined.push_str(piece);
    }
    Cow::Owned(joined)
}

/// The wire message a transformed message becomes on its own (`None` when it sends nothing):
/// the unit that a conversation's [`rho_http::WireCache`] keeps. What depends on neighbours
/// (the bridge after tool results, the images of a run of results) is added by
/// [`convert_messages`].
pub fn message_unit<'a>(
    model: &Model,
    compat: &CompletionsCompat,
    message: &'a Message,
) -> Option<WireMessage<'a>> {
    match message {
        Message::User(user) => user_content(model, &user.content)
            .map(|content| WireMessage::plain(Role::User, content)),
        Message::Assistant(assistant) => assistant_message(&assistant.content, compat),
        Message::ToolResult(result) => Some(tool_message(result, compat)),
    }
}

/// Converts the system prompt and the (transformed) transcript to wire messages. `unit` gives
/// the wire message of the `i`-th message on its own (see [`message_unit`]), built now or
/// written by an earlier request.
pub fn convert_messages<'a>(
    model: &Model,
    system_prompt: Option<&'a str>,
    messages: &'a [Message],
    compat: &CompletionsCompat,
    unit: &dyn Fn(usize) -> Option<Outgoing<'a>>,
) -> Vec<Outgoing<'a>> {
    let mut out = Vec::with_capacity(messages.len() + 1);
    if let Some(prompt) = system_prompt.filter(|p| !p.is_empty()) {
        let role = if model.reasoning && compat.supports_developer_role {
            Role::Developer
        } else {
            Role::System
        };
        let system = WireMessage::plain(role, MessageContent::Text(prompt.into()));
        out.push(Outgoing::Built(Box::new(system)));
    }
    let mut last_role: Option<&'static str> = None;
    let mut i = 0;
    while let Some(message) = messages.get(i) {
        let position = i;
        i += 1;
        match message {
            Message::User(_) => {
                if compat.requires_assistant_after_tool_result && last_role == Some("toolResult") {
                    out.push(Outgoing::Built(Box::new(tool_results_processed())));
                }
                let Some(wire) = unit(position) else {
                    continue;
                };
                out.push(wire);
                last_role = Some("user");
            }
            Message::Assistant(_) => {
                if let Some(wire) = unit(position) {
                    out.push(wire);
                    last_role = Some("assistant");
                }
            }
            Message::ToolResult(_) => {
                // A run of consecutive results is one unit: their images follow as one user message.
                out.extend(unit(position));
                while let Some(Message::ToolResult(_)) = messages.get(i) {
                    out.extend(unit(i));
                    i += 1;
                }
                let run = &messages[position..i];
                last_role = Some(push_tool_images(model, run, compat, &mut out));
            }
        }
    }
    out
}

/// The synthetic assistant turn between tool results and a user message.
fn tool_results_processed() -> WireMessage<'static> {
    WireMessage::plain(
        Role::Assistant,
        MessageContent::Text(TOOL_RESULTS_PROCESSED.into()),
    )
}

/// A user message's content: a string, or text and image parts (`None` when nothing is left).
fn user_content<'a>(model: &Model, content: &'a UserContent) -> Option<MessageContent<'a>> {
    let blocks = match content {
        UserContent::Text(text) => return Some(MessageContent::Text(text.into())),
        UserContent::Blocks(blocks) => blocks,
    };
    let vision = supports_images(model);
    let parts: Vec<Part<'a>> = blocks
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text(t) => Some(Part::Text { text: &t.text }),
            ContentBlock::Image(image) if vision => {
                Some(Part::image(&image.mime_type, &image.data))
            }
            _ => None,
        })
        .collect();
    (!parts.is_empty()).then_some(MessageContent::Parts(parts))
}

/// An assistant message, or `None` when it has neither content nor tool calls (servers reject
/// empty assistant turns, e.g. an aborted response that streamed nothing).
fn assistant_message<'a>(
    content: &'a [ContentBlock],
    compat: &CompletionsCompat,
) -> Option<WireMessage<'a>> {
    let text = join(
        content
            .iter()
            .filter_map(ContentBlock::as_text)
            .filter(|t| !t.trim().is_empty()),
        "",
    );
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
    let mut reasoning: Option<(&str, Cow<'a, str>)> = None;
    if let Some((_, signature)) = thinking.first() {
        let thoughts = |separator| join(thinking.iter().map(|(t, _)| *t), separator);
        if compat.requires_thinking_as_text {
            let thoughts = thoughts("\n\n");
            text = Some(match text {
                Some(text) => Cow::Owned(format!("{thoughts}\n\n{text}")),
                None => thoughts,
            });
        } else if let Some(field) =
            signature.and_then(|s| REASONING_FIELDS.iter().find(|f| **f == s))
        {
            reasoning = Some((field, thoughts("\n")));
        }
    }
    if text.is_none() && calls.is_empty() {
        return None;
    }

    let empty = if compat.requires_assistant_after_tool_result {
        MessageContent::Text(Cow::Borrowed(""))
    } else {
        MessageContent::Null
    };
    let mut wire = WireMessage::plain(Role::Assistant, text.map_or(empty, MessageContent::Text));
    match reasoning {
        Some(("reasoning", joined)) => wire.reasoning = Some(joined),
        Some(("reasoning_text", joined)) => wire.reasoning_text = Some(joined),
        Some((_, joined)) => wire.reasoning_content = Some(joined),
        None => {}
    }
    if compat.thinking_format == ThinkingFormat::Deepseek && wire.reasoning_content.is_none() {
        // DeepSeek rejects a replayed assistant turn without `reasoning_content` in thinking mode.
        wire.reasoning_content = Some(Cow::Borrowed(""));
    }
    if !calls.is_empty() {
        let tool_calls = calls
            .iter()
            .map(|call| WireToolCall::new(&call.id, &call.name, &call.arguments))
            .collect();
        wire.tool_calls = Some(tool_calls);
        let details: Vec<Value> = calls
            .iter()
            .filter_map(|call| call.thought_signature.as_deref())
            .filter_map(|signature| serde_json::from_str::<Value>(signature).ok())
            .filter(|detail| !detail.is_null())
            .collect();
        if !details.is_empty() {
            wire.reasoning_details = Some(details);
        }
    }
    Some(wire)
}

/// One tool result as a `tool` message.
fn tool_message<'a>(result: &'a ToolResultMessage, compat: &CompletionsCompat) -> WireMessage<'a> {
    let text = join(
        result.content.iter().filter_map(ContentBlock::as_text),
        "\n",
    );
    let content = if text.is_empty() {
        Cow::Borrowed(SEE_ATTACHED_IMAGE)
    } else {
        text
    };
    let mut wire = WireMessage::plain(Role::Tool, MessageContent::Text(content));
    wire.tool_call_id = Some(&result.tool_call_id);
    if compat.requires_tool_result_name && !result.tool_name.is_empty() {
        wire.name = Some(&result.tool_name);
    }
    wire
}

/// Pushes the user message with the images of a run of tool results (when the model sees
/// images and there are any); returns the role the next message follows.
fn push_tool_images<'a>(
    model: &Model,
    run: &'a [Message],
    compat: &CompletionsCompat,
    out: &mut Vec<Outgoing<'a>>,
) -> &'static str {
    let images: Vec<Part<'a>> = if supports_images(model) {
        run.iter()
            .flat_map(|message| match message {
                Message::ToolResult(result) => result.content.as_slice(),
                Message::User(_) | Message::Assistant(_) => &[],
            })
            .filter_map(|block| match block {
                ContentBlock::Image(image) => Some(Part::image(&image.mime_type, &image.data)),
                _ => None,
            })
            .collect()
    } else {
        Vec::new()
    };
    if images.is_empty() {
        return "toolResult";
    }
    if compat.requires_assistant_after_tool_result {
        out.push(Outgoing::Built(Box::new(tool_results_processed())));
    }
    let mut parts = vec![Part::Text {
        text: TOOL_IMAGES_INTRO,
    }];
    parts.extend(images);
    let images = WireMessage::plain(Role::User, MessageContent::Parts(parts));
    out.push(Outgoing::Built(Box::new(images)));
    "user"
}
