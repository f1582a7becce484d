//! The bridge from a session file's branch (`SessionFile::branch_entries`) to what compaction
//! reads, and back: the `compaction` entry to append for a result.

use rho_session::time::parse_iso_ms;
use rho_session::{EntryKind, SessionEntry, user_entry_message};
use serde_json::Value;

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
            EntryKind::CustomMessage { .. } | EntryKind::BranchSummary { .. } => {
                match user_entry_message(entry) {
                    Some(message) => PathEntryKind::UserEntry(message),
                    None => PathEntryKind::Other,
                }
            }
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

/// The `compaction` entry recording `result`, as Pi 1.6 appends it (`fromHook: false`, the
/// summary calls' `usage`, and `system_message`: the checkpoint of
/// [`system_checkpoint`](super::system_checkpoint)).
pub fn compaction_entry(result: &CompactionResult, system_message: Option<Value>) -> EntryKind {
    EntryKind::Compaction {
        summary: result.summary.clone(),
        first_kept_entry_id: result.first_kept_entry_id.clone(),
        tokens_before: result.tokens_before,
        details: serde_json::to_value(&result.details).ok(),
        usage: serde_json::to_value(&result.usage).ok(),
        from_hook: Some(false),
        system_message,
    }
}
