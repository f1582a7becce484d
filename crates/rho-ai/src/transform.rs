//! The cross-provider transformation every adapter applies before wire conversion
//! (pi-reference §5.0): history written by one model made safe to replay to another.

use std::collections::HashMap;
use std::sync::Arc;

use crate::content::{ContentBlock, TextContent, ToolCall};
use crate::message::{AssistantMessage, Message, ToolResultMessage, UserContent, UserMessage};
use crate::model::Model;

/// Replaces a run of images in a user message on a model without image input.
pub const USER_IMAGE_OMITTED: &str = "(image omitted: model does not support images)";
/// Replaces a run of images in a tool result on a model without image input.
pub const TOOL_IMAGE_OMITTED: &str = "(tool image omitted: model does not support images)";
/// The text of the synthetic result given to a tool call that never got one.
pub const NO_RESULT: &str = "No result provided";

/// Transforms `messages` for `model`. `normalize_tool_call_id` is the target adapter's id rule,
/// applied only to tool calls written by a different model.
pub fn transform_messages(
    messages: &[Message],
    model: &Model,
    normalize_tool_call_id: &dyn Fn(&str) -> String,
) -> Vec<Message> {
    let vision = model.input.iter().any(|kind| kind == "image");
    if replays_as_is(messages, model, vision) {
        return messages.to_vec();
    }
    let mut renamed: HashMap<String, String> = HashMap::new();
    let mut first_pass = Vec::with_capacity(messages.len());
    for message in messages {
        first_pass.push(match message {
            Message::User(user) if !vision && has_user_images(user) => {
                Message::User(Arc::new(without_user_images(user)))
            }
            Message::User(_) => message.clone(),
            Message::Assistant(assistant) => {
                transform_assistant(assistant, model, normalize_tool_call_id, &mut renamed)
            }
            Message::ToolResult(result) => transform_result(result, vision, &renamed),
        });
    }
    drop_failures_and_fill_orphans(first_pass)
}

fn is_same_model(message: &AssistantMessage, model: &Model) -> bool {
    message.model == model.id && message.provider == model.provider && message.api == model.api
}

/// Whether the transformation would hand `messages` back as they are, which is what a
/// conversation with one model usually is: every assistant message is the target model's own,
/// none failed or loses a block, every tool call is answered before the next assistant or user
/// message, and no image has to go. Checked in one pass, without copying anything.
fn replays_as_is(messages: &[Message], model: &Model, vision: bool) -> bool {
    let mut open: Vec<&str> = Vec::new();
    for message in messages {
        match message {
            Message::User(user) => {
                if !open.is_empty() || (!vision && has_user_images(user)) {
                    return false;
                }
            }
            Message::Assistant(assistant) => {
                let kept = open.is_empty()
                    && !assistant.stop_reason.is_failure()
                    && is_same_model(assistant, model)
                    && assistant.content.iter().all(kept_for_same_model);
                if !kept {
                    return false;
                }
                open.extend(assistant.tool_calls().map(|call| call.id.as_str()));
            }
            Message::ToolResult(result) => {
                if !vision
                    && result
                        .content
                        .iter()
                        .any(|b| matches!(b, ContentBlock::Image(_)))
                {
                    return false;
                }
                if let Some(at) = open.iter().position(|id| *id == result.tool_call_id) {
                    open.swap_remove(at);
                }
            }
        }
    }
    open.is_empty()
}

fn has_user_images(user: &UserMessage) -> bool {
    match &user.content {
        UserContent::Text(_) => false,
        UserContent::Blocks(blocks) => blocks.iter().any(|b| matches!(b, ContentBlock::Image(_))),
    }
}

fn without_user_images(user: &UserMessage) -> UserMessage {
    match &user.content {
        UserContent::Text(_) => user.clone(),
        UserContent::Blocks(blocks) => UserMessage {
            content: UserContent::Blocks(collapse_images(blocks, USER_IMAGE_OMITTED)),
            timestamp: user.timestamp,
        },
    }
}

/// Each run of consecutive images becomes one text block.
fn collapse_images(blocks: &[ContentBlock], placeholder: &str) -> Vec<ContentBlock> {
    let mut out: Vec<ContentBlock> = Vec::with_capacity(blocks.len());
    let mut in_run = false;
    for block in blocks {
        if matches!(block, ContentBlock::Image(_)) {
            if !in_run {
                out.push(ContentBlock::text(placeholder));
            }
            in_run = true;
        } else {
            in_run = false;
            out.push(block.clone());
        }
    }
    out
}

fn transform_assistant(
    assistant: &Arc<AssistantMessage>,
    model: &Model,
    normalize: &dyn Fn(&str) -> String,
    renamed: &mut HashMap<String, String>,
) -> Message {
    let same = is_same_model(assistant, model);
    // Most of a transcript replays unchanged: share it instead of copying every block.
    let keeps_provider_blocks = same || assistant.provider_blocks.is_empty();
    if keeps_provider_blocks
        && assistant
            .content
            .iter()
            .all(|block| replays_unchanged(block, same, normalize))
    {
        return Message::Assistant(assistant.clone());
    }
    let mut content = Vec::with_capacity(assistant.content.len());
    for block in &assistant.content {
        match block {
            ContentBlock::Thinking(thinking) => {
                if thinking.redacted == Some(true) {
                    if same {
                        content.push(block.clone());
                    }
                } else if same && thinking.thinking_signature.is_some() {
                    content.push(block.clone());
                } else if thinking.thinking.trim().is_empty() {
                } else if same {
                    content.push(block.clone());
                } else {
                    content.push(ContentBlock::text(thinking.thinking.clone()));
                }
            }
            ContentBlock::Text(text) if !same => content.push(ContentBlock::Text(TextContent {
                text: text.text.clone(),
                text_signature: None,
            })),
            ContentBlock::ToolCall(call) if !same => {
                let id = normalize(&call.id);
                if id != call.id {
                    renamed.insert(call.id.clone(), id.clone());
                }
                content.push(ContentBlock::ToolCall(ToolCall {
                    id,
                    thought_signature: None,
                    ..call.clone()
                }));
            }
            _ => content.push(block.clone()),
        }
    }
    // Provider-only blocks mean nothing to another model.
    let keep_provider_blocks = same || assistant.provider_blocks.is_empty();
    if content == assistant.content && keep_provider_blocks {
        return Message::Assistant(assistant.clone());
    }
    Message::Assistant(Arc::new(AssistantMessage {
        content,
        provider_blocks: if same {
            assistant.provider_blocks.clone()
        } else {
            Vec::new()
        },
        ..(**assistant).clone()
    }))
}

