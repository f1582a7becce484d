//! The turn loop (pi-reference §4.1–4.3): the double loop of turns, steering and follow-ups, and
//! the streaming of one assistant response. Read `run_loop` top to bottom.

use std::sync::Arc;

use rho_ai::{
    AssistantMessage, AssistantMessageEvent, Context, Message, StopReason, StreamOptions,
    ThinkingLevel, ToolSpec,
};
use tokio_util::sync::CancellationToken;

use crate::config::{LoopConfig, LoopContext};
use crate::event::{AgentEvent, EventSink};
use crate::execute::{BatchContext, ToolTable, execute_tool_calls, fail_truncated_calls};
use crate::hooks::TurnSummary;
use rho_ai::{AgentMessage, default_convert_to_llm};

/// A run that could not proceed normally (pi-reference §3.3 g5 and `agentLoopContinue`'s checks).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LoopError {
    /// `continue` was called on a context it cannot continue from.
    #[error("{0}")]
    CannotContinue(String),
    /// `transformContext` or `convertToLlm` failed; the run ended without normal events.
    #[error("{0}")]
    Hook(String),
}

/// Runs `prompts` against `context`: `agent_start`, `turn_start`, the prompts' message events,
/// then turns until the model stops. Returns the run's new messages.
pub async fn run_agent_loop(
    prompts: Vec<AgentMessage>,
    context: LoopContext,
    config: &LoopConfig,
    cancel: CancellationToken,
    sink: Arc<dyn EventSink>,
) -> Result<Vec<AgentMessage>, LoopError> {
    let mut run = Run::new(context, config, cancel, sink);
    run.emit(AgentEvent::AgentStart);
    run.emit(AgentEvent::TurnStart);
    for prompt in prompts {
        run.add_message(prompt);
    }
    run.run_loop().await
}

/// Where a run starts.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Start {
    /// A prompt, whose own messages declare the tools.
    Prompt,
    /// A continuation: the tools may have changed since the context last declared them.
    Continue,
}

/// Continues from the current context without a new prompt (a retry, or after tool results).
pub async fn run_agent_loop_continue(
    context: LoopContext,
    config: &LoopConfig,
    cancel: CancellationToken,
    sink: Arc<dyn EventSink>,
) -> Result<Vec<AgentMessage>, LoopError> {
    match context.messages.last() {
        None => {
            return Err(LoopError::CannotContinue(
                "Cannot continue: no messages in context".into(),
            ));
        }
        Some(last) if last.as_assistant().is_some() => {
            return Err(LoopError::CannotContinue(
                "Cannot continue from message role: assistant".into(),
            ));
        }
        Some(_) => {}
    }
    let mut run = Run::new(context, config, cancel, sink);
    run.start = Start::Continue;
    run.emit(AgentEvent::AgentStart);
    run.emit(AgentEvent::TurnStart);
    run.run_loop().await
}

/// The state of one run.
pub(crate) struct Run<'c> {
    config: &'c LoopConfig,
    cancel: CancellationToken,
    sink: Arc<dyn EventSink>,
    system_prompt: Option<Arc<str>>,
    messages: Vec<AgentMessage>,
    new_messages: Vec<AgentMessage>,
    tools: ToolTable,
    specs: Arc<[ToolSpec]>,
    /// The default `convertToLlm` of `messages[..llm_synced]`, extended as the context grows, so
    /// a turn costs the same whatever the transcript's length.
    llm_cache: Arc<Vec<Message>>,
    llm_synced: usize,
    start: Start,
}

impl<'c> Run<'c> {
    fn new(
        context: LoopContext,
        config: &'c LoopConfig,
        cancel: CancellationToken,
        sink: Arc<dyn EventSink>,
    ) -> Self {
        let specs: Arc<[ToolSpec]> = context.tools.iter().map(|t| t.spec()).collect();
        Run {
            config,
            cancel,
            sink,
            system_prompt: context.system_prompt,
            messages: context.messages,
            new_messages: Vec::new(),
            tools: ToolTable::new(context.tools),
            specs,
            llm_cache: Arc::default(),
            llm_synced: 0,
            start: Start::Prompt,
        }
    }

