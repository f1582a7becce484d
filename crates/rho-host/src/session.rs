//! The session layer over the [`Agent`] (Pi's `AgentSession`, pi-reference §4.8): it owns the
//! agent, accepts prompts, forwards events in order, reports its queues with `queue_update`, and
//! says `agent_settled` exactly once per prompt, when nothing more will run on its own.
//!
//! Later layers hook in between the agent's `agent_end` and [`AgentSession::settle`]: auto-retry
//! (`retry.rs`) runs there, budgets (`budget.rs`) stop the run through the agent's turn gate.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use rho_agent::{Agent, AgentError, AgentEvent, AgentMessage, AgentOptions};
use rho_ai::{AssistantMessage, ImageContent, StopReason, Usage, UserMessage};
use serde::Serialize;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::budget::{Budget, BudgetGate, Meter};
use crate::compact::AfterCompaction;
use crate::compaction::{CodingAgentMessages, CompactionEnd, CompactionPolicy, CompactionStart};
use crate::persist::Persistence;
use crate::prompt::PromptResources;
use crate::retry::{RetryOutcome, RetryPolicy};
use crate::transcript::MemoryCompaction;

/// Rejection of a prompt while a run is active.
pub const SESSION_BUSY: &str = "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.";

/// An event of the session: an agent event or one of the session's own.
// Events are handed to listeners by reference and never stored in bulk, so the size difference
// between the variants costs nothing worth a heap allocation per event.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SessionEvent {
    /// Forwarded from the agent, in emission order.
    Agent(AgentEvent),
    /// Said by the session itself.
    Session(SessionNotice),
}

/// The session's own events.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum SessionNotice {
    /// The pending queues changed (full contents, message texts).
    QueueUpdate {
        /// Pending steering texts.
        steering: Vec<String>,
        /// Pending follow-up texts.
        follow_up: Vec<String>,
    },
    /// A run ended in a retryable error; the session waits `delay_ms`, then continues.
    AutoRetryStart {
        /// 1-based attempt number.
        attempt: u32,
        /// Most attempts (`retry.maxRetries`).
        max_attempts: u32,
        /// The wait before this attempt.
        delay_ms: u64,
        /// The failure being retried.
        error_message: String,
    },
    /// A retry chain ended: a reply succeeded, retries ran out, or the wait was cancelled.
    AutoRetryEnd {
        /// Whether a retried call succeeded.
        success: bool,
        /// The last attempt number.
        attempt: u32,
        /// The final failure text (absent on success).
        #[serde(skip_serializing_if = "Option::is_none")]
        final_error: Option<String>,
    },
    /// A compaction started (`{reason}`).
    CompactionStart(CompactionStart),
    /// A compaction ended (`{reason, result?, aborted, willRetry, errorMessage?}`).
    CompactionEnd(CompactionEnd),
    /// rho: the prompt is finished and nothing more will run on its own.
    AgentSettled(Settled),
}

/// How a prompt ended, with what it cost.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Settled {
    /// Why it ended.
    pub reason: SettledReason,
    /// Turns run for this prompt.
    pub turns: u64,
    /// Usage of every model call made for this prompt.
    pub usage: Usage,
}

/// `completed`, `error`, `aborted` or `budget`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SettledReason {
    /// The model finished.
    Completed,
    /// The last model call failed.
    Error,
    /// The run was cancelled.
    Aborted,
    /// A budget ran out: stopped, not succeeded.
    Budget,
}

/// Why the session refused a request.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SessionError {
    /// A run is active and the prompt was not queued.
    #[error("{SESSION_BUSY}")]
    Busy,
    /// The agent refused.
    #[error(transparent)]
    Agent(#[from] AgentError),
}

type Listener = Arc<dyn Fn(&SessionEvent) + Send + Sync>;

