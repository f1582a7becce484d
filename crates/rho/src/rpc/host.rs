//! The state behind the RPC commands: the current session (replaced by the session commands
//! and `set_auto_retry`), its session file, model and thinking level, the user shell, and the
//! output gate.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use rho_agent::{AgentMessage, AgentTool, QueueMode, ToolHooks};
use rho_ai::{Model, ThinkingLevel};
use rho_host::compaction::CompactionPolicy;
use rho_host::prompt::PromptResources;
use rho_host::{AgentSession, Budget, RetryPolicy};
use rho_models::{DEFAULT_THINKING_LEVEL, ModelEntry, clamp_thinking_level};
use rho_session::SessionError;
use serde::Serialize;
use serde_json::json;

use super::backing::Backing;
use super::build::{Seed, Shared, Target, build};
use super::models::{ModelCatalog, ModelSwitchError, RoutedProvider};
use super::user_bash::BashCancel;
use crate::output::write_json_line;
use crate::remember::Remember;
use crate::settings_save::SaveError;

/// Writes responses and events; after `close` nothing more is written (Pi unsubscribes from the
/// session before it exits).
#[derive(Default)]
pub struct Output {
    closed: AtomicBool,
}

impl Output {
    /// Writes one JSON line, whole, unless the output is closed.
    pub fn write(&self, value: &impl Serialize) {
        if !self.closed.load(Ordering::SeqCst) {
            write_json_line(value);
        }
    }

    /// Stops all further output.
    pub fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
    }
}

/// One session of the process, with what the protocol tracks beside it.
#[derive(Clone)]
pub struct Current {
    /// The session.
    pub session: AgentSession,
    /// Its id (`sessionId`): the session file's header id.
    pub id: String,
    /// Whether a prompt was accepted and has not settled yet.
    pub busy: Arc<AtomicBool>,
    /// Pending steering plus follow-up messages, from the last `queue_update`.
    pub queued: Arc<AtomicUsize>,
    /// Its session file.
    pub backing: Arc<Mutex<Backing>>,
    /// Opens the first output listener; closed when a pending file is written, because the
    /// file's writer must be subscribed before the listener that prints.
    pub output_gate: Arc<AtomicBool>,
    pub(super) epoch: u64,
}

/// What every session of this process is built from.
pub struct HostConfig {
    /// The working directory.
    pub cwd: PathBuf,
    /// The active tools.
    pub tools: Vec<Arc<dyn AgentTool>>,
    /// The gate in front of the tools.
    pub gate: Arc<dyn ToolHooks>,
    /// The system prompt.
    pub system_prompt: Arc<str>,
    /// Skills and templates for `/skill:name` and `/template` prompts.
    pub resources: Arc<PromptResources>,
    /// The per-prompt budget.
    pub budget: Budget,
    /// The auto-retry policy.
    pub retry: RetryPolicy,
    /// The `compaction` settings (auto-compaction is then switched per session).
    pub compaction: CompactionPolicy,
    /// The models a client may switch to.
    pub catalog: ModelCatalog,
    /// The first session's steering mode (settings `steeringMode`).
    pub steering_mode: QueueMode,
    /// The first session's follow-up mode (settings `followUpMode`).
    pub follow_up_mode: QueueMode,
    /// Where a client's model, level and mode choices are kept for the next run.
    pub remember: Remember,
}

/// The RPC host.
pub struct Host {
    pub(super) config: HostConfig,
    pub(super) router: Arc<RoutedProvider>,
    /// The writer of stdout.
    pub output: Arc<Output>,
    pub(super) current: Mutex<Current>,
    pub(super) epoch: Arc<AtomicU64>,
    pub(super) retry: Mutex<RetryPolicy>,
    /// Where `new_session` puts its file; `None` keeps sessions in memory.
    pub(super) session_dir: Mutex<Option<PathBuf>>,
    /// `bashExecution` messages recorded while a prompt ran, added when it settles.
    pub(super) pending_bash: Mutex<Vec<AgentMessage>>,
    /// The running user shell command.
    pub bash_cancel: Mutex<Option<BashCancel>>,
}