    fn emit(&self, event: AgentEvent) {
        self.sink.emit(event);
    }

    /// Emits `message_start`/`message_end` and appends the message to the context.
    fn add_message(&mut self, message: AgentMessage) {
        self.emit(AgentEvent::MessageStart {
            message: message.clone(),
        });
        self.emit(AgentEvent::MessageEnd {
            message: message.clone(),
        });
        self.messages.push(message.clone());
        self.new_messages.push(message);
    }

    fn steering(&self) -> Vec<AgentMessage> {
        self.config
            .messages
            .as_ref()
            .map(|q| q.steering_messages())
            .unwrap_or_default()
    }

    fn follow_ups(&self) -> Vec<AgentMessage> {
        self.config
            .messages
            .as_ref()
            .map(|q| q.follow_up_messages())
            .unwrap_or_default()
    }

    fn end(&mut self) -> Vec<AgentMessage> {
        let messages = std::mem::take(&mut self.new_messages);
        self.emit(AgentEvent::AgentEnd {
            messages: messages.clone(),
            will_retry: false,
        });
        messages
    }

    /// pi-reference §4.2.
    async fn run_loop(&mut self) -> Result<Vec<AgentMessage>, LoopError> {
        let mut first_turn = true;
        let mut pending = self.steering();
        loop {
            let mut has_more_tool_calls = true;
            while has_more_tool_calls || !pending.is_empty() {
                if !first_turn {
                    self.emit(AgentEvent::TurnStart);
                }
                if !first_turn || self.start == Start::Continue {
                    self.declare_tool_changes();
                }
                first_turn = false;
                for message in std::mem::take(&mut pending) {
                    self.add_message(message);
                }

                let assistant = self.stream_assistant_response().await?;
                self.new_messages.push(assistant.clone().into());
                if assistant.stop_reason.is_failure() {
                    self.emit(AgentEvent::TurnEnd {
                        message: assistant.into(),
                        tool_results: Vec::new(),
                    });
                    return Ok(self.end());
                }

                let calls: Vec<_> = assistant.tool_calls().cloned().collect();
                let mut results = Vec::new();
                has_more_tool_calls = false;
                if !calls.is_empty() {
                    let context = BatchContext {
                        tools: &self.tools,
                        config: self.config,
                        cancel: &self.cancel,
                        sink: &self.sink,
                        messages: &self.messages,
                    };
                    // A reply cut by the token limit may carry cut arguments: none runs.
                    let batch = if assistant.stop_reason == StopReason::Length {
                        fail_truncated_calls(&context, &calls)
                    } else {
                        execute_tool_calls(&context, &assistant, calls).await
                    };
                    has_more_tool_calls = !batch.terminate;
                    for result in &batch.messages {
                        self.messages.push(result.clone().into());
                        self.new_messages.push(result.clone().into());
                    }
                    results = batch.messages;
                }
                self.emit(AgentEvent::TurnEnd {
                    message: assistant.clone().into(),
                    tool_results: results.clone(),
                });

                if let Some(gate) = &self.config.turn_gate {
                    let stop = gate.should_stop_after_turn(TurnSummary {
                        message: &assistant,
                        tool_results: &results,
                        context: &self.messages,
                        new_messages: &self.new_messages,
                    });
                    if stop {
                        return Ok(self.end());
                    }
                }
                pending = self.steering();
                if has_more_tool_calls || !pending.is_empty() {
                    self.prepare_next_turn().await;
                    // Preparing may take long (a compaction): steering queued meanwhile joins.
                    if pending.is_empty() {
                        pending = self.steering();
                    }
                }
            }
            let mut follow_ups = self.follow_ups();
            if follow_ups.is_empty()
                && let Some(hook) = &self.config.stop
                && !self.cancel.is_cancelled()
            {
                follow_ups = hook
                    .before_stop(&self.messages, &self.cancel)
                    .await
                    .unwrap_or_default();
            }
            if follow_ups.is_empty() || self.cancel.is_cancelled() {
                break;
            }
            pending = follow_ups;
            self.prepare_next_turn().await;
        }
        Ok(self.end())
    }

