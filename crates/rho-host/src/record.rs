//! The record of a session (pi-reference §8.2): its session file — on disk, waiting for its
//! first message, or in memory (`--no-session`) — written from the session's events, with
//! durability stronger than Pi's.
//!
//! Each `message_end` becomes one appended entry *before* any listener sees the event: the
//! session hands every event to its record first, so "printed" implies "on disk" (in the page
//! cache; a killed process loses nothing the kernel already has). `agent_settled` starts an
//! `fsync` on a blocking thread, so the event stream never waits for the disk;
//! [`SessionRecord::flush`] waits for one at exit.
//!
//! Compaction reads its branch here and appends its `compaction` entry here, for a file and for
//! memory alike: a session without a file keeps its entries in memory, so nothing is special
//! about `--no-session`.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use rho_agent::{AgentEvent, AgentMessage};
use rho_ai::{ThinkingLevel, now_ms};
use rho_session::{
    EntryKind, SessionContext, SessionEntry, SessionError, SessionFile, SessionHeader,
};
use rho_stdx::sync::lock;
use serde_json::Value;

use crate::compaction::{
    CompactionResult, PathEntry, compaction_entry, path_entries, system_checkpoint,
};
use crate::hooks::notice::HOOK_ENTRY_TYPE;
use crate::session::events::{SessionEvent, SessionNotice};

/// A session's file and what writing it went through. Cheap to clone; clones share the file.
#[derive(Clone)]
pub struct SessionRecord {
    inner: Arc<Inner>,
}

struct Inner {
    /// `None` once detached: later events are not this file's.
    file: Mutex<Option<SessionFile>>,
    /// Failures of appends and syncs not yet reported (a full disk, a removed directory).
    errors: Mutex<Vec<SessionError>>,
}

impl SessionRecord {
    /// Records into `file`.
    pub fn new(file: SessionFile) -> SessionRecord {
        SessionRecord {
            inner: Arc::new(Inner {
                file: Mutex::new(Some(file)),
                errors: Mutex::new(Vec::new()),
            }),
        }
    }

    /// Records `event`: a finished message becomes an entry; a settled prompt is synced.
    pub(crate) fn on_event(&self, event: &SessionEvent) {
        match event {
            SessionEvent::Agent(AgentEvent::MessageEnd { message }) => {
                if let Some(kind) = entry_for(message) {
                    self.write(|file| file.append(kind).map(drop));
                }
            }
            SessionEvent::Session(SessionNotice::AgentSettled(_)) => self.sync_in_background(),
            SessionEvent::Session(SessionNotice::HookExecutionEnd(result)) => {
                let data = serde_json::to_value(result).ok();
                self.write(|file| {
                    file.append(EntryKind::Custom {
                        custom_type: HOOK_ENTRY_TYPE.to_owned(),
                        data,
                    })
                    .map(drop)
                });
            }
            _ => {}
        }
    }

    /// Runs `write` on the file, keeping its failure for [`SessionRecord::take_errors`].
    fn write(&self, write: impl FnOnce(&mut SessionFile) -> Result<(), SessionError>) {
        let outcome = self.with_file(write).unwrap_or(Ok(()));
        if let Err(error) = outcome {
            lock(&self.inner.errors).push(error);
        }
    }

