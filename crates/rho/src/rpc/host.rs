//! The state behind the RPC commands: the live session (replaced by the session commands), the
//! kit every session of this process is built with, the model catalog, the user's shell command,
//! and stdout.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rho_ai::ThinkingLevel;
use rho_host::AgentSession;
use rho_models::{DEFAULT_THINKING_LEVEL, ModelEntry, clamp_thinking_level};
use rho_session::{SessionContext, SessionError, SessionFile};
use rho_stdx::sync::lock;
use serde_json::json;

use super::models::{ModelCatalog, ModelSwitchError, Route};
use super::reply::Output;
use super::ui::RpcUi;
use super::user_bash::BashCancel;
use crate::remember::Remember;
use crate::session_builder::{SessionKit, SessionStart, build};
use crate::settings_save::SaveError;

/// The RPC host.
pub struct Host {
    /// What every session is built with.
    pub kit: SessionKit,
    /// The models a client may switch to.
    pub catalog: ModelCatalog,
    /// Where a client's model, level and mode choices are kept for the next run.
    pub remember: Remember,
    /// stdout.
    pub output: Arc<Output>,
    /// The questions and notices sent to the client (`extension_ui_request`).
    pub ui: Arc<RpcUi>,
    live: Mutex<AgentSession>,
    /// The number of the live session: a replaced session's late events are not printed.
    epoch: Arc<AtomicU64>,
    /// Where `new_session` puts its file; `None` keeps sessions in memory.
    session_dir: Mutex<Option<PathBuf>>,
    /// The running user shell command.
    user_bash: Mutex<Option<BashCancel>>,
}

/// Reports a settings write that failed: the choice holds for this run, stdout stays protocol
/// only.
pub fn report_unremembered(result: Result<(), SaveError>) {
    if let Err(error) = result {
        eprintln!("Warning: {error}");
    }
}

/// Reports a session file write that failed: the run goes on, the client's stdout stays
/// protocol only.
pub fn report_unsaved(result: Result<(), SessionError>) {
    if let Err(error) = result {
        eprintln!("Error: the session was not fully saved: {error}");
    }
}

impl Host {
    /// A host whose first session starts from `start`, putting new sessions in `session_dir`.
    pub fn start(
        kit: SessionKit,
        catalog: ModelCatalog,
        remember: Remember,
        session_dir: Option<PathBuf>,
        start: SessionStart,
        ui: Arc<RpcUi>,
    ) -> Result<Arc<Host>, SessionError> {
        let output = ui.output().clone();
        let epoch = Arc::new(AtomicU64::new(0));
        let first = build(&kit, start)?;
        subscribe_output(&first, &output, &epoch, 0);
        Ok(Arc::new(Host {
            kit,
            catalog,
            remember,
            output,
            ui,
            live: Mutex::new(first),
            epoch,
            session_dir: Mutex::new(session_dir),
            user_bash: Mutex::new(None),
        }))
    }

    /// The live session.
    pub fn session(&self) -> AgentSession {
        lock(&self.live).clone()
    }

    /// The working directory.
    pub fn cwd(&self) -> &PathBuf {
        &self.kit.cwd
    }

    /// Where `new_session` puts its file.
    pub fn session_dir(&self) -> Option<PathBuf> {
        lock(&self.session_dir).clone()
    }

    /// `switch_session` moved to another directory: new sessions go there.
    pub fn set_session_dir(&self, dir: PathBuf) {
        *lock(&self.session_dir) = Some(dir);
    }

    /// A start for a session replacing the live one: its model, level, queue modes and
    /// switches carry over; the record and what it restores are the caller's. With `restore`,
    /// an opened file's own model (when the catalog has it) and thinking level win.
    pub fn next_start(
        &self,
        file: SessionFile,
        context: SessionContext,
        restore: Restore,
    ) -> SessionStart {
        let session = self.session();
        let agent = session.agent();
        let (mut model, mut thinking) = agent.with_state(|s| (s.model.clone(), s.thinking_level));
        let resumed = !context.messages.is_empty();
        if let Some(saved) = context.model.as_ref().filter(|_| restore.model && resumed)
            && let Ok((entry, route)) = self.catalog.resolve(&saved.provider, &saved.model_id)
        {
            self.kit.router.add_route(&entry.model, route);
            model = entry.model;
        }
        if restore.thinking
            && resumed
            && restore.has_thinking_entry
            && let Some(level) = ThinkingLevel::parse(&context.thinking_level)
        {
            thinking = level;
        }
        thinking = clamp_thinking_level(&self.catalog.entry_of(&model), thinking);
        SessionStart {
            file,
            context,
            model,
            thinking,
            queue_modes: (agent.steering_mode(), agent.follow_up_mode()),
            auto_compaction: session.auto_compaction_enabled(),
            auto_retry: session.auto_retry_enabled(),
            name: None,
        }
    }