pub(super) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Reports a settings write that failed: the choice holds for this run, stdout stays protocol
/// only.
pub(super) fn report_unremembered(result: Result<(), SaveError>) {
    if let Err(error) = result {
        eprintln!("Warning: {error}");
    }
}

/// Reports a session file write that failed: the run goes on, the client's stdout stays
/// protocol only.
pub(super) fn report_unsaved(result: Result<(), SessionError>) {
    if let Err(error) = result {
        eprintln!("Error: the session was not fully saved: {error}");
    }
}

impl Host {
    /// A host whose first session uses `model` (routed through `route`) at `thinking`, keeps
    /// no file and puts new sessions in `session_dir`.
    pub fn new(
        config: HostConfig,
        model: Model,
        route: super::models::Route,
        thinking: ThinkingLevel,
        session_dir: Option<PathBuf>,
    ) -> Arc<Self> {
        let router = Arc::new(RoutedProvider::new(&model, route));
        let output = Arc::new(Output::default());
        let epoch = Arc::new(AtomicU64::new(0));
        let seed = Seed {
            model,
            thinking,
            steering: config.steering_mode,
            follow_up: config.follow_up_mode,
            messages: Vec::new(),
            auto_compaction: config.compaction.enabled,
        };
        let retry = config.retry;
        let shared = Shared {
            config: &config,
            router: &router,
            output: &output,
            epoch: &epoch,
        };
        let first = build(&shared, retry, seed, Target::Memory { name: None });
        Arc::new(Host {
            config,
            router,
            output,
            current: Mutex::new(first),
            epoch,
            retry: Mutex::new(retry),
            session_dir: Mutex::new(session_dir),
            pending_bash: Mutex::new(Vec::new()),
            bash_cancel: Mutex::new(None),
        })
    }