#[derive(Default)]
pub(crate) struct Shared {
    listeners: Mutex<Vec<Listener>>,
    steering: Mutex<Vec<String>>,
    follow_up: Mutex<Vec<String>>,
    /// Turns and usage of the current prompt, also read by the budget gate.
    pub(crate) meter: Arc<Meter>,
    /// A prompt is being run by this session (checked and set atomically).
    prompting: AtomicBool,
    /// The next user `message_start` is the prompt itself, not a queued message.
    prompt_pending: AtomicBool,
    pub(crate) retry: RetryPolicy,
    /// Skills and prompt templates that `/skill:name` and `/template` prompts expand to.
    pub(crate) prompt_resources: Option<Arc<PromptResources>>,
    /// The attempt of a started retry that no reply has answered yet.
    pub(crate) retry_pending: Mutex<Option<u32>>,
    /// Cancelled by `abort()`: ends the current prompt, retry waits included.
    prompt_cancel: Mutex<CancellationToken>,
    /// The retry wait in progress, for `abort_retry()`.
    pub(crate) retry_wait: Mutex<Option<CancellationToken>>,
    /// Signalled whenever the prompt slot is released.
    slot_free: Notify,
    /// The `compaction` settings; `enabled` is switched by `set_auto_compaction`.
    pub(crate) compaction: Mutex<CompactionPolicy>,
    /// A compaction is running.
    pub(crate) compacting: AtomicBool,
    /// Cancels the running compaction.
    pub(crate) compaction_cancel: Mutex<Option<CancellationToken>>,
    /// The last assistant reply since the last compaction check (Pi's `_lastAssistantMessage`).
    pub(crate) last_assistant: Mutex<Option<Arc<AssistantMessage>>>,
    /// An overflow was compacted and retried since the last user message or good reply.
    pub(crate) overflow_recovery_attempted: AtomicBool,
    /// The session file compaction reads and appends to (the latest attached).
    pub(crate) persistence: Mutex<Option<Persistence>>,
    /// The last compaction of a session without a file.
    pub(crate) memory_compaction: Mutex<Option<MemoryCompaction>>,
}

pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Shared {
    fn emit(&self, event: &SessionEvent) {
        let listeners: Vec<Listener> = lock(&self.listeners).clone();
        for listener in listeners {
            listener(event);
        }
    }

    pub(crate) fn emit_notice(&self, notice: SessionNotice) {
        self.emit(&SessionEvent::Session(notice));
    }

    fn has_queued(&self) -> bool {
        !lock(&self.steering).is_empty() || !lock(&self.follow_up).is_empty()
    }

    fn emit_queue_update(&self) {
        let steering = lock(&self.steering).clone();
        let follow_up = lock(&self.follow_up).clone();
        self.emit(&SessionEvent::Session(SessionNotice::QueueUpdate {
            steering,
            follow_up,
        }));
    }

    fn on_agent_event(&self, event: &AgentEvent) {
        match event {
            // A queued message is being delivered: the queue shrinks before its message_start.
            AgentEvent::MessageStart { message } => {
                let is_prompt = self.prompt_pending.swap(false, Ordering::SeqCst);
                if message.as_user().is_some() {
                    self.overflow_recovery_attempted
                        .store(false, Ordering::SeqCst);
                }
                if let Some(user) = message.as_user().filter(|_| !is_prompt) {
                    let text = user.text_content();
                    if remove_first(&self.steering, &text) || remove_first(&self.follow_up, &text) {
                        self.emit_queue_update();
                    }
                }
            }
            AgentEvent::MessageEnd { message } => {
                if let Some(assistant) = message.as_assistant() {
                    self.meter.add_usage(&assistant.usage);
                    *lock(&self.last_assistant) = Some(assistant.clone());
                    if assistant.stop_reason != StopReason::Error {
                        self.overflow_recovery_attempted
                            .store(false, Ordering::SeqCst);
                    }
                    self.emit(&SessionEvent::Agent(event.clone()));
                    // pi-reference §3.2: a retry succeeded at the first non-error reply's end.
                    if assistant.stop_reason != StopReason::Error
                        && let Some(attempt) = lock(&self.retry_pending).take()
                    {
                        self.emit_notice(SessionNotice::AutoRetryEnd {
                            success: true,
                            attempt,
                            final_error: None,
                        });
                    }
                    return;
                }
            }
            AgentEvent::TurnEnd { .. } => self.meter.add_turn(),
            _ => {}
        }
        self.emit(&SessionEvent::Agent(event.clone()));
    }
}

fn remove_first(queue: &Mutex<Vec<String>>, text: &str) -> bool {
    let mut queue = lock(queue);
    match queue.iter().position(|queued| queued == text) {
        Some(index) => {
            queue.remove(index);
            true
        }
        None => false,
    }
}

/// Releases the session's prompt slot, also when the prompt future is dropped.
pub(crate) struct PromptGuard<'a>(&'a Shared);