    /// Makes a session built from `start` the live one; the old one's run is aborted and its
    /// file released first (a caller that needed the same file released it already).
    pub async fn replace(&self, start: SessionStart) -> Result<(), SessionError> {
        let old = self.session();
        old.abort().await;
        old.end("other").await;
        release(&old);
        let next = build(&self.kit, start)?;
        let mine = self.epoch.fetch_add(1, Ordering::SeqCst) + 1;
        subscribe_output(&next, &self.output, &self.epoch, mine);
        *lock(&self.live) = next;
        Ok(())
    }

    /// The catalog entry of the current model.
    pub fn current_entry(&self) -> ModelEntry {
        let model = self.session().agent().with_state(|s| s.model.clone());
        self.catalog.entry_of(&model)
    }

    /// Switches to an available model and re-clamps the thinking level (Pi's `setModel`).
    pub fn set_model(&self, provider: &str, id: &str) -> Result<ModelEntry, ModelSwitchError> {
        let (entry, route) = self.catalog.resolve(provider, id)?;
        self.switch_to(&entry, route);
        Ok(entry)
    }

    /// Moves to the available model after the current one; `None` when there is at most one.
    pub fn cycle_model(&self) -> Result<Option<ModelEntry>, ModelSwitchError> {
        let available = self.catalog.available();
        if available.len() <= 1 {
            return Ok(None);
        }
        let current = self.current_entry().model;
        let index = available
            .iter()
            .position(|e| e.model.provider == current.provider && e.model.id == current.id)
            .unwrap_or(0);
        let next = available[(index + 1) % available.len()].clone();
        let route = self.catalog.route(&next)?;
        self.switch_to(&next, route);
        Ok(Some(next))
    }

    fn switch_to(&self, entry: &ModelEntry, route: Route) {
        self.kit.router.add_route(&entry.model, route);
        let session = self.session();
        let agent = session.agent();
        // A model without reasoning keeps no level of its own: the next one starts at the default.
        let previous_reasons = self.current_entry().model.reasoning;
        let level = agent.with_state(|s| s.thinking_level);
        let wanted = if previous_reasons {
            level
        } else {
            DEFAULT_THINKING_LEVEL
        };
        agent.update_state(|s| s.model = entry.model.clone());
        report_unsaved(
            session
                .record()
                .record_model_change(&entry.model.provider, &entry.model.id),
        );
        report_unremembered(self.remember.model(&entry.model.provider, &entry.model.id));
        self.set_thinking_level(wanted);
    }

    /// Sets the level, clamped to the model; when it changed, records it and says
    /// `thinking_level_changed`.
    pub fn set_thinking_level(&self, level: ThinkingLevel) {
        let entry = self.current_entry();
        let effective = clamp_thinking_level(&entry, level);
        let session = self.session();
        let previous = session
            .agent()
            .update_state(|s| std::mem::replace(&mut s.thinking_level, effective));
        if previous != effective {
            report_unsaved(session.record().record_thinking_level(effective));
            report_unremembered(
                self.remember
                    .thinking_level(effective, entry.model.reasoning),
            );
            self.output
                .write(&json!({"type": "thinking_level_changed", "level": effective}));
        }
    }

    /// Starts tracking a user shell command (replacing none: one runs at a time per client).
    pub fn begin_user_bash(&self) -> BashCancel {
        let cancel = BashCancel::new();
        *lock(&self.user_bash) = Some(cancel.clone());
        cancel
    }

    /// Stops the user shell command, if one runs.
    pub fn abort_user_bash(&self) {
        if let Some(cancel) = lock(&self.user_bash).take() {
            cancel.cancel();
        }
    }

    /// Stops serving: nothing more is written, the run and any user command are stopped so no
    /// process of theirs outlives rho, the live file is flushed and released, and the MCP
    /// servers are stopped.
    pub async fn shut_down(&self) {
        self.output.close();
        rho_models::kill_running_commands();
        self.abort_user_bash();
        let session = self.session();
        session.abort().await;
        session.end("exit").await;
        session.record().flush().await;
        release(&session);
        if let Some(mcp) = &self.kit.workspace.mcp {
            mcp.shutdown().await;
        }
    }
}

/// Lets go of `session`'s file (its lock too), reporting what could not be written.
pub fn release(session: &AgentSession) {
    let record = session.record();
    drop(record.detach());
    for error in record.take_errors() {
        eprintln!("Error: the session was not fully saved: {error}");
    }
}

/// Which of a file's settings a newly opened session takes over (the rest stay as they are).
#[derive(Clone, Copy, Debug)]
pub struct Restore {
    /// The model of the file's last `model_change`, when the catalog has it.
    pub model: bool,
    /// The level of the file's last `thinking_level_change`.
    pub thinking: bool,
    /// Whether the branch holds a `thinking_level_change` at all (without one, the level stays).
    pub has_thinking_entry: bool,
}

/// Prints `session`'s events while it is the live session (a replaced session's late events,
/// the end of an aborted run, are not the client's).
fn subscribe_output(
    session: &AgentSession,
    output: &Arc<Output>,
    epoch: &Arc<AtomicU64>,
    mine: u64,
) {
    let output = output.clone();
    let epoch = epoch.clone();
    session.subscribe(move |event| {
        if epoch.load(Ordering::SeqCst) == mine {
            output.write(event);
        }
    });
}
