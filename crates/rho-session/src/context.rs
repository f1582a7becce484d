//! Rebuilding what the model receives from the tree (Pi's `buildSessionContext`, §8.2).

use std::collections::HashMap;
use std::sync::Arc;

use rho_ai::{AgentMessage, CustomMessage};
use serde_json::{Map, Value};

use crate::entry::{EntryKind, SessionEntry};
use crate::message::{EntryMessage, SkippedMessage};
use crate::time::parse_iso_ms;

/// The model a session last used: the latest `model_change` or assistant message on the path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelRef {
    /// Provider name.
    pub provider: String,
    /// Model id.
    pub model_id: String,
}

/// What a session restores: the messages the agent starts from, the model and thinking level.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionContext {
    /// The transcript, with compaction and branch summaries and custom messages in place.
    pub messages: Vec<AgentMessage>,
    /// The latest `thinking_level_change` on the path, `"off"` without one.
    pub thinking_level: String,
    /// The latest model on the path.
    pub model: Option<ModelRef>,
    /// Messages on the path that could not be decoded (a damaged or hand-edited file), left
    /// out of `messages`. The caller shows them like the warnings of an open.
    pub skipped: Vec<SkippedMessage>,
}

impl SessionContext {
    /// The context of an empty session.
    pub fn empty() -> Self {
        SessionContext {
            messages: Vec::new(),
            thinking_level: "off".to_owned(),
            model: None,
            skipped: Vec::new(),
        }
    }
}

/// The entries from the root to `leaf`, in order. An id that is not in the tree gives the
/// path to the last entry, as Pi does. A parent cycle (a damaged file) ends the walk instead
/// of looping.
pub(crate) fn branch_path<'e>(
    entries: &'e [SessionEntry],
    index: &HashMap<String, usize>,
    leaf: &str,
) -> Vec<&'e SessionEntry> {
    let start = index
        .get(leaf)
        .copied()
        .or_else(|| entries.len().checked_sub(1));
    // Most entries follow their parent directly; with every id unique (the index holds one
    // slot per entry) a match with the previous line is the parent, and a long path is walked
    // without hashing (and cache-missing) a lookup per entry.
    let unique = index.len() == entries.len();
    let mut path = Vec::new();
    let mut current = start;
    while let Some(i) = current {
        if path.len() > entries.len() {
            break;
        }
        let entry = &entries[i];
        path.push(entry);
        current = entry
            .parent_id
            .as_ref()
            .and_then(|p| match i.checked_sub(1) {
                Some(previous) if unique && entries[previous].id == *p => Some(previous),
                _ => index.get(p).copied(),
            });
    }
    path.reverse();
    path
}