    pub(super) fn shared(&self) -> Shared<'_> {
        Shared {
            config: &self.config,
            router: &self.router,
            output: &self.output,
            epoch: &self.epoch,
        }
    }

    /// The working directory.
    pub fn cwd(&self) -> &PathBuf {
        &self.config.cwd
    }

    /// The model catalog.
    pub fn catalog(&self) -> &ModelCatalog {
        &self.config.catalog
    }

    /// The current session.
    pub fn current(&self) -> Current {
        lock(&self.current).clone()
    }

    /// Rebuilds the session with auto-retry on or off, keeping the transcript and the session
    /// file; refused while a prompt runs, because the running prompt's retry policy cannot
    /// change under it.
    pub fn set_auto_retry(&self, enabled: bool) -> Result<(), String> {
        if self.current().busy.load(Ordering::SeqCst) {
            return Err(
                "Cannot change auto-retry while the agent is processing a prompt".to_owned(),
            );
        }
        lock(&self.retry).enabled = enabled;
        report_unremembered(self.config.remember.auto_retry(enabled));
        let mut current = lock(&self.current);
        let seed = self.seed_of(&current, true);
        let target = match &mut *lock(&current.backing) {
            Backing::Memory { name } => Target::Memory { name: name.clone() },
            Backing::Pending(pending) => Target::Pending((**pending).clone()),
            Backing::Open(persistence) => match persistence.detach() {
                Some(file) => Target::Open(file),
                None => Target::Memory { name: None },
            },
        };
        *current = build(&self.shared(), *lock(&self.retry), seed, target);
        Ok(())
    }

    /// The agent state of `current`, to start a replacement from.
    pub(super) fn seed_of(&self, current: &Current, keep_messages: bool) -> Seed {
        let agent = current.session.agent();
        agent.with_state(|s| Seed {
            model: s.model.clone(),
            thinking: s.thinking_level,
            steering: agent.steering_mode(),
            follow_up: agent.follow_up_mode(),
            messages: if keep_messages {
                s.messages.clone()
            } else {
                Vec::new()
            },
            auto_compaction: current.session.auto_compaction_enabled(),
        })
    }

    /// Records a `bashExecution` message: now when idle, else after the running prompt (Pi
    /// keeps tool calls and their results together).
    pub fn record_bash(&self, message: AgentMessage) {
        let current = self.current();
        if current.busy.load(Ordering::SeqCst) {
            lock(&self.pending_bash).push(message);
        } else {
            report_unsaved(lock(&current.backing).append_message(&message));
            current
                .session
                .agent()
                .update_state(|s| s.messages.push(message));
        }
    }

    /// Adds the messages held back while a prompt ran.
    pub fn flush_pending_bash(&self) {
        let pending: Vec<AgentMessage> = std::mem::take(&mut *lock(&self.pending_bash));
        if pending.is_empty() {
            return;
        }
        let current = self.current();
        {
            let backing = lock(&current.backing);
            for message in &pending {
                report_unsaved(backing.append_message(message));
            }
        }
        current
            .session
            .agent()
            .update_state(|s| s.messages.extend(pending));
    }

    /// The catalog entry of the current model.
    pub fn current_entry(&self) -> ModelEntry {
        let model = self
            .current()
            .session
            .agent()
            .with_state(|s| s.model.clone());
        self.config.catalog.entry_of(&model)
    }

    /// Switches to an available model and re-clamps the thinking level (Pi's `setModel`).
    pub fn set_model(&self, provider: &str, id: &str) -> Result<ModelEntry, ModelSwitchError> {
        let (entry, route) = self.config.catalog.resolve(provider, id)?;
        self.switch_to(&entry, route);
        Ok(entry)
    }

    /// Moves to the available model after the current one; `None` when there is at most one.
    pub fn cycle_model(&self) -> Result<Option<ModelEntry>, ModelSwitchError> {
        let available = self.config.catalog.available();
        if available.len() <= 1 {
            return Ok(None);
        }
        let current = self.current_entry().model;
        let index = available
            .iter()
            .position(|e| e.model.provider == current.provider && e.model.id == current.id)
            .unwrap_or(0);
        let next = available[(index + 1) % available.len()].clone();
        let route = self.config.catalog.route(&next)?;
        self.switch_to(&next, route);
        Ok(Some(next))
    }

    fn switch_to(&self, entry: &ModelEntry, route: super::models::Route) {
        self.router.add_route(&entry.model, route);
        let current = self.current();
        let agent = current.session.agent();
        // A model without reasoning keeps no level of its own: the next one starts at the default.
        let previous_reasons = self.current_entry().model.reasoning;
        let level = agent.with_state(|s| s.thinking_level);
        let wanted = if previous_reasons {
            level
        } else {
            DEFAULT_THINKING_LEVEL
        };
        agent.update_state(|s| s.model = entry.model.clone());
        if let Some(persistence) = lock(&current.backing).persistence() {
            report_unsaved(persistence.record_model_change(&entry.model.provider, &entry.model.id));
        }
        report_unremembered(
            self.config
                .remember
                .model(&entry.model.provider, &entry.model.id),
        );
        self.set_thinking_level(wanted);
    }

    /// Sets the level, clamped to the model; when it changed, records it and says
    /// `thinking_level_changed`.
    pub fn set_thinking_level(&self, level: ThinkingLevel) {
        let entry = self.current_entry();
        let effective = clamp_thinking_level(&entry, level);
        let current = self.current();
        let previous = current
            .session
            .agent()
            .update_state(|s| std::mem::replace(&mut s.thinking_level, effective));
        if previous != effective {
            if let Some(persistence) = lock(&current.backing).persistence() {
                report_unsaved(persistence.record_thinking_level(effective));
            }
            report_unremembered(
                self.config
                    .remember
                    .thinking_level(effective, entry.model.reasoning),
            );
            self.output
                .write(&json!({"type": "thinking_level_changed", "level": effective}));
        }
    }
}

impl Current {
    /// Whether this is still the session clients talk to.
    pub fn is_live(&self, host: &Host) -> bool {
        host.epoch.load(Ordering::SeqCst) == self.epoch
    }
}