/// Whether `transform_assistant` would keep `block` exactly as it is.
fn replays_unchanged(block: &ContentBlock, same: bool, normalize: &dyn Fn(&str) -> String) -> bool {
    if same {
        return kept_for_same_model(block);
    }
    match block {
        ContentBlock::Thinking(_) => false,
        ContentBlock::Text(text) => text.text_signature.is_none(),
        ContentBlock::ToolCall(call) => {
            call.thought_signature.is_none() && normalize(&call.id) == call.id
        }
        ContentBlock::Image(_) => true,
    }
}

/// Whether a block of the target model's own message replays as it is: only blank reasoning
/// without a signature is dropped.
fn kept_for_same_model(block: &ContentBlock) -> bool {
    match block {
        ContentBlock::Thinking(thinking) => {
            thinking.redacted == Some(true)
                || thinking.thinking_signature.is_some()
                || !thinking.thinking.trim().is_empty()
        }
        ContentBlock::Text(_) | ContentBlock::ToolCall(_) | ContentBlock::Image(_) => true,
    }
}

fn transform_result(
    result: &Arc<ToolResultMessage>,
    vision: bool,
    renamed: &HashMap<String, String>,
) -> Message {
    let new_id = renamed.get(&result.tool_call_id);
    let has_images = result
        .content
        .iter()
        .any(|b| matches!(b, ContentBlock::Image(_)));
    if new_id.is_none() && (vision || !has_images) {
        return Message::ToolResult(result.clone());
    }
    let mut changed = (**result).clone();
    if let Some(id) = new_id {
        changed.tool_call_id = id.clone();
    }
    if !vision {
        changed.content = collapse_images(&result.content, TOOL_IMAGE_OMITTED);
    }
    Message::ToolResult(Arc::new(changed))
}

/// Drops failed assistant messages and gives every unanswered tool call a synthetic error result,
/// placed where its results should have been (before the next assistant or user message).
fn drop_failures_and_fill_orphans(messages: Vec<Message>) -> Vec<Message> {
    let orphans = unanswered_calls(&messages);
    let failed = |message: &Message| match message {
        Message::Assistant(assistant) => assistant.stop_reason.is_failure(),
        Message::User(_) | Message::ToolResult(_) => false,
    };
    if orphans.is_empty() && !messages.iter().any(failed) {
        return messages;
    }
    let mut out = Vec::with_capacity(messages.len() + orphans.len());
    let mut orphans = orphans.into_iter().peekable();
    for (index, message) in messages.into_iter().enumerate() {
        while let Some((_, result)) = orphans.next_if(|(at, _)| *at == index) {
            out.push(result);
        }
        if !failed(&message) {
            out.push(message);
        }
    }
    out.extend(orphans.map(|(_, result)| result));
    out
}

/// The synthetic results of the calls never answered, each with the index of the message it
/// goes before (`messages.len()` for the end). Failed assistant messages count for nothing.
fn unanswered_calls(messages: &[Message]) -> Vec<(usize, Message)> {
    struct Pending<'a> {
        call: &'a ToolCall,
        timestamp: i64,
        answered: bool,
    }
    let mut found = Vec::new();
    let mut pending: Vec<Pending<'_>> = Vec::new();
    let flush = |at: usize, pending: &mut Vec<Pending<'_>>, found: &mut Vec<(usize, Message)>| {
        for open in pending.drain(..).filter(|p| !p.answered) {
            let result = ToolResultMessage {
                tool_call_id: open.call.id.clone(),
                tool_name: open.call.name.clone(),
                content: vec![ContentBlock::text(NO_RESULT)],
                details: None,
                is_error: true,
                duration_ms: None,
                usage: None,
                timestamp: open.timestamp,
            };
            found.push((at, Message::ToolResult(Arc::new(result))));
        }
    };
    for (index, message) in messages.iter().enumerate() {
        match message {
            Message::Assistant(assistant) if assistant.stop_reason.is_failure() => {}
            Message::Assistant(assistant) => {
                flush(index, &mut pending, &mut found);
                pending.extend(assistant.tool_calls().map(|call| Pending {
                    call,
                    timestamp: assistant.timestamp,
                    answered: false,
                }));
            }
            Message::User(_) => flush(index, &mut pending, &mut found),
            Message::ToolResult(result) => {
                // Only the open calls matter: the results are looked up among them.
                for open in pending
                    .iter_mut()
                    .filter(|p| p.call.id == result.tool_call_id)
                {
                    open.answered = true;
                }
            }
        }
    }
    flush(messages.len(), &mut pending, &mut found);
    found
}