    /// Pi 1.6's `declareToolChanges`: the host may change the tools of the turn that starts;
    /// the `system` message declaring the change joins the context first.
    fn declare_tool_changes(&mut self) {
        let Some(hook) = &self.config.tool_changes else {
            return;
        };
        let Some(change) = hook.tool_changes(&self.messages) else {
            return;
        };
        self.specs = change.tools.iter().map(|t| t.spec()).collect();
        self.tools = ToolTable::new(change.tools);
        if let Some(message) = change.message {
            self.add_message(message);
        }
    }

    /// Pi 1.6's `prepareNextTurn`: the host may replace the context before the next turn (a
    /// mid-run compaction); the converted messages are then built again from the new context.
    async fn prepare_next_turn(&mut self) {
        let Some(hook) = &self.config.next_turn else {
            return;
        };
        if let Some(messages) = hook.prepare_next_turn(&self.messages, &self.cancel).await {
            self.messages = messages;
            self.llm_cache = Arc::default();
            self.llm_synced = 0;
        }
    }

    /// pi-reference §4.3: one model call, forwarded as message events; the final message is added
    /// to the context.
    async fn stream_assistant_response(&mut self) -> Result<Arc<AssistantMessage>, LoopError> {
        let llm_messages = self.llm_messages().await?;
        let context = Context {
            system_prompt: self.system_prompt.clone(),
            messages: llm_messages,
            tools: self.specs.clone(),
        };
        let options = StreamOptions {
            api_key: self.config.api_key.clone(),
            reasoning: self.config.reasoning,
            session_id: self.config.session_id.clone(),
            cancel: self.cancel.clone(),
            ..StreamOptions::default()
        };
        let called_at = std::time::Instant::now();
        let mut stream = self
            .config
            .provider
            .stream(&self.config.model, context, options);

        let mut started = false;
        while let Some(event) = stream.next().await {
            match &event {
                AssistantMessageEvent::Start { partial } => {
                    started = true;
                    self.emit(AgentEvent::MessageStart {
                        message: partial.clone().into(),
                    });
                }
                AssistantMessageEvent::Done { .. } | AssistantMessageEvent::Error { .. } => break,
                _ if started => {
                    if let Some(partial) = event.partial() {
                        let message = partial.clone().into();
                        self.emit(AgentEvent::MessageUpdate {
                            message,
                            assistant_message_event: event,
                        });
                    }
                }
                _ => {}
            }
        }
        let mut final_message = stream.result().await;
        // Pi 1.6: how long the call took (monotonic, from the stream's creation) and the level
        // it asked for.
        final_message.duration_ms = Some(called_at.elapsed().as_millis() as u64);
        final_message.thinking_level = Some(self.config.reasoning.unwrap_or(ThinkingLevel::Off));
        let final_message = Arc::new(final_message);
        let message: AgentMessage = final_message.clone().into();
        if !started {
            self.emit(AgentEvent::MessageStart {
                message: message.clone(),
            });
        }
        self.emit(AgentEvent::MessageEnd {
            message: message.clone(),
        });
        self.messages.push(message);
        Ok(final_message)
    }

    async fn llm_messages(&mut self) -> Result<Arc<Vec<Message>>, LoopError> {
        let hooks = match &self.config.context_hooks {
            Some(hooks) if !hooks.converts_each_message_alone() => hooks,
            incremental => {
                let unsynced = &self.messages[self.llm_synced..];
                if !unsynced.is_empty() {
                    let converted = match incremental {
                        Some(hooks) => hooks
                            .convert_to_llm(unsynced)
                            .map_err(|e| LoopError::Hook(e.0))?,
                        None => default_convert_to_llm(unsynced),
                    };
                    // Copies only if a provider still holds the previous call's context.
                    Arc::make_mut(&mut self.llm_cache).extend(converted);
                    self.llm_synced = self.messages.len();
                }
                return Ok(self.llm_cache.clone());
            }
        };
        let messages = hooks
            .transform_context(self.messages.clone(), &self.cancel)
            .await
            .map_err(|e| LoopError::Hook(e.0))?;
        let converted = hooks
            .convert_to_llm(&messages)
            .map_err(|e| LoopError::Hook(e.0))?;
        Ok(Arc::new(converted))
    }
}