impl Drop for PromptGuard<'_> {
    fn drop(&mut self) {
        self.0.prompt_pending.store(false, Ordering::SeqCst);
        self.0.prompting.store(false, Ordering::SeqCst);
        self.0.slot_free.notify_waiters();
    }
}

/// A session: one agent, one ordered event stream, one `agent_settled` per prompt.
#[derive(Clone)]
pub struct AgentSession {
    pub(crate) agent: Agent,
    pub(crate) shared: Arc<Shared>,
}

/// Builds a session together with its agent, so budgets can reach the agent's turn gate.
pub struct SessionBuilder {
    options: AgentOptions,
    retry: RetryPolicy,
    budget: Budget,
    prompt_resources: Option<Arc<PromptResources>>,
    compaction: CompactionPolicy,
}

impl SessionBuilder {
    /// Sets the `compaction` settings (default: Pi's, enabled).
    pub fn compaction(mut self, policy: CompactionPolicy) -> Self {
        self.compaction = policy;
        self
    }

    /// Sets the auto-retry policy (default: enabled, 3 retries, 2000 ms base delay).
    pub fn retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// Sets the per-prompt budget (default: unlimited).
    pub fn budget(mut self, budget: Budget) -> Self {
        self.budget = budget;
        self
    }

    /// Expands `/skill:name args` and `/template args` prompts with `resources` (as Pi does
    /// before sending a prompt).
    pub fn prompt_resources(mut self, resources: Arc<PromptResources>) -> Self {
        self.prompt_resources = Some(resources);
        self
    }

    /// Creates the agent and the session over it.
    pub fn build(self) -> AgentSession {
        let shared = Arc::new(Shared {
            meter: Arc::new(Meter::new(self.budget)),
            retry: self.retry,
            prompt_resources: self.prompt_resources,
            compaction: Mutex::new(self.compaction),
            ..Shared::default()
        });
        let mut options = self.options;
        if options.context_hooks.is_none() {
            options.context_hooks = Some(Arc::new(CodingAgentMessages));
        }
        if self.budget.is_limited() {
            let queues = shared.clone();
            options.turn_gate = Some(Arc::new(BudgetGate {
                meter: shared.meter.clone(),
                inner: options.turn_gate.take(),
                more_work: Arc::new(move || queues.has_queued()),
            }));
        }
        AgentSession::with_shared(Agent::new(options), shared)
    }
}

impl AgentSession {
    /// Wraps `agent` with the default retry policy and no budget; the session forwards all its
    /// events.
    pub fn new(agent: Agent) -> Self {
        Self::with_shared(agent, Arc::new(Shared::default()))
    }

    /// A builder that creates the agent from `options`, with retry policy and budget.
    pub fn builder(options: AgentOptions) -> SessionBuilder {
        SessionBuilder {
            options,
            retry: RetryPolicy::default(),
            budget: Budget::default(),
            prompt_resources: None,
            compaction: CompactionPolicy::default(),
        }
    }

    fn with_shared(agent: Agent, shared: Arc<Shared>) -> Self {
        let forward = shared.clone();
        agent.subscribe(move |event| forward.on_agent_event(event));
        AgentSession { agent, shared }
    }

    /// The agent.
    pub fn agent(&self) -> &Agent {
        &self.agent
    }

    /// Calls `listener` for every session event, in order.
    pub fn subscribe(&self, listener: impl Fn(&SessionEvent) + Send + Sync + 'static) {
        lock(&self.shared.listeners).push(Arc::new(listener));
    }

    /// Runs a text prompt to the end and settles it.
    pub async fn prompt(&self, text: &str) -> Result<Settled, SessionError> {
        self.prompt_with_images(text, Vec::new()).await
    }

    /// Runs a prompt with attached images (`[{type:"text"}, ...images]`) to the end and settles
    /// it.
    pub async fn prompt_with_images(
        &self,
        text: &str,
        images: Vec<ImageContent>,
    ) -> Result<Settled, SessionError> {
        if self.shared.prompting.swap(true, Ordering::SeqCst) {
            return Err(SessionError::Busy);
        }
        let _prompting = PromptGuard(&self.shared);
        self.run_prompt(text, images).await
    }

