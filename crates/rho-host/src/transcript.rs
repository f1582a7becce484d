//! Where compaction reads the session path and records what it made (pi-reference §8.4 steps
//! 1 and 9): the session file when one is attached, else the agent's own messages.
//!
//! A session file keeps everything; compaction appends a `compaction` entry and the agent's
//! messages are rebuilt from the file, as Pi does. Without a file (`--no-session`) the agent's
//! messages are the whole record: they are read as a path whose leading `compactionSummary`
//! stands for the previous compaction, and replaced by the new summary and the kept messages.

use rho_agent::AgentMessage;
use rho_ai::now_ms;
use serde_json::Value;

use crate::compaction::{
    COMPACTION_SUMMARY_ROLE, CompactionResult, PathEntry, PathEntryKind, compaction_entry,
    compaction_summary_message, latest_compaction_ms, path_entries,
};
use crate::persist::Persistence;
use crate::session::{AgentSession, lock};

/// The branch compaction works on.
pub(crate) struct Branch {
    /// Root to leaf.
    pub(crate) path: Vec<PathEntry>,
    /// When the latest compaction on it happened (epoch ms).
    pub(crate) latest_compaction_ms: Option<i64>,
}

impl AgentSession {
    /// The persistence that records this session (the latest attached), if it still has a file.
    fn attached_file(&self) -> Option<Persistence> {
        lock(&self.shared.persistence)
            .clone()
            .filter(|p| p.path().is_some())
    }

    /// The current branch: the session file's, or the agent's messages read as one.
    pub(crate) fn compaction_branch(&self) -> Branch {
        if let Some(persistence) = self.attached_file()
            && let Some(branch) = persistence.with_file(|file| {
                let entries = file.branch_entries(None);
                Branch {
                    path: path_entries(&entries),
                    latest_compaction_ms: latest_compaction_ms(&entries),
                }
            })
        {
            return branch;
        }
        let record = lock(&self.shared.memory_compaction).clone();
        self.agent
            .with_state(|s| memory_branch(&s.messages, record.as_ref()))
    }

    /// Records `result` and puts the compacted view into the agent: a `compaction` entry and
    /// the file's rebuilt context, or the summary followed by the kept messages.
    pub(crate) fn record_compaction(&self, result: &CompactionResult) -> Result<(), String> {
        if let Some(persistence) = self.attached_file() {
            let rebuilt = persistence.with_file(|file| {
                file.append(compaction_entry(result))
                    .map(|_| file.context().messages)
            });
            if let Some(rebuilt) = rebuilt {
                let messages = rebuilt.map_err(|error| error.to_string())?;
                self.agent.update_state(|s| s.messages = messages);
                return Ok(());
            }
        }
        let previous = lock(&self.shared.memory_compaction).clone();
        let kept = self.agent.update_state(|s| {
            let branch = memory_branch(&s.messages, previous.as_ref());
            let mut messages = vec![compaction_summary_message(
                &result.summary,
                result.tokens_before,
                now_ms(),
            )];
            messages.extend(
                branch
                    .path
                    .get(result.first_kept_index..)
                    .unwrap_or_default()
                    .iter()
                    .filter_map(|entry| match &entry.kind {
                        PathEntryKind::Message(m) | PathEntryKind::UserEntry(m) => Some(m.clone()),
                        _ => None,
                    }),
            );
            let kept = messages.len() - 1;
            s.messages = messages;
            kept
        });
        *lock(&self.shared.memory_compaction) = Some(MemoryCompaction {
            details: serde_json::to_value(&result.details).ok(),
            kept,
        });
        Ok(())
    }
}

/// What a session without a file remembers of its last compaction.
#[derive(Clone, Debug, Default)]
pub(crate) struct MemoryCompaction {
    /// The compaction's `details` (file lists).
    details: Option<Value>,
    /// How many messages after the summary it kept.
    kept: usize,
}

/// The agent's messages as the path a session file would hold: when they start with a
/// `compactionSummary`, the messages it kept come first, then the compaction entry, then
/// what came after it. Ids are positions in `messages`.
fn memory_branch(messages: &[AgentMessage], record: Option<&MemoryCompaction>) -> Branch {
    let entry = |index: usize, message: &AgentMessage| PathEntry {
        id: memory_id(index),
        kind: PathEntryKind::Message(message.clone()),
    };
    let summary = match messages.first() {
        Some(AgentMessage::Custom(custom)) if custom.role == COMPACTION_SUMMARY_ROLE => custom,
        _ => {
            return Branch {
                path: messages
                    .iter()
                    .enumerate()
                    .map(|(i, m)| entry(i, m))
                    .collect(),
                latest_compaction_ms: None,
            };
        }
    };
    let field = |name: &str| summary.fields.get(name);
    let kept = record.map_or(0, |r| r.kept).min(messages.len() - 1);
    let mut path: Vec<PathEntry> = (1..=kept).map(|i| entry(i, &messages[i])).collect();
    path.push(PathEntry {
        id: memory_id(0),
        kind: PathEntryKind::Compaction {
            summary: field("summary")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
            first_kept_entry_id: memory_id(1),
            details: record.and_then(|r| r.details.clone()),
            from_hook: false,
        },
    });
    path.extend((kept + 1..messages.len()).map(|i| entry(i, &messages[i])));
    Branch {
        path,
        latest_compaction_ms: field("timestamp").and_then(Value::as_i64),
    }
}

fn memory_id(index: usize) -> String {
    format!("{index:08x}")
}

/// Keeps `persistence` as the record compaction reads and writes.
pub(crate) fn remember(session: &AgentSession, persistence: &Persistence) {
    *lock(&session.shared.persistence) = Some(persistence.clone());
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use rho_ai::UserMessage;

    #[test]
    fn a_leading_summary_reads_as_the_compaction_after_the_messages_it_kept() {
        let summary = compaction_summary_message("old", 10, 5);
        let kept: AgentMessage = UserMessage::text("kept").into();
        let later: AgentMessage = UserMessage::text("later").into();
        let record = MemoryCompaction {
            details: None,
            kept: 1,
        };
        let branch = memory_branch(&[summary, kept.clone(), later.clone()], Some(&record));
        assert_eq!(branch.latest_compaction_ms, Some(5));
        assert_eq!(
            branch.path,
            vec![
                PathEntry {
                    id: memory_id(1),
                    kind: PathEntryKind::Message(kept),
                },
                PathEntry {
                    id: memory_id(0),
                    kind: PathEntryKind::Compaction {
                        summary: "old".into(),
                        first_kept_entry_id: memory_id(1),
                        details: None,
                        from_hook: false,
                    },
                },
                PathEntry {
                    id: memory_id(2),
                    kind: PathEntryKind::Message(later),
                },
            ]
        );
    }
}
