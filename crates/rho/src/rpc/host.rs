//! The state behind the RPC commands: the current session (replaced by `new_session` and
//! `set_auto_retry`), its model and thinking level, the user shell, and the output gate.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use rho_agent::{AgentMessage, AgentOptions, AgentTool, QueueMode, ToolHooks};
use rho_ai::{Model, Provider, ThinkingLevel};
use rho_host::prompt::PromptResources;
use rho_host::{AgentSession, Budget, RetryPolicy, SessionEvent, SessionNotice};
use rho_models::{DEFAULT_THINKING_LEVEL, ModelEntry, clamp_thinking_level};
use serde::Serialize;
use serde_json::{Map, Value, json};

use super::models::{ModelCatalog, ModelSwitchError, RoutedProvider};
use super::user_bash::{BashCancel, UserBashContext};
use crate::output::write_json_line;

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
    /// Its id (`sessionId`).
    pub id: String,
    /// Whether a prompt was accepted and has not settled yet.
    pub busy: Arc<AtomicBool>,
    /// Pending steering plus follow-up messages, from the last `queue_update`.
    pub queued: Arc<AtomicUsize>,
    epoch: u64,
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
    /// The models a client may switch to.
    pub catalog: ModelCatalog,
    /// The first session's steering mode (settings `steeringMode`).
    pub steering_mode: QueueMode,
    /// The first session's follow-up mode (settings `followUpMode`).
    pub follow_up_mode: QueueMode,
}

/// The RPC host.
pub struct Host {
    config: HostConfig,
    router: Arc<RoutedProvider>,
    /// The writer of stdout.
    pub output: Arc<Output>,
    current: Mutex<Current>,
    epoch: Arc<AtomicU64>,
    retry: Mutex<RetryPolicy>,
    /// `bashExecution` messages recorded while a prompt ran, added when it settles.
    pending_bash: Mutex<Vec<AgentMessage>>,
    /// The running user shell command.
    pub bash_cancel: Mutex<Option<BashCancel>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The agent state a replacement session starts from.
struct Seed {
    model: Model,
    thinking: ThinkingLevel,
    steering: QueueMode,
    follow_up: QueueMode,
    messages: Vec<AgentMessage>,
}

impl Host {
    /// A host whose first session uses `model` (routed through `route`) at `thinking`.
    pub fn new(
        config: HostConfig,
        model: Model,
        route: super::models::Route,
        thinking: ThinkingLevel,
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
        };
        let retry = config.retry;
        let first = build(&config, &router, &output, &epoch, retry, seed);
        Arc::new(Host {
            config,
            router,
            output,
            current: Mutex::new(first),
            epoch,
            retry: Mutex::new(retry),
            pending_bash: Mutex::new(Vec::new()),
            bash_cancel: Mutex::new(None),
        })
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

    /// Replaces the session by a fresh one (new id, empty transcript), keeping model, thinking
    /// level and queue modes. The caller aborts the old session's run first.
    pub fn new_session(&self) {
        lock(&self.pending_bash).clear();
        self.replace(false);
    }

    /// Rebuilds the session with auto-retry on or off, keeping the transcript; refused while a
    /// prompt runs, because the running prompt's retry policy cannot change under it.
    pub fn set_auto_retry(&self, enabled: bool) -> Result<(), String> {
        if self.current().busy.load(Ordering::SeqCst) {
            return Err(
                "Cannot change auto-retry while the agent is processing a prompt".to_owned(),
            );
        }
        lock(&self.retry).enabled = enabled;
        self.replace(true);
        Ok(())
    }

    fn replace(&self, keep_messages: bool) {
        let mut current = lock(&self.current);
        let agent = current.session.agent();
        let seed = agent.with_state(|s| Seed {
            model: s.model.clone(),
            thinking: s.thinking_level,
            steering: agent.steering_mode(),
            follow_up: agent.follow_up_mode(),
            messages: if keep_messages {
                s.messages.clone()
            } else {
                Vec::new()
            },
        });
        let mut next = build(
            &self.config,
            &self.router,
            &self.output,
            &self.epoch,
            *lock(&self.retry),
            seed,
        );
        if keep_messages {
            next.id = current.id.clone();
        }
        *current = next;
    }

    /// Records a `bashExecution` message: now when idle, else after the running prompt.
    pub fn record_bash(&self, message: AgentMessage) {
        let current = self.current();
        if current.busy.load(Ordering::SeqCst) {
            lock(&self.pending_bash).push(message);
        } else {
            current
                .session
                .agent()
                .update_state(|s| s.messages.push(message));
        }
    }