/// Pi's `buildSessionContext`: follows `leaf` to the root and applies the latest compaction on
/// the path. `leaf = None` is an empty context (the leaf was reset before the first entry).
///
/// Only the messages the context returns are decoded (plus, to find the model, the last
/// assistant message on the path), many at once on all cores. A message that cannot be decoded
/// is left out and reported in [`SessionContext::skipped`].
pub fn build_session_context(
    entries: &[SessionEntry],
    index: &HashMap<String, usize>,
    leaf: Option<&str>,
) -> SessionContext {
    let Some(leaf) = leaf else {
        return SessionContext::empty();
    };
    let path = branch_path(entries, index, leaf);
    let mut context = SessionContext::empty();
    let mut compaction = None;
    for (i, entry) in path.iter().enumerate() {
        match &entry.kind {
            EntryKind::ThinkingLevelChange { thinking_level } => {
                context.thinking_level.clone_from(thinking_level);
            }
            EntryKind::Compaction { .. } => compaction = Some(i),
            _ => {}
        }
    }
    context.model = latest_model(&path);
    let edits = context_edits(&path);
    let kept: Vec<&SessionEntry> = match compaction {
        Some(at) => {
            let entry = path[at];
            let EntryKind::Compaction {
                summary,
                first_kept_entry_id,
                tokens_before,
                system_message,
                ..
            } = &entry.kind
            else {
                return context;
            };
            // Pi 1.6: the checkpoint holds the whole prompt and tools, so it comes first and the
            // system messages of the kept range before the compaction are dropped.
            if let Some(checkpoint) = system_message
                .as_ref()
                .and_then(|m| serde_json::from_value::<AgentMessage>(m.clone()).ok())
            {
                context.messages.push(checkpoint);
            }
            context.messages.push(custom(
                "compactionSummary",
                [
                    ("summary", Value::from(summary.as_str())),
                    ("tokensBefore", Value::from(*tokens_before)),
                ],
                &entry.timestamp,
            ));
            let kept_from = path[..at]
                .iter()
                .position(|e| e.id == *first_kept_entry_id)
                .unwrap_or(at);
            path[kept_from..at]
                .iter()
                .filter(|e| !is_system_message(e))
                .chain(&path[at + 1..])
                .copied()
                .collect()
        }
        None => path,
    };
    decode_messages(&kept);
    for entry in kept {
        match edits.get(entry.id.as_str()) {
            None => push_message(&mut context, entry),
            Some(None) => {}
            Some(Some(replacement)) => {
                let mut edited = SessionContext::empty();
                push_message(&mut edited, entry);
                context.skipped.append(&mut edited.skipped);
                let content = replacement.get("content");
                context.messages.extend(
                    edited
                        .messages
                        .into_iter()
                        .map(|m| content.and_then(|c| with_content(&m, c)).unwrap_or(m)),
                );
            }
        }
    }
    context
}

/// The latest `context_edit` of each target on the path: `None` leaves the target out,
/// `Some(replacement)` replaces its content.
fn context_edits<'e>(path: &[&'e SessionEntry]) -> HashMap<&'e str, Option<&'e Value>> {
    let mut edits = HashMap::new();
    for entry in path {
        if let EntryKind::ContextEdit {
            target_id,
            replacement,
        } = &entry.kind
        {
            edits.insert(target_id.as_str(), replacement.as_ref());
        }
    }
    edits
}

/// `message` with its content replaced (Pi 1.6: a string becomes one text block for an
/// assistant message or a tool result); `None` when the result is no message of its role.
fn with_content(message: &AgentMessage, content: &Value) -> Option<AgentMessage> {
    let mut value = serde_json::to_value(message).ok()?;
    let blocks_only = matches!(message.role(), "assistant" | "toolResult");
    let content = match content {
        Value::String(text) if blocks_only => serde_json::json!([{"type": "text", "text": text}]),
        other => other.clone(),
    };
    value.as_object_mut()?.insert("content".to_owned(), content);
    serde_json::from_value(value).ok()
}

/// Whether the entry is a `message` of role `system` (decoding it only when its role is not
/// written first).
fn is_system_message(entry: &SessionEntry) -> bool {
    let EntryKind::Message(m) = &entry.kind else {
        return false;
    };
    match m.role_hint() {
        Some(role) => role == "system",
        None => m.get().is_ok_and(|m| m.role() == "system"),
    }
}

/// The latest `model_change` or assistant message on the path. Walking back from the leaf
/// decodes only the assistant message it stops at (roles are known without decoding).
fn latest_model(path: &[&SessionEntry]) -> Option<ModelRef> {
    path.iter().rev().find_map(|entry| match &entry.kind {
        EntryKind::ModelChange { provider, model_id } => Some(ModelRef {
            provider: provider.clone(),
            model_id: model_id.clone(),
        }),
        EntryKind::Message(m) if m.role_hint().is_none_or(|r| r == "assistant") => {
            let a = m.get().ok()?.as_assistant()?;
            Some(ModelRef {
                provider: a.provider.clone(),
                model_id: a.model.clone(),
            })
        }
        _ => None,
    })
}

