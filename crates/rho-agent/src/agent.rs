//! The `Agent` handle (pi-reference §4.7): state, queues, subscriptions and the run lifecycle
//! around the loop. Cheap to clone; clones share one agent.

use rho_stdx::sync::lock;
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rho_ai::{
    AssistantMessage, ContentBlock, Model, Provider, StopReason, ThinkingLevel, UserMessage,
};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::config::{LoopConfig, LoopContext, ToolExecution};
use crate::event::{AgentEvent, EventSink};
use crate::hooks::{
    ContextHooks, MessageSource, NextTurnHook, StopHook, ToolChangeHook, ToolHooks, TurnGate,
};
use crate::queue::{PendingQueue, QueueMode};
use crate::run::{LoopError, run_agent_loop, run_agent_loop_continue};
use crate::tool::AgentTool;
use rho_ai::AgentMessage;

/// Rejection of `prompt` while a run is active.
pub const PROMPT_BUSY: &str = "Agent is already processing a prompt. Use steer() or followUp() to queue messages, or wait for completion.";
/// Rejection of `continue` while a run is active.
pub const CONTINUE_BUSY: &str =
    "Agent is already processing. Wait for completion before continuing.";

/// Why `prompt` or `continue` was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AgentError {
    /// A run is already active.
    #[error("{0}")]
    Busy(&'static str),
    /// There is nothing to continue from.
    #[error("{0}")]
    CannotContinue(String),
}

/// What the agent knows between runs.
#[derive(Clone)]
pub struct AgentState {
    /// The system prompt.
    pub system_prompt: Option<Arc<str>>,
    /// The model used by the next run.
    pub model: Model,
    /// Reasoning effort of the next run.
    pub thinking_level: ThinkingLevel,
    /// Tools of the next run.
    pub tools: Vec<Arc<dyn AgentTool>>,
    /// The transcript; grows on every `message_end`.
    pub messages: Vec<AgentMessage>,
    /// Whether a run is active.
    pub is_streaming: bool,
    /// The message being streamed.
    pub streaming_message: Option<AgentMessage>,
    /// Ids of calls between `tool_execution_start` and `tool_execution_end`.
    pub pending_tool_calls: HashSet<String>,
    /// The error of the last failed turn.
    pub error_message: Option<String>,
}

/// How the agent is built.
pub struct AgentOptions {
    /// The provider serving the model.
    pub provider: Arc<dyn Provider>,
    /// The initial model.
    pub model: Model,
    /// The initial system prompt.
    pub system_prompt: Option<Arc<str>>,
    /// The initial tools.
    pub tools: Vec<Arc<dyn AgentTool>>,
    /// `beforeToolCall` / `afterToolCall`.
    pub tool_hooks: Option<Arc<dyn ToolHooks>>,
    /// `transformContext` / `convertToLlm`.
    pub context_hooks: Option<Arc<dyn ContextHooks>>,
    /// `shouldStopAfterTurn`.
    pub turn_gate: Option<Arc<dyn TurnGate>>,
    /// `prepareNextTurn` (the session's mid-run compaction).
    pub next_turn: Option<Arc<dyn NextTurnHook>>,
    /// `declareToolChanges` (tools loaded or registered while a run goes on).
    pub tool_changes: Option<Arc<dyn ToolChangeHook>>,
    /// Asked before a run ends on its own (the session's `Stop` hooks).
    pub stop: Option<Arc<dyn StopHook>>,
    /// Parallel (default) or sequential.
    pub tool_execution: ToolExecution,
    /// Steering delivery.
    pub steering_mode: QueueMode,
    /// Follow-up delivery.
    pub follow_up_mode: QueueMode,
    /// Passed to the provider and to the tools.
    pub session_id: Option<String>,
    /// The session file, when the session is kept on disk; passed to the tools.
    pub session_file: Option<std::path::PathBuf>,
    /// Passed to the provider.
    pub api_key: Option<String>,
}

impl AgentOptions {
    /// Options with no tools, hooks or system prompt.
    pub fn new(provider: Arc<dyn Provider>, model: Model) -> Self {
        AgentOptions {
            provider,
            model,
            system_prompt: None,
            tools: Vec::new(),
            tool_hooks: None,
            context_hooks: None,
            turn_gate: None,
            next_turn: None,
            tool_changes: None,
            stop: None,
            tool_execution: ToolExecution::Parallel,
            steering_mode: QueueMode::OneAtATime,
            follow_up_mode: QueueMode::OneAtATime,
            session_id: None,
            session_file: None,
            api_key: None,
        }
    }
}