    /// Adds the messages held back while a prompt ran.
    pub fn flush_pending_bash(&self) {
        let pending: Vec<AgentMessage> = std::mem::take(&mut *lock(&self.pending_bash));
        if !pending.is_empty() {
            self.current()
                .session
                .agent()
                .update_state(|s| s.messages.extend(pending));
        }
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
        let agent_session = self.current().session;
        let agent = agent_session.agent();
        // A model without reasoning keeps no level of its own: the next one starts at the default.
        let previous_reasons = self.current_entry().model.reasoning;
        let level = agent.with_state(|s| s.thinking_level);
        let wanted = if previous_reasons {
            level
        } else {
            DEFAULT_THINKING_LEVEL
        };
        agent.update_state(|s| s.model = entry.model.clone());
        self.set_thinking_level(wanted);
    }

    /// Sets the level, clamped to the model; says `thinking_level_changed` when it changed.
    pub fn set_thinking_level(&self, level: ThinkingLevel) {
        let entry = self.current_entry();
        let effective = clamp_thinking_level(&entry, level);
        let agent_session = self.current().session;
        let previous = agent_session
            .agent()
            .update_state(|s| std::mem::replace(&mut s.thinking_level, effective));
        if previous != effective {
            self.output
                .write(&json!({"type": "thinking_level_changed", "level": effective}));
        }
    }
}

/// A model as the protocol shows it: the catalog object, with its `thinkingLevelMap` after
/// `reasoning` when it has one.
pub fn model_json(entry: &ModelEntry) -> Value {
    let Ok(Value::Object(mut model)) = serde_json::to_value(&entry.model) else {
        return Value::Null;
    };
    // JavaScript prints a whole number without a fraction: `0`, not `0.0`.
    if let Some(Value::Object(cost)) = model.get_mut("cost") {
        for value in cost.values_mut() {
            if let Some(number) = value
                .as_f64()
                .filter(|n| n.fract() == 0.0 && n.abs() < 9.0e15)
            {
                *value = Value::from(number as i64);
            }
        }
    }
    let Some(map) = &entry.thinking_level_map else {
        return Value::Object(model);
    };
    let mut out = Map::new();
    for (key, value) in model {
        let after = key == "reasoning";
        out.insert(key, value);
        if after {
            out.insert("thinkingLevelMap".into(), map.to_json());
        }
    }
    Value::Object(out)
}

fn build(
    config: &HostConfig,
    router: &Arc<RoutedProvider>,
    output: &Arc<Output>,
    epoch: &Arc<AtomicU64>,
    retry: RetryPolicy,
    seed: Seed,
) -> Current {
    let id = uuid::Uuid::now_v7().to_string();
    let provider: Arc<dyn Provider> = router.clone();
    let mut options = AgentOptions::new(provider, seed.model);
    options.tools = config.tools.clone();
    options.tool_hooks = Some(config.gate.clone());
    options.system_prompt = Some(config.system_prompt.clone());
    options.context_hooks = Some(Arc::new(UserBashContext));
    options.session_id = Some(id.clone());
    options.steering_mode = seed.steering;
    options.follow_up_mode = seed.follow_up;
    let session = AgentSession::builder(options)
        .budget(config.budget)
        .retry(retry)
        .prompt_resources(config.resources.clone())
        .build();
    session.agent().update_state(|s| {
        s.thinking_level = seed.thinking;
        s.messages = seed.messages;
    });
    let mine = epoch.fetch_add(1, Ordering::SeqCst) + 1;
    let queued = Arc::new(AtomicUsize::new(0));
    let listener_output = output.clone();
    let listener_epoch = epoch.clone();
    let listener_queued = queued.clone();
    session.subscribe(move |event| {
        if let SessionEvent::Session(SessionNotice::QueueUpdate {
            steering,
            follow_up,
        }) = event
        {
            listener_queued.store(steering.len() + follow_up.len(), Ordering::SeqCst);
        }
        // A replaced session's late events (the end of an aborted run) are not the client's.
        if listener_epoch.load(Ordering::SeqCst) == mine {
            listener_output.write(event);
        }
    });
    Current {
        session,
        id,
        busy: Arc::new(AtomicBool::new(false)),
        queued,
        epoch: mine,
    }
}

impl Current {
    /// Whether this is still the session clients talk to.
    pub fn is_live(&self, host: &Host) -> bool {
        host.epoch.load(Ordering::SeqCst) == self.epoch
    }
}
