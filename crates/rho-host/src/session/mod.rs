//! The session layer over the [`Agent`] (Pi's `AgentSession`, pi-reference §4.8): it owns the
//! agent, accepts prompts, forwards events in order, reports its queues with `queue_update`, and
//! says `agent_settled` exactly once per prompt, when nothing more will run on its own.
//!
//! Each concern is a type that owns its state, and only this file composes them:
//!
//! | state | owner | file |
//! |---|---|---|
//! | transcript, model, tools, the agent's queues | [`Agent`] | `rho-agent` |
//! | the prompt slot and its cancellation | `PromptSlot` | `session/slot.rs` |
//! | the texts `queue_update` reports | `QueueMirror` | `session/queues.rs` |
//! | listeners | `Listeners` | `session/events.rs` |
//! | the prompt's tally against its budget | `Meter` | `budget.rs` |
//! | auto-retry policy and the chain in progress | `Retry` | `retry.rs` |
//! | compaction policy, the running compaction | `AutoCompaction` | `compact.rs` |
//! | the session file (disk, pending or memory) | [`SessionRecord`] | `record.rs` |
//! | the system prompt the session wants the model to have | `Inner::system` | here; the diff in `session/system.rs` |
//! | the registered tools and which are active | [`ToolSet`] | `tool_set.rs` |
//!
//! Those files import nothing from this one but the event types. The record is the first
//! listener, so an entry is written before the event that announces it is shown.

pub mod events;
mod queues;
mod slot;
mod system;

use std::future::Future;
use std::sync::{Arc, Mutex, Weak};

use async_trait::async_trait;
use rho_agent::{
    Agent, AgentError, AgentEvent, AgentMessage, AgentOptions, AgentTool, NextTurnHook, ToolChange,
    ToolChangeHook,
};
use rho_ai::{ImageContent, StopReason, SystemMessage, UserMessage};
use rho_session::{SessionContext, SessionFile};
use rho_stdx::sync::lock;
use tokio_util::sync::CancellationToken;

use self::events::Listeners;
pub use self::events::{SessionEvent, SessionNotice, Settled, SettledReason};
use self::queues::{Queue, QueueMirror};
use self::slot::{PromptSlot, SlotGuard};
use self::system::Declared;
use crate::budget::{Budget, BudgetGate, Meter};
use crate::compact::{AfterCompaction, AutoCompaction, Parts};
use crate::compaction::{
    CodingAgentMessages, CompactionError, CompactionPolicy, CompactionResult, SummaryRetryPolicy,
};
use crate::hooks::notice::HookNotice;
use crate::hooks::{HookTurnGate, Hooks};
use crate::prompt::{PromptResources, SystemPrompt};
use crate::record::SessionRecord;
use crate::retry::{Retry, RetryOutcome, RetryPolicy};
use crate::tool_set::ToolSet;

/// What runs before each prompt is declared (Pi's `before_agent_start` of its MCP extension):
/// it may wait (the first prompt waits for MCP servers with direct tools) and gives the system
/// prompt sections that follow the built-in ones (`mcp_servers`).
#[async_trait]
pub trait BeforePrompt: Send + Sync {
    /// The extra sections, `(name, text)`, in order.
    async fn before_prompt(&self, cancel: &CancellationToken) -> Vec<(String, String)>;
}

/// Rejection of a prompt while a run is active.
pub const SESSION_BUSY: &str = "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message.";

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

/// A session: one agent, one ordered event stream, one `agent_settled` per prompt. Cheap to
/// clone; clones share the session.
#[derive(Clone)]
pub struct AgentSession {
    inner: Arc<Inner>,
}

struct Inner {
    agent: Agent,
    record: SessionRecord,
    listeners: Listeners,
    slot: Arc<PromptSlot>,
    queues: Arc<QueueMirror>,
    meter: Arc<Meter>,
    retry: Retry,
    compaction: AutoCompaction,
    /// Skills and prompt templates that `/skill:name` and `/template` prompts expand to.
    resources: Option<Arc<PromptResources>>,
    /// Messages recorded while a prompt ran (a user's `!cmd`), added when it settles so a tool
    /// call and its result stay together.
    held_back: Mutex<Vec<AgentMessage>>,
    /// The system prompt to declare to the model in `system` messages (none: the agent's
    /// prompt is sent as it is and no `system` message is written).
    system: Option<SystemPrompt>,
    /// The registered tools; the active ones are the agent's.
    tools: Arc<ToolSet>,
    /// What runs before each prompt.
    before_prompt: Option<Arc<dyn BeforePrompt>>,
    /// The command hooks.
    hooks: Option<Arc<Hooks>>,
}