type Listener = Arc<dyn Fn(&AgentEvent) + Send + Sync>;

/// A subscription handle; pass it to [`Agent::unsubscribe`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Subscription(u64);

struct Inner {
    state: Mutex<AgentState>,
    steering: Mutex<PendingQueue>,
    follow_up: Mutex<PendingQueue>,
    listeners: Mutex<Vec<(u64, Listener)>>,
    next_listener: AtomicU64,
    active: Mutex<Option<CancellationToken>>,
    running: watch::Sender<bool>,
    options: AgentOptions,
}

/// The agent: run prompts, queue messages, abort, observe.
#[derive(Clone)]
pub struct Agent {
    inner: Arc<Inner>,
}

impl Agent {
    /// A new idle agent.
    pub fn new(options: AgentOptions) -> Self {
        let state = AgentState {
            system_prompt: options.system_prompt.clone(),
            model: options.model.clone(),
            thinking_level: ThinkingLevel::Off,
            tools: options.tools.clone(),
            messages: Vec::new(),
            is_streaming: false,
            streaming_message: None,
            pending_tool_calls: HashSet::new(),
            error_message: None,
        };
        let (running, _) = watch::channel(false);
        Agent {
            inner: Arc::new(Inner {
                state: Mutex::new(state),
                steering: Mutex::new(PendingQueue::new(options.steering_mode)),
                follow_up: Mutex::new(PendingQueue::new(options.follow_up_mode)),
                listeners: Mutex::new(Vec::new()),
                next_listener: AtomicU64::new(0),
                active: Mutex::new(None),
                running,
                options,
            }),
        }
    }

    /// A copy of the current state.
    pub fn state(&self) -> AgentState {
        lock(&self.inner.state).clone()
    }

    /// Reads the state without copying it.
    pub fn with_state<R>(&self, f: impl FnOnce(&AgentState) -> R) -> R {
        f(&lock(&self.inner.state))
    }

    /// Changes the state; takes effect on the next run.
    pub fn update_state<R>(&self, f: impl FnOnce(&mut AgentState) -> R) -> R {
        f(&mut lock(&self.inner.state))
    }

    /// Calls `listener` for every event, in subscription order.
    pub fn subscribe(
        &self,
        listener: impl Fn(&AgentEvent) + Send + Sync + 'static,
    ) -> Subscription {
        let id = self.inner.next_listener.fetch_add(1, Ordering::Relaxed);
        lock(&self.inner.listeners).push((id, Arc::new(listener)));
        Subscription(id)
    }

    /// Stops a subscription.
    pub fn unsubscribe(&self, subscription: Subscription) {
        lock(&self.inner.listeners).retain(|(id, _)| *id != subscription.0);
    }

    /// Runs a text prompt: `[{type:"text",text}]`.
    pub async fn prompt_text(&self, text: impl Into<String>) -> Result<(), AgentError> {
        self.prompt(vec![UserMessage::text(text).into()]).await
    }

    /// Runs `messages` as the prompt of a new run; resolves when the run ended.
    pub async fn prompt(&self, messages: Vec<AgentMessage>) -> Result<(), AgentError> {
        let token = self.begin(PROMPT_BUSY)?;
        self.run(token, Some(messages), false).await;
        Ok(())
    }

    /// Continues from the transcript: after tool results, or with queued messages after an
    /// assistant reply.
    pub async fn continue_run(&self) -> Result<(), AgentError> {
        let token = self.begin(CONTINUE_BUSY)?;
        let last_is_assistant =
            self.with_state(|s| s.messages.last().map(|m| m.as_assistant().is_some()));
        match last_is_assistant {
            None => {
                self.finish();
                Err(AgentError::CannotContinue(
                    "No messages to continue from".into(),
                ))
            }
            Some(true) => {
                let steering = lock(&self.inner.steering).drain();
                if !steering.is_empty() {
                    self.run(token, Some(steering), true).await;
                    return Ok(());
                }
                let follow_ups = lock(&self.inner.follow_up).drain();
                if !follow_ups.is_empty() {
                    self.run(token, Some(follow_ups), false).await;
                    return Ok(());
                }
                self.finish();
                Err(AgentError::CannotContinue(
                    "Cannot continue from message role: assistant".into(),
                ))
            }
            Some(false) => {
                self.run(token, None, false).await;
                Ok(())
            }
        }
    }

