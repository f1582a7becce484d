//! Rebuilding what the model receives from the tree (Pi's `buildSessionContext`, §8.2).

use std::collections::HashMap;
use std::sync::Arc;

use rho_agent::{AgentMessage, CustomMessage};
use serde_json::{Map, Value};

use crate::entry::{EntryKind, SessionEntry};
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
}

impl SessionContext {
    /// The context of an empty session.
    pub fn empty() -> Self {
        SessionContext {
            messages: Vec::new(),
            thinking_level: "off".to_owned(),
            model: None,
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
    let mut path = Vec::new();
    let mut current = start;
    while let Some(i) = current {
        if path.len() > entries.len() {
            break;
        }
        let entry = &entries[i];
        path.push(entry);
        current = entry.parent_id.as_ref().and_then(|p| index.get(p).copied());
    }
    path.reverse();
    path
}

/// Pi's `buildSessionContext`: follows `leaf` to the root and applies the latest compaction on
/// the path. `leaf = None` is an empty context (the leaf was reset before the first entry).
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
            EntryKind::ModelChange { provider, model_id } => {
                context.model = Some(ModelRef {
                    provider: provider.clone(),
                    model_id: model_id.clone(),
                });
            }
            EntryKind::Message(message) => {
                if let Some(a) = message.as_assistant() {
                    context.model = Some(ModelRef {
                        provider: a.provider.clone(),
                        model_id: a.model.clone(),
                    });
                }
            }
            EntryKind::Compaction { .. } => compaction = Some(i),
            _ => {}
        }
    }
    let messages = &mut context.messages;
    match compaction {
        Some(at) => {
            let entry = path[at];
            let EntryKind::Compaction {
                summary,
                first_kept_entry_id,
                tokens_before,
                ..
            } = &entry.kind
            else {
                return context;
            };
            messages.push(custom(
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
            for e in path[kept_from..at].iter().chain(&path[at + 1..]) {
                push_message(messages, e);
            }
        }
        None => {
            for e in &path {
                push_message(messages, e);
            }
        }
    }
    context
}

fn push_message(messages: &mut Vec<AgentMessage>, entry: &SessionEntry) {
    match &entry.kind {
        EntryKind::Message(m) => messages.push(m.clone()),
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
            if let Some(d) = details {
                fields.push(("details", d.clone()));
            }
            messages.push(custom("custom", fields, &entry.timestamp));
        }
        EntryKind::BranchSummary {
            from_id, summary, ..
        } if !summary.is_empty() => {
            messages.push(custom(
                "branchSummary",
                [
                    ("summary", Value::from(summary.as_str())),
                    ("fromId", Value::from(from_id.as_str())),
                ],
                &entry.timestamp,
            ));
        }
        _ => {}
    }
}

/// A custom-role message with Pi's field order: role, the given fields, then `timestamp` as
/// epoch ms (`null` when the entry's timestamp does not parse, as `NaN` serializes).
fn custom(
    role: &str,
    fields: impl IntoIterator<Item = (&'static str, Value)>,
    timestamp: &str,
) -> AgentMessage {
    let mut map = Map::new();
    for (k, v) in fields {
        map.insert(k.to_owned(), v);
    }
    map.insert(
        "timestamp".to_owned(),
        parse_iso_ms(timestamp).map_or(Value::Null, Value::from),
    );
    AgentMessage::Custom(Arc::new(CustomMessage {
        role: role.to_owned(),
        fields: map,
    }))
}