/// Builds a session together with its agent, so budgets can reach the agent's turn gate.
pub struct SessionBuilder {
    options: AgentOptions,
    retry: RetryPolicy,
    budget: Budget,
    resources: Option<Arc<PromptResources>>,
    compaction: CompactionPolicy,
    file: Option<SessionFile>,
    system: Option<SystemPrompt>,
    tools: Option<Arc<ToolSet>>,
    before_prompt: Option<Arc<dyn BeforePrompt>>,
    hooks: Option<Arc<Hooks>>,
}

impl SessionBuilder {
    /// Runs the command `hooks` where their events happen (the caller puts them around the
    /// gate as the agent's tool hooks); their runs join the session's events.
    pub fn hooks(mut self, hooks: Arc<Hooks>) -> Self {
        self.hooks = Some(hooks);
        self
    }

    /// Takes the session's tools from `tools` (default: a registry of the agent options' tools,
    /// all active), so tools registered later (an MCP server's) reach the model.
    pub fn tool_set(mut self, tools: Arc<ToolSet>) -> Self {
        self.tools = Some(tools);
        self
    }

    /// Runs `hook` before each prompt is declared.
    pub fn before_prompt(mut self, hook: Arc<dyn BeforePrompt>) -> Self {
        self.before_prompt = Some(hook);
        self
    }

    /// Declares `prompt` and the agent's tools to the model in Pi 1.6's `system` messages: the
    /// first prompt of a session opens with one, and a later prompt gets one only when the
    /// prompt or the tools changed. The agent's system prompt follows what they declare.
    pub fn system_prompt(mut self, prompt: SystemPrompt) -> Self {
        self.system = Some(prompt);
        self
    }

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
        self.resources = Some(resources);
        self
    }

    /// Records the session into `file` (default: a session kept in memory).
    pub fn file(mut self, file: SessionFile) -> Self {
        self.file = Some(file);
        self
    }

    /// Creates the agent and the session over it.
    pub fn build(self) -> AgentSession {
        let meter = Arc::new(Meter::new(self.budget));
        let queues = Arc::new(QueueMirror::default());
        let mut options = self.options;
        if options.context_hooks.is_none() {
            options.context_hooks = Some(Arc::new(CodingAgentMessages));
        }
        if let Some(hooks) = &self.hooks {
            options.stop = Some(hooks.clone());
            options.turn_gate = Some(Arc::new(HookTurnGate {
                hooks: hooks.clone(),
                inner: options.turn_gate.take(),
            }));
        }
        if self.budget.is_limited() {
            let queued = queues.clone();
            options.turn_gate = Some(Arc::new(BudgetGate {
                meter: meter.clone(),
                inner: options.turn_gate.take(),
                more_work: Arc::new(move || queued.len() > 0),
            }));
        }
        let file = self.file.unwrap_or_else(|| SessionFile::in_memory(""));
        let record = SessionRecord::new(file);
        // The record hears every event first: an entry is written before its event is shown.
        let listeners = Listeners::default();
        let recorder = record.clone();
        listeners.add(move |event| recorder.on_event(event));
        let tools = self
            .tools
            .unwrap_or_else(|| Arc::new(ToolSet::new(options.tools.clone())));
        options.tools = tools.active();
        // The agent is built with its session's mid-run compaction and tool changes, which
        // reach the session through a weak reference (the session owns the agent).
        let inner = Arc::new_cyclic(|session| {
            options.next_turn = Some(Arc::new(NextTurn(session.clone())));
            options.tool_changes = Some(Arc::new(ToolChanges(session.clone())));
            Inner {
                agent: Agent::new(options),
                record,
                listeners,
                slot: Arc::default(),
                queues,
                meter,
                retry: Retry::new(self.retry),
                compaction: AutoCompaction::new(self.compaction),
                resources: self.resources,
                held_back: Mutex::new(Vec::new()),
                system: self.system,
                tools,
                before_prompt: self.before_prompt,
                hooks: self.hooks,
            }
        });
        if let Some(hooks) = &inner.hooks {
            let session = Arc::downgrade(&inner);
            hooks.set_emitter(move |notice| {
                if let Some(inner) = session.upgrade() {
                    inner.notice(match notice {
                        HookNotice::Start(run) => SessionNotice::HookExecutionStart(run),
                        HookNotice::End(result) => SessionNotice::HookExecutionEnd(*result),
                    });
                }
            });
        }
        let agent = inner.agent.clone();
        let forward = Arc::downgrade(&inner);
        agent.subscribe(move |event| {
            if let Some(inner) = forward.upgrade() {
                inner.on_agent_event(event);
            }
        });
        AgentSession { inner }
    }
}