    /// Queues a message delivered after the current turn's tools.
    pub fn steer(&self, message: AgentMessage) {
        lock(&self.inner.steering).enqueue(message);
    }

    /// Queues a message delivered when the run would otherwise stop.
    pub fn follow_up(&self, message: AgentMessage) {
        lock(&self.inner.follow_up).enqueue(message);
    }

    /// Drops queued steering messages.
    pub fn clear_steering_queue(&self) {
        lock(&self.inner.steering).clear();
    }

    /// Drops queued follow-up messages.
    pub fn clear_follow_up_queue(&self) {
        lock(&self.inner.follow_up).clear();
    }

    /// Drops both queues.
    pub fn clear_all_queues(&self) {
        self.clear_steering_queue();
        self.clear_follow_up_queue();
    }

    /// Whether any message is queued.
    pub fn has_queued_messages(&self) -> bool {
        !lock(&self.inner.steering).is_empty() || !lock(&self.inner.follow_up).is_empty()
    }

    /// Sets the steering delivery mode.
    pub fn set_steering_mode(&self, mode: QueueMode) {
        lock(&self.inner.steering).mode = mode;
    }

    /// Sets the follow-up delivery mode.
    pub fn set_follow_up_mode(&self, mode: QueueMode) {
        lock(&self.inner.follow_up).mode = mode;
    }

    /// The steering delivery mode.
    pub fn steering_mode(&self) -> QueueMode {
        lock(&self.inner.steering).mode
    }

    /// The follow-up delivery mode.
    pub fn follow_up_mode(&self) -> QueueMode {
        lock(&self.inner.follow_up).mode
    }

    /// Cancels the active run (model stream and running tools); a no-op when idle.
    pub fn abort(&self) {
        if let Some(token) = lock(&self.inner.active).as_ref() {
            token.cancel();
        }
    }

    /// The provider every run of this agent calls (the session's summariser calls it too).
    pub fn provider(&self) -> Arc<dyn Provider> {
        self.inner.options.provider.clone()
    }

    /// The API key passed to the provider.
    pub fn api_key(&self) -> Option<String> {
        self.inner.options.api_key.clone()
    }

    /// Whether a run is active.
    pub fn is_running(&self) -> bool {
        lock(&self.inner.active).is_some()
    }

    /// Resolves when no run is active.
    pub async fn wait_for_idle(&self) {
        let mut running = self.inner.running.subscribe();
        // The sender lives in `inner`, which `self` keeps alive, so this cannot fail.
        let _ = running.wait_for(|running| !*running).await;
    }

    /// Clears the transcript, runtime state and both queues.
    pub fn reset(&self) {
        self.update_state(|s| {
            s.messages.clear();
            s.streaming_message = None;
            s.pending_tool_calls.clear();
            s.error_message = None;
        });
        self.clear_all_queues();
    }

    fn begin(&self, busy: &'static str) -> Result<CancellationToken, AgentError> {
        let mut active = lock(&self.inner.active);
        if active.is_some() {
            return Err(AgentError::Busy(busy));
        }
        let token = CancellationToken::new();
        *active = Some(token.clone());
        self.inner.running.send_replace(true);
        self.update_state(|s| {
            s.is_streaming = true;
            s.streaming_message = None;
            s.error_message = None;
        });
        Ok(token)
    }

    fn finish(&self) {
        self.update_state(|s| {
            s.is_streaming = false;
            s.streaming_message = None;
            s.pending_tool_calls.clear();
        });
        *lock(&self.inner.active) = None;
        self.inner.running.send_replace(false);
    }