    /// Waits until no prompt or compaction holds the session, then holds it.
    pub(crate) async fn claim_prompt_slot(&self) -> PromptGuard<'_> {
        loop {
            let freed = self.shared.slot_free.notified();
            if !self.shared.prompting.swap(true, Ordering::SeqCst) {
                return PromptGuard(&self.shared);
            }
            freed.await;
        }
    }

    async fn run_prompt(
        &self,
        text: &str,
        images: Vec<ImageContent>,
    ) -> Result<Settled, SessionError> {
        if self.agent.is_running() {
            return Err(SessionError::Busy);
        }
        self.shared.meter.reset();
        *lock(&self.shared.retry_pending) = None;
        let cancel = CancellationToken::new();
        *lock(&self.shared.prompt_cancel) = cancel.clone();
        *lock(&self.shared.last_assistant) = None;
        self.compact_before_prompt(&cancel).await;
        self.shared.prompt_pending.store(true, Ordering::SeqCst);
        // A skill that cannot be read leaves the prompt as typed (Pi does the same).
        let text = match &self.shared.prompt_resources {
            Some(resources) => resources.expand_input(text).0,
            None => text.to_owned(),
        };
        let message: AgentMessage = UserMessage::with_images(text, images).into();
        match self.agent.prompt(vec![message]).await {
            Err(AgentError::Busy(_)) => return Err(SessionError::Busy),
            Err(other) => return Err(other.into()),
            Ok(()) => {}
        }
        let outcome = loop {
            let outcome = self.retry_chain(&cancel).await;
            if outcome == RetryOutcome::Cancelled || cancel.is_cancelled() {
                break outcome;
            }
            if self.compact_after_run(&cancel).await == AfterCompaction::Stop {
                break outcome;
            }
            if self.agent.continue_run().await.is_err() {
                break outcome;
            }
        };
        Ok(self.settle(outcome))
    }

    /// Queues a steering message (delivered after the current turn's tools).
    pub fn steer(&self, text: &str) {
        self.steer_with_images(text, Vec::new());
    }

    /// Queues a steering message with attached images.
    pub fn steer_with_images(&self, text: &str, images: Vec<ImageContent>) {
        lock(&self.shared.steering).push(text.to_owned());
        self.shared.emit_queue_update();
        self.agent
            .steer(UserMessage::with_images(text, images).into());
    }

    /// Queues a follow-up message (delivered when the run would stop).
    pub fn follow_up(&self, text: &str) {
        self.follow_up_with_images(text, Vec::new());
    }

    /// Queues a follow-up message with attached images.
    pub fn follow_up_with_images(&self, text: &str, images: Vec<ImageContent>) {
        lock(&self.shared.follow_up).push(text.to_owned());
        self.shared.emit_queue_update();
        self.agent
            .follow_up(UserMessage::with_images(text, images).into());
    }

    /// Drops both queues.
    pub fn clear_queue(&self) {
        lock(&self.shared.steering).clear();
        lock(&self.shared.follow_up).clear();
        self.agent.clear_all_queues();
        self.shared.emit_queue_update();
    }

    /// Cancels the active run or retry wait and waits until the agent is idle.
    pub async fn abort(&self) {
        self.abort_now();
        self.agent.wait_for_idle().await;
    }

    /// Cancels the active run or retry wait without waiting (for signal handlers).
    pub fn abort_now(&self) {
        lock(&self.shared.prompt_cancel).cancel();
        self.agent.abort();
    }

    /// Emits `agent_settled` for the prompt that just ended and returns it.
    fn settle(&self, outcome: RetryOutcome) -> Settled {
        let from_transcript = self.agent.with_state(|s| {
            let last = s.messages.iter().rev().find_map(|m| m.as_assistant());
            match last.map(|a| a.stop_reason) {
                Some(StopReason::Error) => SettledReason::Error,
                Some(StopReason::Aborted) => SettledReason::Aborted,
                Some(_) => SettledReason::Completed,
                None => SettledReason::Error,
            }
        });
        let reason = if self.shared.meter.tripped() {
            SettledReason::Budget
        } else if outcome == RetryOutcome::Cancelled {
            SettledReason::Aborted
        } else {
            from_transcript
        };
        let tally = self.shared.meter.take();
        let settled = Settled {
            reason,
            turns: tally.turns,
            usage: tally.usage,
        };
        self.shared
            .emit(&SessionEvent::Session(SessionNotice::AgentSettled(
                settled.clone(),
            )));
        settled
    }
}