/// The agent's `prepareNextTurn`: Pi 1.6's mid-run compaction, between a `turn_end` and the
/// next `turn_start` of the same run.
struct NextTurn(Weak<Inner>);

#[async_trait]
impl NextTurnHook for NextTurn {
    async fn prepare_next_turn(
        &self,
        _context: &[AgentMessage],
        cancel: &CancellationToken,
    ) -> Option<Vec<AgentMessage>> {
        let inner = self.0.upgrade()?;
        inner
            .compaction
            .before_next_turn(&inner.parts(), cancel)
            .await
    }
}

/// The agent's `declareToolChanges`: the active tools at the start of a turn, declared when they
/// differ from the run's.
struct ToolChanges(Weak<Inner>);

impl ToolChangeHook for ToolChanges {
    fn tool_changes(&self, context: &[AgentMessage]) -> Option<ToolChange> {
        let inner = self.0.upgrade()?;
        let tools = inner.tools.active();
        let same = inner
            .agent
            .with_state(|state| same_names(&state.tools, &tools));
        if same {
            return None;
        }
        inner
            .agent
            .update_state(|state| state.tools = tools.clone());
        let message = inner
            .system
            .as_ref()
            .and_then(|_| Declared::replay(context).update_tools_to(&tools))
            .map(AgentMessage::from);
        Some(ToolChange { tools, message })
    }
}

/// Whether two tool lists hold the same names in the same order.
fn same_names(a: &[Arc<dyn AgentTool>], b: &[Arc<dyn AgentTool>]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.name() == y.name())
}

impl Inner {
    /// Hands `event` to the record, then to every listener.
    fn emit(&self, event: &SessionEvent) {
        self.listeners.emit(event);
    }

    fn notice(&self, notice: SessionNotice) {
        self.emit(&SessionEvent::Session(notice));
    }

    fn on_agent_event(&self, event: &AgentEvent) {
        match event {
            // A queued message is being delivered: the queue shrinks before its message_start.
            AgentEvent::MessageStart { message } => {
                self.compaction.message_started(message);
                if let Some(user) = message.as_user()
                    && let Some(update) = self.queues.user_message_started(&user.text_content())
                {
                    self.notice(update);
                }
            }
            AgentEvent::MessageEnd { message } => {
                if let Some(reply) = message.as_assistant() {
                    self.meter.add_usage(&reply.usage);
                    self.compaction.reply_ended(reply);
                    self.emit(&SessionEvent::Agent(event.clone()));
                    if let Some(end) = self.retry.reply_ended(reply) {
                        self.notice(end);
                    }
                    return;
                }
            }
            AgentEvent::TurnEnd { .. } => self.meter.add_turn(),
            AgentEvent::AgentEnd { messages, .. } => {
                let will_retry = self.retry.will_retry(messages, &self.meter);
                self.emit(&SessionEvent::Agent(AgentEvent::AgentEnd {
                    messages: messages.clone(),
                    will_retry,
                }));
                return;
            }
            _ => {}
        }
        self.emit(&SessionEvent::Agent(event.clone()));
    }