    /// Starts an `fsync` of what was written on a blocking thread (inline without a runtime).
    fn sync_in_background(&self) {
        let Some(handle) = self.with_file(SessionFile::sync_handle).flatten() else {
            return;
        };
        let record = self.clone();
        let sync = move || {
            if let Err(error) = handle.sync() {
                lock(&record.inner.errors).push(error);
            }
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn_blocking(sync)),
            Err(_) => sync(),
        }
    }

    /// Makes everything written so far durable, on a blocking thread, and waits for it (at exit
    /// and on the signal paths). Failures are kept for [`SessionRecord::take_errors`].
    pub async fn flush(&self) {
        let Some(handle) = self.with_file(SessionFile::sync_handle).flatten() else {
            return;
        };
        let synced = tokio::task::spawn_blocking(move || handle.sync()).await;
        if let Ok(Err(error)) = synced {
            lock(&self.inner.errors).push(error);
        }
    }

    /// Like [`SessionRecord::flush`], blocking the caller (for paths with no runtime, such as
    /// a second signal that exits at once).
    pub fn sync_now(&self) -> Result<(), SessionError> {
        self.with_file(SessionFile::sync).unwrap_or(Ok(()))
    }

    /// Writes the `model_change` and `thinking_level_change` entries Pi writes when a session
    /// starts: both for a session without messages; for a resumed one, each only when it differs
    /// from what `context` (the file's context) restores, and the thinking level also when the
    /// branch has no `thinking_level_change` yet.
    pub fn record_start(
        &self,
        context: &SessionContext,
        provider: &str,
        model_id: &str,
        thinking: ThinkingLevel,
    ) -> Result<(), SessionError> {
        let level = thinking.as_str();
        self.with_file(|file| {
            if context.messages.is_empty() {
                file.append_model_change(provider, model_id)?;
                file.append_thinking_level_change(level)?;
                return Ok(());
            }
            let same_model = context
                .model
                .as_ref()
                .is_some_and(|m| m.provider == provider && m.model_id == model_id);
            if !same_model {
                file.append_model_change(provider, model_id)?;
            }
            let has_thinking_entry = file
                .branch_entries(None)
                .iter()
                .any(|e| matches!(e.kind, EntryKind::ThinkingLevelChange { .. }));
            if !has_thinking_entry || context.thinking_level != level {
                file.append_thinking_level_change(level)?;
            }
            Ok(())
        })
        .unwrap_or(Ok(()))
    }

    /// Records a model switch (RPC `set_model`, `cycle_model`, `/model`).
    pub fn record_model_change(&self, provider: &str, model_id: &str) -> Result<(), SessionError> {
        self.with_file(|file| file.append_model_change(provider, model_id).map(drop))
            .unwrap_or(Ok(()))
    }

    /// Records a thinking level change.
    pub fn record_thinking_level(&self, level: ThinkingLevel) -> Result<(), SessionError> {
        self.with_file(|file| file.append_thinking_level_change(level.as_str()).map(drop))
            .unwrap_or(Ok(()))
    }

    /// Runs `f` on the file (`None` once detached): for entries the session does not produce
    /// from events (names, labels, branches, a user's shell commands).
    pub fn with_file<R>(&self, f: impl FnOnce(&mut SessionFile) -> R) -> Option<R> {
        lock(&self.inner.file).as_mut().map(f)
    }

    /// Stops recording and hands the file back, synced; dropping it releases the lock. Events
    /// of the session that arrive later are not recorded.
    pub fn detach(&self) -> Option<SessionFile> {
        let mut file = lock(&self.inner.file).take()?;
        if let Err(error) = file.sync() {
            lock(&self.inner.errors).push(error);
        }
        Some(file)
    }

    /// Takes back a file [`SessionRecord::detach`] handed out (a switch that failed).
    pub fn reattach(&self, file: SessionFile) {
        *lock(&self.inner.file) = Some(file);
    }

    /// Keeps a failure of a write made outside [`SessionRecord::on_event`].
    /// Leaves the last reply, and its tool results, out of the model's context in the file (Pi
    /// 1.6's `context_edit` entries, written when a failed attempt is retried). Returns the
    /// entries written, for `entry_appended`.
    pub(crate) fn omit_last_reply(&self) -> Vec<SessionEntry> {
        let written = self.with_file(|file| {
            file.omit_last_reply().map(|ids| {
                ids.iter()
                    .filter_map(|id| file.entry(id).cloned())
                    .collect::<Vec<_>>()
            })
        });
        match written {
            Some(Ok(entries)) => entries,
            Some(Err(error)) => {
                self.keep_error(error);
                Vec::new()
            }
            None => Vec::new(),
        }
    }

    pub fn keep_error(&self, error: SessionError) {
        lock(&self.inner.errors).push(error);
    }

    /// The failures of appends and syncs since the last call, oldest first.
    pub fn take_errors(&self) -> Vec<SessionError> {
        std::mem::take(&mut *lock(&self.inner.errors))
    }

    /// The header (`None` once detached).
    pub fn header(&self) -> Option<SessionHeader> {
        self.with_file(|file| file.header().clone())
    }

    /// The file's path, also of a file not written yet (`None` in memory or once detached).
    pub fn path(&self) -> Option<PathBuf> {
        self.with_file(|file| file.path().map(PathBuf::from))
            .flatten()
    }

    /// The current branch as compaction reads it, root to leaf.
    pub(crate) fn compaction_branch(&self) -> Vec<PathEntry> {
        self.with_file(|file| path_entries(&file.branch_entries(None)))
            .unwrap_or_default()
    }

    /// When the latest compaction on the current branch happened (epoch ms).
    pub(crate) fn latest_compaction_ms(&self) -> Option<i64> {
        self.with_file(|file| file.latest_compaction_ms()).flatten()
    }

    /// Appends the `compaction` entry for `result`, with the checkpoint of the system messages
    /// of the context it compacts, and returns the context rebuilt from the file, which becomes
    /// the agent's messages.
    pub(crate) fn record_compaction(
        &self,
        result: &CompactionResult,
    ) -> Result<Vec<AgentMessage>, SessionError> {
        self.with_file(|file| {
            let checkpoint = system_checkpoint(&file.context().messages, now_ms());
            file.append(compaction_entry(result, checkpoint))?;
            Ok(file.context().messages)
        })
        .unwrap_or(Err(SessionError::Closed))
    }
}

/// The entry a finished message becomes, as Pi persists it on `message_end`: transcript
/// messages as `message`, an extension's `custom` message as `custom_message`. Other roles
/// (`bashExecution`, summaries) are written by whoever creates them.
fn entry_for(message: &AgentMessage) -> Option<EntryKind> {
    match message {
        AgentMessage::Llm(_) | AgentMessage::System(_) => Some(EntryKind::message(message.clone())),
        AgentMessage::Custom(custom) if custom.role == "custom" => {
            let field = |name: &str| custom.fields.get(name).cloned();
            Some(EntryKind::CustomMessage {
                custom_type: field("customType")
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default(),
                content: field("content").unwrap_or(Value::String(String::new())),
                display: field("display").and_then(|v| v.as_bool()).unwrap_or(true),
                details: field("details"),
            })
        }
        AgentMessage::Custom(_) => None,
    }
}
