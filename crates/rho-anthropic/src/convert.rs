//! rho messages → Anthropic wire messages (pi-reference §5.1 "Messages" and "Cache control").
//!
//! The input is the transcript *after* `rho_ai::transform::transform_messages`, so history from
//! other models is already safe to replay; this module only changes shape. The wire values
//! borrow from the messages (see [`crate::wire`]): nothing of the transcript is copied.

use std::borrow::Cow;

use rho_ai::{
    AssistantMessage, ContentBlock, ImageContent, Message, ToolResultMessage, ToolSpec,
    UserContent, UserMessage,
};
use serde_json::Value;

use crate::wire::{
    Block, CacheControl, Content, ImageSource, InputSchema, Role, ToolResultContent, WireMessage,
    WireTool,
};

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
    pub fn cache_control(self) -> Option<CacheControl> {
        match self {
            CacheRetention::None => None,
            CacheRetention::Short => Some(CacheControl::EPHEMERAL),
            CacheRetention::Long => Some(CacheControl::ONE_HOUR),
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
pub fn wire_messages(
    messages: &[Message],
    cache_control: Option<CacheControl>,
) -> Vec<WireMessage<'_>> {
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
                wire.push(WireMessage {
                    role: Role::User,
                    content: Content::Blocks(results),
                });
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

/// [`wire_messages`] as JSON values, for inspection.
pub fn convert_messages(messages: &[Message], cache_control: Option<CacheControl>) -> Vec<Value> {
    wire_messages(messages, cache_control)
        .iter()
        .map(|message| serde_json::to_value(message).unwrap_or_default())
        .collect()
}

/// Tool specifications as Anthropic `tools`; the last one carries the cache breakpoint.
/// `eager_input_streaming` asks for unbuffered argument deltas unless the model's compat says the
/// endpoint does not know the field (the beta header is sent instead, see `request.rs`).
pub fn convert_tools(
    tools: &[ToolSpec],
    eager_input_streaming: bool,
    cache_control: Option<CacheControl>,
) -> Vec<WireTool<'_>> {
    let mut wire: Vec<WireTool<'_>> = tools
        .iter()
        .map(|tool| WireTool {
            name: &tool.name,
            description: &tool.description,
            eager_input_streaming: eager_input_streaming.then_some(true),
            input_schema: InputSchema::of(&tool.parameters),
            cache_control: None,
        })
        .collect();
    if let Some(last) = wire.last_mut() {
        last.cache_control = cache_control;
    }
    wire
}

fn is_blank(text: &str) -> bool {
    text.trim().is_empty()
}

fn text_block(text: &str) -> Block<'_> {
    Block::Text {
        text,
        cache_control: None,
    }
}

fn image_block(image: &ImageContent) -> Block<'_> {
    Block::Image {
        source: ImageSource::base64(&image.mime_type, &image.data),
        cache_control: None,
    }
}

/// A user message; `None` when nothing non-blank is left to send.
fn convert_user(user: &UserMessage) -> Option<WireMessage<'_>> {
    let content = match &user.content {
        UserContent::Text(text) if is_blank(text) => return None,
        UserContent::Text(text) => Content::Text(text),
        UserContent::Blocks(blocks) => {
            let content: Vec<Block<'_>> = blocks
                .iter()
                .filter_map(|block| match block {
                    ContentBlock::Text(t) if !is_blank(&t.text) => Some(text_block(&t.text)),
                    ContentBlock::Image(image) => Some(image_block(image)),
                    // Blank text, and blocks a user message cannot hold, are not sent.
                    _ => None,
                })
                .collect();
            if content.is_empty() {
                return None;
            }
            Content::Blocks(content)
        }
    };
    Some(WireMessage {
        role: Role::User,
        content,
    })
}

/// One assistant block on the wire, or `None` when it is not sent.
fn assistant_block(block: &ContentBlock) -> Option<Block<'_>> {
    match block {
        ContentBlock::Text(t) if !is_blank(&t.text) => Some(text_block(&t.text)),
        ContentBlock::Thinking(t) if t.redacted == Some(true) => Some(Block::RedactedThinking {
            data: t.thinking_signature.as_deref().unwrap_or_default(),
        }),
        ContentBlock::Thinking(t) if is_blank(&t.thinking) => None,
        ContentBlock::Thinking(t) => match t.thinking_signature.as_deref() {
            Some(signature) if !is_blank(signature) => Some(Block::Thinking {
                thinking: &t.thinking,
                signature,
            }),
            // Unsigned reasoning (an aborted stream) cannot be replayed as thinking.
            _ => Some(text_block(&t.thinking)),
        },
        ContentBlock::ToolCall(call) => Some(Block::ToolUse {
            id: &call.id,
            name: &call.name,
            input: &call.arguments,
        }),
        _ => None,
    }
}

/// An assistant message; `None` when every block was dropped.
fn convert_assistant(assistant: &AssistantMessage) -> Option<WireMessage<'_>> {
    // Server-side tool blocks go back where they stood (transform_messages keeps them only for
    // the model that wrote them).
    let providers = &assistant.provider_blocks;
    let mut content = Vec::with_capacity(assistant.content.len() + providers.len());
    for (position, block) in assistant.content.iter().enumerate() {
        let before = providers.iter().filter(|p| p.position == position);
        content.extend(before.map(|p| Block::Provider(&p.block)));
        content.extend(assistant_block(block));
    }
    let trailing = providers
        .iter()
        .filter(|p| p.position >= assistant.content.len());
    content.extend(trailing.map(|p| Block::Provider(&p.block)));
    (!content.is_empty()).then_some(WireMessage {
        role: Role::Assistant,
        content: Content::Blocks(content),
    })
}

/// One `tool_result` block: the text joined with newlines, or a block array when there are images.
fn tool_result_block(result: &ToolResultMessage) -> Block<'_> {
    let has_images = result
        .content
        .iter()
        .any(|block| matches!(block, ContentBlock::Image(_)));
    let content = if has_images {
        let mut blocks: Vec<Block<'_>> = result
            .content
            .iter()
            .filter_map(|block| match block {
                ContentBlock::Text(t) if !is_blank(&t.text) => Some(text_block(&t.text)),
                ContentBlock::Image(image) => Some(image_block(image)),
                _ => None,
            })
            .collect();
        if !blocks.iter().any(|b| matches!(b, Block::Text { .. })) {
            blocks.insert(0, text_block(SEE_ATTACHED_IMAGE));
        }
        ToolResultContent::Blocks(blocks)
    } else {
        ToolResultContent::Text(joined_text(&result.content))
    };
    Block::ToolResult {
        tool_use_id: &result.tool_call_id,
        content,
        is_error: result.is_error,
        cache_control: None,
    }
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

/// Puts `cache_control` on the last block of the last message if it is a user message; string
/// content becomes one text block so it can carry the marker.
fn mark_last_user_block(wire: &mut [WireMessage<'_>], cache_control: CacheControl) {
    let Some(last) = wire.last_mut() else { return };
    if last.role != Role::User {
        return;
    }
    if let Content::Text(text) = last.content {
        last.content = Content::Blocks(vec![text_block(text)]);
    }
    if let Content::Blocks(blocks) = &mut last.content
        && let Some(block) = blocks.last_mut()
    {
        block.set_cache_control(cache_control);
    }
}