    fn parts(&self) -> Parts<'_> {
        let retry = self.retry.policy();
        Parts {
            agent: &self.agent,
            record: &self.record,
            listeners: &self.listeners,
            meter: &self.meter,
            hooks: self.hooks.as_deref(),
            summary_retry: SummaryRetryPolicy {
                max_retries: if retry.enabled { retry.max_retries } else { 0 },
                base_delay_ms: retry.base_delay_ms,
                max_delay_ms: retry.max_delay_ms,
            },
        }
    }

    /// Runs one prompt to the end; the caller holds the slot.
    async fn run_prompt(
        &self,
        text: &str,
        images: Vec<ImageContent>,
    ) -> Result<Settled, SessionError> {
        if self.agent.is_running() {
            return Err(SessionError::Busy);
        }
        self.meter.reset();
        self.retry.reset();
        self.compaction.reset();
        let cancel = self.slot.new_cancel();
        self.compaction.before_prompt(&self.parts(), &cancel).await;
        let text = self.expand(text);
        let mut contexts = Vec::new();
        if let Some(hooks) = &self.hooks {
            match hooks.before_prompt(&text, &cancel).await {
                Some(added) => contexts = added,
                None => return Ok(self.settle(RetryOutcome::Finished)),
            }
        }
        let extra = match &self.before_prompt {
            Some(hook) => hook.before_prompt(&cancel).await,
            None => Vec::new(),
        };
        self.tools.drop_pending();
        let mut messages: Vec<AgentMessage> = Vec::with_capacity(2);
        if let Some(system) = self.declare_system_prompt(&extra) {
            messages.push(system.into());
        }
        let mut user = UserMessage::with_images(text, images);
        // What the hooks add follows the prompt's text, before its images.
        if let rho_ai::UserContent::Blocks(blocks) = &mut user.content {
            for (i, context) in contexts.into_iter().enumerate() {
                blocks.insert(1 + i, rho_ai::ContentBlock::text(context));
            }
        }
        messages.push(user.into());
        self.queues.expect_prompt(true);
        let started = self.agent.prompt(messages).await;
        self.queues.expect_prompt(false);
        match started {
            Err(AgentError::Busy(_)) => return Err(SessionError::Busy),
            Err(other) => return Err(other.into()),
            Ok(()) => {}
        }
        let outcome = loop {
            let outcome = self
                .retry
                .run_chain(
                    &self.agent,
                    &self.listeners,
                    &self.meter,
                    &self.record,
                    &cancel,
                )
                .await;
            if outcome == RetryOutcome::Cancelled || cancel.is_cancelled() {
                break outcome;
            }
            if self.compaction.after_run(&self.parts(), &cancel).await == AfterCompaction::Stop {
                break outcome;
            }
            if self.agent.continue_run().await.is_err() {
                break outcome;
            }
        };
        self.add_held_back();
        Ok(self.settle(outcome))
    }

    /// `/skill:name` and `/template` expanded, as Pi does before a prompt is sent or queued. A
    /// skill that cannot be read leaves the text as typed (Pi does the same).
    fn expand(&self, text: &str) -> String {
        match &self.resources {
            Some(resources) => resources.expand_input(text).0,
            None => text.to_owned(),
        }
    }

    /// The `system` message a prompt opens with when the transcript does not yet declare the
    /// session's prompt and tools; points the agent's prompt at what the transcript will
    /// declare.
    fn declare_system_prompt(&self, extra: &[(String, String)]) -> Option<SystemMessage> {
        let tools = self.tools.active();
        let Some(wanted) = self.system.as_ref() else {
            self.agent.update_state(|state| state.tools = tools);
            return None;
        };
        let wanted = wanted.with_sections(extra);
        self.agent.update_state(|state| {
            state.tools = tools;
            let mut declared = Declared::replay(&state.messages);
            let update = declared.update_to(&wanted, &state.tools);
            state.system_prompt = Some(declared.text().into());
            update
        })
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
        let hook_stop = self.hooks.as_ref().and_then(|h| h.stop_requested());
        let hook_stopped = hook_stop.is_some();
        let reason = if self.meter.tripped() {
            SettledReason::Budget
        } else if outcome == RetryOutcome::Cancelled {
            SettledReason::Aborted
        } else if hook_stopped {
            SettledReason::Hook
        } else {
            from_transcript
        };
        let tally = self.meter.take();
        let settled = Settled {
            aborted: reason == SettledReason::Aborted,
            reason,
            turns: tally.turns,
            usage: tally.usage,
            stop_reason: hook_stop.filter(|_| reason == SettledReason::Hook),
        };
        self.notice(SessionNotice::AgentSettled(settled.clone()));
        settled
    }

    /// Adds messages held back while a prompt ran to the record and the transcript.
    fn add_held_back(&self) {
        let held: Vec<AgentMessage> = std::mem::take(&mut *lock(&self.held_back));
        for message in held {
            self.append_message(message);
        }
    }

    fn append_message(&self, message: AgentMessage) {
        let appended = self
            .record
            .with_file(|file| file.append_message(message.clone()).map(drop));
        if let Some(Err(error)) = appended {
            self.record.keep_error(error);
        }
        self.agent.update_state(|s| s.messages.push(message));
    }
}

