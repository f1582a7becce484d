//! The bridge from a session file's branch (`SessionFile::branch_entries`) to what compaction
//! reads, and back: the `compaction` entry to append for a result.

use std::sync::Arc;

use rho_agent::{AgentMessage, CustomMessage};
use rho_session::time::parse_iso_ms;
use rho_session::{EntryKind, SessionEntry};
use serde_json::{Map, Value};

use super::cut::{PathEntry, PathEntryKind};
use super::summarize::CompactionResult;

impl From<&SessionEntry> for PathEntry {
    fn from(entry: &SessionEntry) -> Self {
        let kind = match &entry.kind {
            // A message that does not decode is left out of the context, so compaction skips it too.
            EntryKind::Message(message) => match message.get() {
                Ok(message) => PathEntryKind::Message(message.clone()),
                Err(_) => PathEntryKind::Other,
            },
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
                PathEntryKind::UserEntry(custom_role("custom", fields, &entry.timestamp))
            }
            EntryKind::BranchSummary {
                from_id, summary, ..
            } => PathEntryKind::UserEntry(custom_role(
                "branchSummary",
                vec![
                    ("summary", Value::from(summary.as_str())),
                    ("fromId", Value::from(from_id.as_str())),
                ],
                &entry.timestamp,
            )),
            EntryKind::Compaction {
                summary,
                first_kept_entry_id,
                details,
                from_hook,
                ..
            } => PathEntryKind::Compaction {
                summary: summary.clone(),
                first_kept_entry_id: first_kept_entry_id.clone(),
                details: details.clone(),
                from_hook: from_hook.unwrap_or(false),
            },
            _ => PathEntryKind::Other,
        };
        PathEntry {
            id: entry.id.clone(),
            kind,
        }
    }
}

/// The branch (root to leaf) as compaction reads it.
pub fn path_entries(branch: &[&SessionEntry]) -> Vec<PathEntry> {
    branch.iter().map(|entry| PathEntry::from(*entry)).collect()
}

/// The time (epoch ms) of the latest `compaction` entry on the branch, for
/// [`TriggerInput::latest_compaction_ms`](super::TriggerInput::latest_compaction_ms).
pub fn latest_compaction_ms(branch: &[&SessionEntry]) -> Option<i64> {
    branch
        .iter()
        .rev()
        .find(|e| matches!(e.kind, EntryKind::Compaction { .. }))
        .and_then(|e| parse_iso_ms(&e.timestamp))
}

/// The `compaction` entry recording `result`, as Pi appends it (`fromHook: false`).
pub fn compaction_entry(result: &CompactionResult) -> EntryKind {
    EntryKind::Compaction {
        summary: result.summary.clone(),
        first_kept_entry_id: result.first_kept_entry_id.clone(),
        tokens_before: result.tokens_before,
        details: serde_json::to_value(&result.details).ok(),
        from_hook: Some(false),
    }
}

/// A message of a coding-agent role with Pi's field order: role, `fields`, then `timestamp`
/// in epoch ms (`null` when the entry's time does not parse).
fn custom_role(role: &str, fields: Vec<(&str, Value)>, timestamp: &str) -> AgentMessage {
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
