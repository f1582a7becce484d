//! Compaction (pi-reference §8.4): cut points, preparation, the summarisation request, the
//! summary message, the events and the triggers.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cut;
mod events;
mod pi16_estimate;
mod session;
mod summarize;
mod trigger;

use std::sync::Arc;

use rho_agent::AgentMessage;
use rho_ai::faux::{faux_message, faux_text, faux_tool_call};
use rho_ai::{AssistantMessage, ContentBlock, ToolResultMessage, Usage, UserMessage};
use rho_host::compaction::{PathEntry, PathEntryKind};
use serde_json::Value;

/// A user message of `text`, at time `at`.
pub fn user(text: &str, at: i64) -> AgentMessage {
    let mut message = UserMessage::text(text);
    message.timestamp = at;
    message.into()
}

/// A faux assistant reply of `content` whose usage reports `total_tokens`.
pub fn reply(content: Vec<ContentBlock>, total_tokens: u64, at: i64) -> AssistantMessage {
    let mut message = faux_message(content);
    message.usage = Usage {
        total_tokens,
        ..Usage::default()
    };
    message.timestamp = at;
    message
}

/// An assistant message with one text block.
pub fn said(text: &str, at: i64) -> AgentMessage {
    reply(vec![faux_text(text)], 0, at).into()
}

/// An assistant message calling `name(arguments)` with call id `id`.
pub fn calls(id: &str, name: &str, arguments: Value, at: i64) -> AgentMessage {
    reply(vec![faux_tool_call(id, name, arguments)], 0, at).into()
}

/// The result of call `id`, reading `text`.
pub fn result(id: &str, name: &str, text: &str, at: i64) -> AgentMessage {
    Arc::new(ToolResultMessage {
        tool_call_id: id.into(),
        tool_name: name.into(),
        content: vec![ContentBlock::text(text)],
        details: None,
        is_error: false,
        duration_ms: None,
        usage: None,
        timestamp: at,
    })
    .into()
}

/// A `message` entry with id `e<index>` for each message.
pub fn path_of(messages: Vec<AgentMessage>) -> Vec<PathEntry> {
    messages
        .into_iter()
        .enumerate()
        .map(|(i, m)| entry(&format!("e{i}"), PathEntryKind::Message(m)))
        .collect()
}

/// An entry.
pub fn entry(id: &str, kind: PathEntryKind) -> PathEntry {
    PathEntry {
        id: id.into(),
        kind,
    }
}

/// `n` characters of filler (`n/4` tokens by Pi's estimate).
pub fn chars(n: usize) -> String {
    "x".repeat(n)
}
