//! Persistence: a session's transcript written to its session file as it happens
//! (pi-reference §8.2), with durability stronger than Pi's.
//!
//! Pi buffers everything until the first assistant message. Here each `message_end` becomes one
//! appended line *before* later listeners see the event: a listener subscribed before the
//! output writer makes "printed" imply "on disk" (in the page cache; a killed process loses
//! nothing the kernel already has). The user's prompt is appended at its own `message_end`,
//! which the agent emits before the first model call. `agent_settled` and [`Persistence::sync`]
//! make the file survive a power loss too.
//!
//! The same handle serves every mode: `-p`/`--mode json` attach once; RPC attaches to each new
//! session and [`Persistence::detach`]es the old file (releasing its lock) on a switch.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use rho_agent::{AgentEvent, AgentMessage};
use rho_ai::ThinkingLevel;
use rho_session::{EntryKind, SessionContext, SessionError, SessionFile, SessionHeader};
use serde_json::Value;

use crate::session::{AgentSession, SessionEvent, SessionNotice, lock};

/// The writer of one session file, fed by an [`AgentSession`]'s events.
#[derive(Clone)]
pub struct Persistence {
    inner: Arc<Inner>,
}

struct Inner {
    /// `None` once detached: later events are not this file's.
    file: Mutex<Option<SessionFile>>,
    /// Failures of appends and syncs not yet reported (a full disk, a removed directory).
    errors: Mutex<Vec<SessionError>>,
}

impl Persistence {
    /// Starts persisting `session`'s messages to `file`. Subscribe this before any output
    /// listener so each entry is on disk before the event that announces it is printed.
    pub fn attach(session: &AgentSession, file: SessionFile) -> Persistence {
        let persistence = Persistence {
            inner: Arc::new(Inner {
                file: Mutex::new(Some(file)),
                errors: Mutex::new(Vec::new()),
            }),
        };
        let listener = persistence.clone();
        session.subscribe(move |event| listener.on_event(event));
        crate::transcript::remember(session, &persistence);
        persistence
    }

    fn on_event(&self, event: &SessionEvent) {
        match event {
            SessionEvent::Agent(AgentEvent::MessageEnd { message }) => {
                if let Some(kind) = entry_for(message) {
                    self.record(|file| file.append(kind).map(drop));
                }
            }
            SessionEvent::Session(SessionNotice::AgentSettled(_)) => {
                self.record(SessionFile::sync);
            }
            _ => {}
        }
    }

    /// Runs `write` on the file, keeping its failure for [`Persistence::take_errors`].
    fn record(&self, write: impl FnOnce(&mut SessionFile) -> Result<(), SessionError>) {
        let outcome = match lock(&self.inner.file).as_mut() {
            Some(file) => write(file),
            None => Ok(()),
        };
        if let Err(error) = outcome {
            lock(&self.inner.errors).push(error);
        }
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
        let level = thinking_level_name(thinking);
        let mut guard = lock(&self.inner.file);
        let Some(file) = guard.as_mut() else {
            return Ok(());
        };
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
    }

    /// Records a model switch (RPC `set_model`, `cycle_model`).
    pub fn record_model_change(&self, provider: &str, model_id: &str) -> Result<(), SessionError> {
        self.with_file(|file| file.append_model_change(provider, model_id).map(drop))
            .unwrap_or(Ok(()))
    }

    /// Records a thinking level change (RPC `set_thinking_level`, `cycle_thinking_level`).
    pub fn record_thinking_level(&self, level: ThinkingLevel) -> Result<(), SessionError> {
        self.with_file(|file| {
            file.append_thinking_level_change(thinking_level_name(level))
                .map(drop)
        })
        .unwrap_or(Ok(()))
    }

    /// Runs `f` on the open file (`None` once detached): for entries the session layer does
    /// not produce from events (compaction, session name, labels, branches).
    pub fn with_file<R>(&self, f: impl FnOnce(&mut SessionFile) -> R) -> Option<R> {
        lock(&self.inner.file).as_mut().map(f)
    }

    /// Flushes the file to stable storage (at exit and on the signal paths).
    pub fn sync(&self) -> Result<(), SessionError> {
        self.with_file(SessionFile::sync).unwrap_or(Ok(()))
    }

    /// Stops writing and hands the file back, synced; dropping it releases the lock. Events
    /// of the session that arrive later are not recorded.
    pub fn detach(&self) -> Option<SessionFile> {
        let mut file = lock(&self.inner.file).take()?;
        if let Err(error) = file.sync() {
            lock(&self.inner.errors).push(error);
        }
        Some(file)
    }

    /// The failures of appends and syncs since the last call, oldest first.
    pub fn take_errors(&self) -> Vec<SessionError> {
        std::mem::take(&mut *lock(&self.inner.errors))
    }

    /// The file's header (`None` once detached).
    pub fn header(&self) -> Option<SessionHeader> {
        self.with_file(|file| file.header().clone())
    }

    /// The file's path (`None` once detached).
    pub fn path(&self) -> Option<PathBuf> {
        self.with_file(|file| file.path().to_path_buf())
    }
}

/// The entry a finished message becomes, as Pi persists it on `message_end`: transcript
/// messages as `message`, an extension's `custom` message as `custom_message`. Other roles
/// (`bashExecution`, summaries) are written by whoever creates them.
fn entry_for(message: &AgentMessage) -> Option<EntryKind> {
    match message {
        AgentMessage::Llm(_) => Some(EntryKind::message(message.clone())),
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

/// The level as session files spell it.
pub fn thinking_level_name(level: ThinkingLevel) -> &'static str {
    match level {
        ThinkingLevel::Off => "off",
        ThinkingLevel::Minimal => "minimal",
        ThinkingLevel::Low => "low",
        ThinkingLevel::Medium => "medium",
        ThinkingLevel::High => "high",
        ThinkingLevel::Xhigh => "xhigh",
    }
}

/// A session file's thinking level (`None` for a name rho does not know).
pub fn parse_thinking_level(name: &str) -> Option<ThinkingLevel> {
    serde_json::from_value(Value::String(name.to_owned())).ok()
}

/// Puts a restored context into the agent: its transcript becomes the agent's messages.
pub fn restore_messages(session: &AgentSession, context: &SessionContext) {
    let messages = context.messages.clone();
    session
        .agent()
        .update_state(|state| state.messages = messages);
}
