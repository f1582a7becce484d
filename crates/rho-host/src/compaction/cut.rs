//! Where to cut the session path (pi-reference §8.4 step 4): keep about `keepRecentTokens` of
//! the newest transcript, cutting only before a message that may start the kept part — never
//! before a tool result, so a tool call and its result always stay together.

use rho_agent::AgentMessage;
use serde_json::Value;

use super::estimate::estimate_tokens;

/// One entry of the session path (root to leaf), as compaction needs to see it. The session
/// layer maps its entries to these; in-memory sessions may use any unique ids.
#[derive(Clone, Debug, PartialEq)]
pub struct PathEntry {
    /// The entry id (`firstKeptEntryId` names one of these).
    pub id: String,
    /// What the entry is.
    pub kind: PathEntryKind,
}

/// The entry types compaction tells apart.
#[derive(Clone, Debug, PartialEq)]
pub enum PathEntryKind {
    /// A `message` entry, whatever its role.
    Message(AgentMessage),
    /// A `custom_message` or `branch_summary` entry, as the message it contributes (role
    /// `custom` or `branchSummary`). These count as user turns but not toward the kept size.
    UserEntry(AgentMessage),
    /// A `compaction` entry.
    Compaction {
        /// Its summary.
        summary: String,
        /// The first entry it kept.
        first_kept_entry_id: String,
        /// Its `details`, if any.
        details: Option<Value>,
        /// Whether an extension wrote it (its details are then not file lists).
        from_hook: bool,
    },
    /// Anything that adds nothing to the model's context: model and thinking-level changes,
    /// labels, session info, extension state.
    Other,
}

impl PathEntry {
    pub(crate) fn message(&self) -> Option<&AgentMessage> {
        match &self.kind {
            PathEntryKind::Message(m) => Some(m),
            _ => None,
        }
    }

    /// A kept part may start here: a non-tool-result message or a user-role entry.
    fn is_cut_point(&self) -> bool {
        match &self.kind {
            PathEntryKind::Message(m) => matches!(
                m.role(),
                "user"
                    | "assistant"
                    | "bashExecution"
                    | "custom"
                    | "branchSummary"
                    | "compactionSummary"
            ),
            PathEntryKind::UserEntry(_) => true,
            _ => false,
        }
    }

    /// A turn starts here: a user message, a user-run command, or a user-role entry.
    fn starts_turn(&self) -> bool {
        match &self.kind {
            PathEntryKind::Message(m) => matches!(m.role(), "user" | "bashExecution"),
            PathEntryKind::UserEntry(_) => true,
            _ => false,
        }
    }
}

/// Where the kept part starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CutPoint {
    /// Index (in the path) of the first kept entry.
    pub first_kept_index: usize,
    /// When the cut falls inside a turn: the index of the entry that started that turn.
    pub turn_start_index: Option<usize>,
}

impl CutPoint {
    /// Whether the cut splits a turn (its start is summarised separately).
    pub fn is_split_turn(&self) -> bool {
        self.turn_start_index.is_some()
    }
}

/// Pi's `findCutPoint` over `path[start..end]`: walk back from the newest entry summing
/// message estimates; at the first entry where the sum reaches `keep_recent_tokens`, cut at
/// the first cut point at or after it (the first cut point if the sum never gets there), then
/// move the cut back over directly preceding non-message entries, stopping at a compaction.
pub fn find_cut_point(
    path: &[PathEntry],
    start: usize,
    end: usize,
    keep_recent_tokens: u64,
) -> CutPoint {
    let end = end.min(path.len());
    let start = start.min(end);
    let cut_points: Vec<usize> = (start..end).filter(|&i| path[i].is_cut_point()).collect();
    let Some(&first_cut) = cut_points.first() else {
        return CutPoint {
            first_kept_index: start,
            turn_start_index: None,
        };
    };
    let mut cut = first_cut;
    let mut kept = 0u64;
    for i in (start..end).rev() {
        let Some(message) = path[i].message() else {
            continue;
        };
        kept += estimate_tokens(message);
        if kept >= keep_recent_tokens {
            if let Some(&c) = cut_points.iter().find(|&&c| c >= i) {
                cut = c;
            }
            break;
        }
    }
    // Settings changes and labels right before the cut belong with what follows them.
    while cut > start {
        match path[cut - 1].kind {
            PathEntryKind::Compaction { .. } | PathEntryKind::Message(_) => break,
            PathEntryKind::UserEntry(_) | PathEntryKind::Other => cut -= 1,
        }
    }
    let cut_at_user = path
        .get(cut)
        .and_then(PathEntry::message)
        .is_some_and(|m| m.role() == "user");
    let turn_start_index = if cut_at_user {
        None
    } else {
        (start..=cut.min(end.saturating_sub(1)))
            .rev()
            .find(|&i| path[i].starts_turn())
    };
    CutPoint {
        first_kept_index: cut,
        turn_start_index,
    }
}