impl AgentSession {
    /// Wraps the options' agent with the default retry policy, no budget and a record kept in
    /// memory.
    pub fn new(options: AgentOptions) -> Self {
        Self::builder(options).build()
    }

    /// A builder that creates the agent from `options`, with retry policy and budget.
    pub fn builder(options: AgentOptions) -> SessionBuilder {
        SessionBuilder {
            options,
            retry: RetryPolicy::default(),
            budget: Budget::default(),
            resources: None,
            compaction: CompactionPolicy::default(),
            file: None,
            system: None,
            tools: None,
            before_prompt: None,
            hooks: None,
        }
    }

    /// The agent.
    pub fn agent(&self) -> &Agent {
        &self.inner.agent
    }

    /// The session's record: its file, or its entries in memory.
    pub fn record(&self) -> &SessionRecord {
        &self.inner.record
    }

    /// Calls `listener` for every session event, in order (after the record has written the
    /// entry an event announces).
    pub fn subscribe(&self, listener: impl Fn(&SessionEvent) + Send + Sync + 'static) {
        self.inner.listeners.add(listener);
    }

    /// Puts a restored context into the agent: its transcript becomes the agent's messages, and
    /// the tools it declares that are registered later (a tool search's, whose MCP server is
    /// still connecting) are active again when they are.
    pub fn restore(&self, context: &SessionContext) {
        let messages = context.messages.clone();
        let declared = Declared::replay(&messages).tool_names();
        self.inner.tools.restore(&declared);
        self.agent().update_state(|state| state.messages = messages);
    }

    /// The session's tools.
    pub fn tools(&self) -> &Arc<ToolSet> {
        &self.inner.tools
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
        let guard = self.inner.slot.try_claim().ok_or(SessionError::Busy)?;
        self.run_with(guard, text.to_owned(), images).await
    }

    /// Claims the session for a prompt now and returns the run, to be awaited (or spawned)
    /// later: a caller that must answer "started" before the run's first event (RPC) knows the
    /// prompt was accepted. The session is released when the run ends, panics or is dropped.
    pub fn start_prompt(
        &self,
        text: String,
        images: Vec<ImageContent>,
    ) -> Result<impl Future<Output = Result<Settled, SessionError>> + Send + 'static, SessionError>
    {
        let guard = self.inner.slot.try_claim().ok_or(SessionError::Busy)?;
        let session = self.clone();
        Ok(async move { session.run_with(guard, text, images).await })
    }

    async fn run_with(
        &self,
        _guard: SlotGuard,
        text: String,
        images: Vec<ImageContent>,
    ) -> Result<Settled, SessionError> {
        self.inner.run_prompt(&text, images).await
    }

    /// Whether a prompt or a compaction holds the session.
    pub fn is_busy(&self) -> bool {
        self.inner.slot.is_held()
    }

    /// Queues a steering message (delivered after the current turn's tools).
    pub fn steer(&self, text: &str) {
        self.steer_with_images(text, Vec::new());
    }

    /// Queues a steering message with attached images.
    pub fn steer_with_images(&self, text: &str, images: Vec<ImageContent>) {
        let text = self.inner.expand(text);
        let update = self.inner.queues.push(Queue::Steering, &text);
        self.inner.notice(update);
        self.agent()
            .steer(UserMessage::with_images(text, images).into());
    }