/// Below this many undecoded messages per core a thread costs more than it saves.
const MIN_MESSAGES_PER_WORKER: usize = 128;

/// Decodes the entries' messages that are not decoded yet, split across the cores (each
/// message caches its own result, so the context then only clones them).
fn decode_messages(entries: &[&SessionEntry]) {
    let pending: Vec<&EntryMessage> = entries
        .iter()
        .filter_map(|e| match &e.kind {
            EntryKind::Message(m) if !m.is_decoded() => Some(m),
            _ => None,
        })
        .collect();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let workers = cores.min(pending.len() / MIN_MESSAGES_PER_WORKER);
    if workers < 2 {
        // Decoded one by one as the context takes them.
        return;
    }
    let decode = |run: &[&EntryMessage]| {
        for m in run {
            // The result stays cached in the message; errors are reported when it is taken.
            let _ = m.get();
        }
    };
    let run = pending.len().div_ceil(workers);
    std::thread::scope(|scope| {
        let handles: Vec<_> = pending
            .chunks(run)
            .skip(1)
            .map(|chunk| scope.spawn(move || decode(chunk)))
            .collect();
        decode(&pending[..run.min(pending.len())]);
        for handle in handles {
            if let Err(panic) = handle.join() {
                // Decoding does not panic on any input; should it, the panic is not ours to eat.
                std::panic::resume_unwind(panic);
            }
        }
    });
}

fn push_message(context: &mut SessionContext, entry: &SessionEntry) {
    let messages = &mut context.messages;
    match &entry.kind {
        EntryKind::Message(m) => match m.get() {
            Ok(message) => messages.push(message.clone()),
            Err(error) => context.skipped.push(SkippedMessage {
                entry_id: entry.id.clone(),
                line: m.line(),
                error: error.clone(),
            }),
        },
        EntryKind::CustomMessage { .. } => messages.extend(user_entry_message(entry)),
        EntryKind::BranchSummary { summary, .. } if !summary.is_empty() => {
            messages.extend(user_entry_message(entry));
        }
        _ => {}
    }
}

/// A custom-role message with Pi's field order: role, the given fields, then `timestamp` as
/// epoch ms (`null` when the entry's timestamp does not parse, as `NaN` serializes).
/// The message a `custom_message` or `branch_summary` entry puts into the context (roles
/// `custom` and `branchSummary`, as Pi's `buildSessionContext` makes them); `None` for other
/// entries.
pub fn user_entry_message(entry: &SessionEntry) -> Option<AgentMessage> {
    let (role, fields) = match &entry.kind {
        EntryKind::CustomMessage {
            custom_type,
            content,
            display,
            details,
        } => {
            let mut fields = vec![
                ("customType", Value::from(custom_type.as_str())),
                ("content", content.clone()),
                ("display", Value::Bool(*display)),
            ];
            if let Some(details) = details {
                fields.push(("details", details.clone()));
            }
            ("custom", fields)
        }
        EntryKind::BranchSummary {
            from_id, summary, ..
        } => (
            "branchSummary",
            vec![
                ("summary", Value::from(summary.as_str())),
                ("fromId", Value::from(from_id.as_str())),
            ],
        ),
        _ => return None,
    };
    Some(custom(role, fields, &entry.timestamp))
}

/// A message of a coding-agent role with Pi's field order: role, `fields`, then `timestamp` in
/// epoch ms (`null` when the entry's time does not parse).
fn custom(
    role: &str,
    fields: impl IntoIterator<Item = (&'static str, Value)>,
    timestamp: &str,
) -> AgentMessage {
    let mut map: Map<String, Value> = fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
    map.insert(
        "timestamp".to_owned(),
        parse_iso_ms(timestamp).map_or(Value::Null, Value::from),
    );
    AgentMessage::Custom(Arc::new(CustomMessage {
        role: role.to_owned(),
        fields: map,
    }))
}
