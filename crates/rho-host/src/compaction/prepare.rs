//! Pi's `prepareCompaction` (pi-reference §8.4 steps 1–6): what to summarise, what to keep,
//! the previous summary to update, and the files touched — all decided before any model call.

use rho_agent::AgentMessage;

use super::CompactionPolicy;
use super::convert::compaction_summary_message;
use super::cut::{PathEntry, PathEntryKind, find_cut_point};
use super::estimate::estimate_context_tokens;
use super::file_ops::FileOps;

/// Everything [`compact`](super::compact) needs.
#[derive(Clone, Debug, PartialEq)]
pub struct CompactionPreparation {
    /// The id of the first entry kept verbatim (`firstKeptEntryId`).
    pub first_kept_entry_id: String,
    /// Its index in the path.
    pub first_kept_index: usize,
    /// The messages the summary replaces (complete turns before the cut).
    pub messages_to_summarize: Vec<AgentMessage>,
    /// When the cut splits a turn: the turn's messages before the cut, summarised separately.
    pub turn_prefix_messages: Vec<AgentMessage>,
    /// Whether the cut splits a turn.
    pub is_split_turn: bool,
    /// The estimated context tokens before compacting (of the whole current model view).
    pub tokens_before: u64,
    /// The summary of the previous compaction, updated rather than rewritten.
    pub previous_summary: Option<String>,
    /// Files read and modified, including those of the previous compaction.
    pub file_ops: FileOps,
    /// The policy in force.
    pub policy: CompactionPolicy,
}

/// Why there is nothing to compact. The texts are Pi's (manual compaction reports them as
/// `Compaction failed: <text>`; automatic compaction ends silently).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PrepareError {
    /// The newest entry is a compaction already.
    #[error("Already compacted")]
    AlreadyCompacted,
    /// The path has no entry to keep.
    #[error("Nothing to compact (session too small)")]
    NothingToCompact,
}

/// Plans a compaction of the session path `path` (root to leaf).
///
/// The summarised span starts at the previous compaction's first kept entry (or right after
/// that compaction if the entry is not on the path), so messages kept last time are folded
/// into the new summary. Like Pi, a short session still prepares (with nothing or little to
/// summarise): the cut falls at the first possible entry.
pub fn prepare_compaction(
    path: &[PathEntry],
    policy: &CompactionPolicy,
) -> Result<CompactionPreparation, PrepareError> {
    if matches!(
        path.last().map(|e| &e.kind),
        Some(PathEntryKind::Compaction { .. })
    ) {
        return Err(PrepareError::AlreadyCompacted);
    }
    let previous = path
        .iter()
        .rposition(|e| matches!(e.kind, PathEntryKind::Compaction { .. }));
    let mut previous_summary = None;
    let mut boundary_start = 0;
    let mut file_ops = FileOps::default();
    if let Some(at) = previous
        && let PathEntryKind::Compaction {
            summary,
            first_kept_entry_id,
            details,
            from_hook,
        } = &path[at].kind
    {
        previous_summary = Some(summary.clone());
        boundary_start = path
            .iter()
            .position(|e| e.id == *first_kept_entry_id)
            .unwrap_or(at + 1);
        if let Some(details) = details.as_ref().filter(|_| !from_hook) {
            file_ops.add_details(details);
        }
    }
    // Settings entries alone (a session whose first prompt has not run) hold nothing to summarise.
    if path[boundary_start.min(path.len())..]
        .iter()
        .all(|entry| entry.message().is_none())
    {
        return Err(PrepareError::NothingToCompact);
    }
    let tokens_before = estimate_context_tokens(&context_messages(path)).tokens;
    let cut = find_cut_point(path, boundary_start, path.len(), policy.keep_recent_tokens);
    let first_kept = path
        .get(cut.first_kept_index)
        .ok_or(PrepareError::NothingToCompact)?;
    let history_end = cut.turn_start_index.unwrap_or(cut.first_kept_index);
    let messages_to_summarize = summarised_messages(path, boundary_start, history_end);
    let turn_prefix_messages = match cut.turn_start_index {
        Some(turn_start) => summarised_messages(path, turn_start, cut.first_kept_index),
        None => Vec::new(),
    };
    for message in messages_to_summarize.iter().chain(&turn_prefix_messages) {
        file_ops.add_message(message);
    }
    Ok(CompactionPreparation {
        first_kept_entry_id: first_kept.id.clone(),
        first_kept_index: cut.first_kept_index,
        messages_to_summarize,
        turn_prefix_messages,
        is_split_turn: cut.is_split_turn(),
        tokens_before,
        previous_summary,
        file_ops,
        policy: *policy,
    })
}

/// The messages of `path[from..to]`; compaction entries contribute nothing (their summary
/// travels as `previous_summary`).
fn summarised_messages(path: &[PathEntry], from: usize, to: usize) -> Vec<AgentMessage> {
    path.get(from..to)
        .unwrap_or_default()
        .iter()
        .filter_map(|e| match &e.kind {
            PathEntryKind::Message(m) | PathEntryKind::UserEntry(m) => Some(m.clone()),
            _ => None,
        })
        .collect()
}

/// The model's current view of `path` (Pi's `buildSessionContext`, messages only): with a
/// compaction on the path, its summary, the entries it kept, then everything after it.
fn context_messages(path: &[PathEntry]) -> Vec<AgentMessage> {
    let latest = path
        .iter()
        .rposition(|e| matches!(e.kind, PathEntryKind::Compaction { .. }));
    let contributes = |e: &PathEntry| match &e.kind {
        PathEntryKind::Message(m) | PathEntryKind::UserEntry(m) => Some(m.clone()),
        _ => None,
    };
    let Some(at) = latest else {
        return path.iter().filter_map(contributes).collect();
    };
    let PathEntryKind::Compaction {
        summary,
        first_kept_entry_id,
        ..
    } = &path[at].kind
    else {
        return Vec::new();
    };
    // Only the summary's length matters to the estimate, so its timestamp is irrelevant here.
    let mut messages = vec![compaction_summary_message(summary, 0, 0)];
    let kept_from = path[..at]
        .iter()
        .position(|e| e.id == *first_kept_entry_id)
        .unwrap_or(at);
    messages.extend(
        path[kept_from..at]
            .iter()
            .chain(&path[at + 1..])
            .filter_map(contributes),
    );
    messages
}