    /// Queues a follow-up message (delivered when the run would stop).
    pub fn follow_up(&self, text: &str) {
        self.follow_up_with_images(text, Vec::new());
    }

    /// Queues a follow-up message with attached images.
    pub fn follow_up_with_images(&self, text: &str, images: Vec<ImageContent>) {
        let text = self.inner.expand(text);
        let update = self.inner.queues.push(Queue::FollowUp, &text);
        self.inner.notice(update);
        self.agent()
            .follow_up(UserMessage::with_images(text, images).into());
    }

    /// Drops both queues, says `queue_update`, and returns what they held (steering,
    /// follow-up texts).
    pub fn clear_queue(&self) -> (Vec<String>, Vec<String>) {
        let removed = self.inner.queues.clear();
        self.agent().clear_all_queues();
        self.inner.notice(self.inner.queues.update());
        removed
    }

    /// How many messages wait in the queues.
    pub fn queued_count(&self) -> usize {
        self.inner.queues.len()
    }

    /// Cancels the active run, retry wait or compaction and waits until the prompt has settled.
    pub async fn abort(&self) {
        self.abort_now();
        self.agent().wait_for_idle().await;
        // Pi 1.6: `agent_settled{aborted:true}` comes before the abort is answered.
        self.inner.slot.wait_free().await;
    }

    /// Cancels the active run or retry wait without waiting (for signal handlers).
    pub fn abort_now(&self) {
        self.inner.slot.cancel();
        self.agent().abort();
    }

    /// Cancels a pending retry wait (`auto_retry_end{success:false, finalError:"Retry
    /// cancelled"}`); a no-op when no retry is waiting.
    pub fn abort_retry(&self) {
        self.inner.retry.cancel_wait();
    }

    /// Turns auto-retry on or off; takes effect at the next failure.
    pub fn set_auto_retry(&self, enabled: bool) {
        self.inner.retry.set_enabled(enabled);
    }

    /// Whether failed runs are retried.
    pub fn auto_retry_enabled(&self) -> bool {
        self.inner.retry.policy().enabled
    }

    /// Turns automatic compaction (threshold and overflow) on or off; `compact` always works.
    pub fn set_auto_compaction(&self, enabled: bool) {
        self.inner.compaction.set_enabled(enabled);
    }

    /// Whether automatic compaction is on.
    pub fn auto_compaction_enabled(&self) -> bool {
        self.inner.compaction.enabled()
    }

    /// Whether a compaction is running.
    pub fn is_compacting(&self) -> bool {
        self.inner.compaction.is_running()
    }

    /// Cancels the compaction in progress, if any (`compaction_end{aborted:true}`).
    pub fn abort_compaction(&self) {
        self.inner.compaction.abort();
    }

    /// Compacts now (RPC `compact`, `/compact [instructions]`): aborts the current run first,
    /// then summarises the older part of the branch. Errors are Pi's: `Already compacted`,
    /// `Nothing to compact (session too small)`, `Compaction cancelled`, or the failed call.
    pub async fn compact(
        &self,
        custom_instructions: Option<&str>,
    ) -> Result<CompactionResult, CompactionError> {
        self.abort().await;
        let _slot = self.inner.slot.claim().await;
        self.inner
            .compaction
            .manual(&self.inner.parts(), custom_instructions)
            .await
    }

    /// Runs the `SessionEnd` hooks (once; `reason` is Claude Code's: `exit`, `clear`, `other`).
    pub async fn end(&self, reason: &str) {
        if let Some(hooks) = &self.inner.hooks {
            hooks.session_end(reason).await;
        }
    }

    /// Adds a message the agent did not produce (a user's `!cmd`, as `bashExecution`) to the
    /// record and the transcript: now when idle, else when the running prompt settles (Pi keeps
    /// a tool call and its result together).
    pub fn add_message(&self, message: AgentMessage) {
        if self.is_busy() {
            lock(&self.inner.held_back).push(message);
        } else {
            self.inner.append_message(message);
        }
    }
}