    async fn run(
        &self,
        token: CancellationToken,
        prompts: Option<Vec<AgentMessage>>,
        skip_first_steering: bool,
    ) {
        // Resets the run state even if the caller drops this future mid-run.
        let _guard = FinishGuard(self);
        let options = &self.inner.options;
        let (context, config) = self.with_state(|s| {
            let context = LoopContext {
                system_prompt: s.system_prompt.clone(),
                messages: s.messages.clone(),
                tools: s.tools.clone(),
            };
            let mut config = LoopConfig::new(s.model.clone(), options.provider.clone());
            config.api_key = options.api_key.clone();
            config.reasoning = (s.thinking_level != ThinkingLevel::Off).then_some(s.thinking_level);
            (context, config)
        });
        let config = LoopConfig {
            session_id: options.session_id.clone(),
            session_file: options.session_file.clone(),
            tool_execution: options.tool_execution,
            tool_hooks: options.tool_hooks.clone(),
            context_hooks: options.context_hooks.clone(),
            turn_gate: options.turn_gate.clone(),
            next_turn: options.next_turn.clone(),
            tool_changes: options.tool_changes.clone(),
            stop: options.stop.clone(),
            messages: Some(Arc::new(Queues {
                agent: self.clone(),
                skip_first_steering: AtomicBool::new(skip_first_steering),
            })),
            ..config
        };
        let sink: Arc<dyn EventSink> = Arc::new(Sink {
            agent: self.clone(),
        });
        let result = match prompts {
            Some(prompts) => {
                run_agent_loop(prompts, context, &config, token.clone(), sink.clone()).await
            }
            None => run_agent_loop_continue(context, &config, token.clone(), sink.clone()).await,
        };
        if let Err(LoopError::Hook(message) | LoopError::CannotContinue(message)) = result {
            // pi-reference §3.3 g5: only `agent_end` with a failure message.
            let mut failure = AssistantMessage::empty(
                &config.model.api,
                &config.model.provider,
                &config.model.id,
            );
            failure.content = vec![ContentBlock::text("")];
            failure.stop_reason = if token.is_cancelled() {
                StopReason::Aborted
            } else {
                StopReason::Error
            };
            failure.error_message = Some(message.clone());
            let failure: AgentMessage = failure.into();
            self.update_state(|s| {
                s.messages.push(failure.clone());
                s.error_message = Some(message);
            });
            self.dispatch(&AgentEvent::AgentEnd {
                messages: vec![failure],
                will_retry: false,
            });
        }
    }

    fn reduce(&self, event: &AgentEvent) {
        let mut s = lock(&self.inner.state);
        match event {
            AgentEvent::MessageStart { message } | AgentEvent::MessageUpdate { message, .. } => {
                s.streaming_message = Some(message.clone());
            }
            AgentEvent::MessageEnd { message } => {
                s.streaming_message = None;
                s.messages.push(message.clone());
            }
            AgentEvent::ToolExecutionStart { tool_call_id, .. } => {
                s.pending_tool_calls.insert(tool_call_id.clone());
            }
            AgentEvent::ToolExecutionEnd { tool_call_id, .. } => {
                s.pending_tool_calls.remove(tool_call_id);
            }
            AgentEvent::TurnEnd { message, .. } => {
                if let Some(error) = message.as_assistant().and_then(|a| a.error_message.clone()) {
                    s.error_message = Some(error);
                }
            }
            AgentEvent::AgentEnd { .. } => s.streaming_message = None,
            _ => {}
        }
    }

    fn dispatch(&self, event: &AgentEvent) {
        let listeners: Vec<Listener> = lock(&self.inner.listeners)
            .iter()
            .map(|(_, l)| l.clone())
            .collect();
        for listener in listeners {
            listener(event);
        }
    }
}

struct FinishGuard<'a>(&'a Agent);

impl Drop for FinishGuard<'_> {
    fn drop(&mut self) {
        self.0.finish();
    }
}

/// The loop's event sink: state reduction first, then listeners.
struct Sink {
    agent: Agent,
}

impl EventSink for Sink {
    fn emit(&self, event: AgentEvent) {
        self.agent.reduce(&event);
        self.agent.dispatch(&event);
    }
}

/// The loop's view of the agent's queues.
struct Queues {
    agent: Agent,
    skip_first_steering: AtomicBool,
}

impl MessageSource for Queues {
    fn steering_messages(&self) -> Vec<AgentMessage> {
        if self.skip_first_steering.swap(false, Ordering::Relaxed) {
            return Vec::new();
        }
        lock(&self.agent.inner.steering).drain()
    }

    fn follow_up_messages(&self) -> Vec<AgentMessage> {
        lock(&self.agent.inner.follow_up).drain()
    }
}
