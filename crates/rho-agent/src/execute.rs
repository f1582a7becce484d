//! Tool execution for one assistant message (pi-reference §4.4): preflight in source order,
//! execution in parallel or in sequence, results in source order, and the batch `terminate` rule.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use std::time::Instant;

use futures::FutureExt;
use futures::stream::{FuturesUnordered, StreamExt};
use rho_ai::{AgentMessage, AssistantMessage, ContentBlock, ToolCall, ToolResultMessage, now_ms};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::config::{LoopConfig, ToolExecution};
use crate::event::{AgentEvent, EventSink, ToolResultPayload};
use crate::hooks::{AfterToolCall, BeforeToolCall, BeforeToolCallDecision};
use crate::tool::{AgentTool, ExecutionMode, ToolContext, ToolOutput, ToolUpdates};
use crate::validate::ArgumentValidator;

/// The text of a refusal by `beforeToolCall` without a reason.
pub const BLOCKED: &str = "Tool execution was blocked";

/// The result of a call the run's abort reached before it started (Pi's `Operation aborted`).
pub const OPERATION_ABORTED: &str = "Operation aborted";

/// A tool with its schema, compiled on first use (or the reason it does not compile).
type ToolEntry = (
    Arc<dyn AgentTool>,
    OnceLock<Result<ArgumentValidator, String>>,
);

/// The run's tools by name.
pub(crate) struct ToolTable {
    tools: HashMap<String, ToolEntry>,
}

impl ToolTable {
    pub fn new(tools: Vec<Arc<dyn AgentTool>>) -> Self {
        let mut map = HashMap::with_capacity(tools.len());
        for tool in tools {
            // The first tool of a name wins, as Pi's `tools.find` does.
            map.entry(tool.name().to_owned())
                .or_insert((tool, OnceLock::new()));
        }
        ToolTable { tools: map }
    }

    fn get(&self, name: &str) -> Option<&Arc<dyn AgentTool>> {
        self.tools.get(name).map(|(tool, _)| tool)
    }

    fn validate(
        &self,
        tool: &dyn AgentTool,
        args: &Value,
        received: &Value,
    ) -> Result<Value, String> {
        let Some((_, validator)) = self.tools.get(tool.name()) else {
            return Err(format!("Tool {} not found", tool.name()));
        };
        let validator = validator.get_or_init(|| {
            ArgumentValidator::compile(tool.name(), tool.parameters()).map_err(|e| e.to_string())
        });
        match validator {
            Ok(validator) => validator.validate_reporting(tool.name(), args, received),
            Err(schema_error) => Err(schema_error.clone()),
        }
    }
}

/// A result ready to become a tool-result message.
struct Finalized {
    output: ToolOutput,
    is_error: bool,
    duration_ms: Option<u64>,
}

impl Finalized {
    /// A refusal or failure before execution: text, `details: {}`, no duration.
    fn refusal(text: String, terminate: Option<bool>) -> Self {
        Finalized {
            output: ToolOutput {
                content: vec![ContentBlock::text(text)],
                details: Some(Value::Object(Default::default())),
                terminate,
                ..ToolOutput::default()
            },
            is_error: true,
            duration_ms: None,
        }
    }

    /// An executed call that ended in error never terminates the batch (as in Pi); the one
    /// exception, a block with `terminate`, is built by [`Finalized::refusal`].
    fn without_error_terminate(mut self) -> Self {
        if self.is_error {
            self.output.terminate = None;
        }
        self
    }

    fn failure_output(text: String) -> ToolOutput {
        ToolOutput {
            content: vec![ContentBlock::text(text)],
            details: Some(Value::Object(Default::default())),
            ..ToolOutput::default()
        }
    }
}

/// A call that passed preflight.
struct Prepared {
    tool: Arc<dyn AgentTool>,
    args: Value,
}

enum Preflight {
    /// Boxed: a finalized result is large, and most calls are ready.
    Refused(Box<Finalized>),
    Ready(Prepared),
}

impl Preflight {
    fn refused(text: String, terminate: Option<bool>) -> Self {
        Preflight::Refused(Box::new(Finalized::refusal(text, terminate)))
    }
}

/// What a batch may touch of the run that started it: the tools, the hooks, the cancellation,
/// the event sink and (read-only, for the hooks) the context so far.
pub(crate) struct BatchContext<'a> {
    /// The run's tools.
    pub tools: &'a ToolTable,
    /// Parallel or sequential, and the tool hooks.
    pub config: &'a LoopConfig,
    /// The run's cancellation.
    pub cancel: &'a CancellationToken,
    /// Where events go.
    pub sink: &'a Arc<dyn EventSink>,
    /// The context so far.
    pub messages: &'a [AgentMessage],
}

impl BatchContext<'_> {
    fn emit(&self, event: AgentEvent) {
        self.sink.emit(event);
    }
}

/// The results of one batch.
pub(crate) struct Batch {
    pub messages: Vec<Arc<ToolResultMessage>>,
    pub terminate: bool,
}

/// Executes every tool call of `assistant`.
pub(crate) async fn execute_tool_calls(
    run: &BatchContext<'_>,
    assistant: &AssistantMessage,
    calls: Vec<ToolCall>,
) -> Batch {
    let sequential = run.config.tool_execution == ToolExecution::Sequential
        || calls.iter().any(|call| {
            run.tools
                .get(&call.name)
                .is_some_and(|t| t.execution_mode() == ExecutionMode::Sequential)
        });
    let results = if sequential {
        execute_sequential(run, assistant, &calls).await
    } else {
        let finalized = execute_parallel(run, assistant, &calls).await;
        // Result messages follow source order, after every tool finished.
        finalized
            .into_iter()
            .zip(&calls)
            .map(|(f, call)| {
                let terminate = f.output.terminate == Some(true);
                let message = tool_result_message(call, f);
                emit_result_message(run, &message);
                (terminate, message)
            })
            .collect()
    };
    let terminate = !results.is_empty() && results.iter().all(|(terminate, _)| *terminate);
    let messages = results.into_iter().map(|(_, message)| message).collect();
    Batch {
        messages,
        terminate,
    }
}

/// Fails every call of a reply that stopped at the output token limit: their arguments may be
/// cut short, so none runs (Pi's `failToolCallsFromTruncatedMessage`). The loop goes on.
pub(crate) fn fail_truncated_calls(run: &BatchContext<'_>, calls: &[ToolCall]) -> Batch {
    let messages = calls
        .iter()
        .map(|call| {
            emit_start(run, call);
            let refusal = Finalized::refusal(
                format!(
                    "Tool call \"{}\" was not executed: the response hit the output token limit, so its arguments may be truncated. Re-issue the tool call with complete arguments.",
                    call.name
                ),
                None,
            );
            emit_end(run, call, &refusal);
            let message = tool_result_message(call, refusal);
            emit_result_message(run, &message);
            message
        })
        .collect();
    Batch {
        messages,
        terminate: false,
    }
}

async fn execute_sequential(
    run: &BatchContext<'_>,
    assistant: &AssistantMessage,
    calls: &[ToolCall],
) -> Vec<(bool, Arc<ToolResultMessage>)> {
    let mut results = Vec::with_capacity(calls.len());
    for call in calls {
        emit_start(run, call);
        let finalized = match preflight(run, assistant, call).await {
            Preflight::Refused(refusal) => *refusal,
            Preflight::Ready(prepared) => {
                execute_and_finalize(run, assistant, call, prepared).await
            }
        };
        emit_end(run, call, &finalized);
        let terminate = finalized.output.terminate == Some(true);
        let message = tool_result_message(call, finalized);
        emit_result_message(run, &message);
        results.push((terminate, message));
    }
    results
}

async fn execute_parallel(
    run: &BatchContext<'_>,
    assistant: &AssistantMessage,
    calls: &[ToolCall],
) -> Vec<Finalized> {
    let mut slots: Vec<Option<Finalized>> = Vec::with_capacity(calls.len());
    let mut ready = Vec::new();
    for (index, call) in calls.iter().enumerate() {
        emit_start(run, call);
        match preflight(run, assistant, call).await {
            Preflight::Refused(refusal) => {
                emit_end(run, call, &refusal);
                slots.push(Some(*refusal));
            }
            Preflight::Ready(prepared) => {
                slots.push(None);
                ready.push((index, call, prepared));
            }
        }
    }
    let mut running: FuturesUnordered<_> = ready
        .into_iter()
        .map(|(index, call, prepared)| async move {
            // An abort during the preflight of later calls reaches the prepared ones unstarted.
            let finalized = if run.cancel.is_cancelled() {
                Finalized::refusal(OPERATION_ABORTED.into(), None)
            } else {
                execute_and_finalize(run, assistant, call, prepared).await
            };
            emit_end(run, call, &finalized);
            (index, finalized)
        })
        .collect();
    while let Some((index, finalized)) = running.next().await {
        if let Some(slot) = slots.get_mut(index) {
            *slot = Some(finalized);
        }
    }
    slots
        .into_iter()
        .map(|slot| slot.unwrap_or_else(|| Finalized::refusal("Tool did not finish".into(), None)))
        .collect()
}

/// Aborted? Registered? Arguments prepared and valid? Allowed by `beforeToolCall`? In that
/// order (Pi's `prepareToolCall`): once the run is aborted, no call is prepared or shown to the
/// hooks, but each still gets a result.
async fn preflight(
    run: &BatchContext<'_>,
    assistant: &AssistantMessage,
    call: &ToolCall,
) -> Preflight {
    if run.cancel.is_cancelled() {
        return Preflight::refused(OPERATION_ABORTED.into(), None);
    }
    let Some(tool) = run.tools.get(&call.name) else {
        return Preflight::refused(format!("Tool {} not found", call.name), None);
    };
    let prepared = match guarded(|| tool.prepare_arguments(call.arguments.clone())) {
        Ok(Ok(args)) => args,
        Ok(Err(e)) => return Preflight::refused(e.0, None),
        Err(panic) => return Preflight::refused(panic, None),
    };
    let args = match run
        .tools
        .validate(tool.as_ref(), &prepared, &call.arguments)
    {
        Ok(args) => args,
        Err(text) => return Preflight::refused(text, None),
    };
    if let Some(hooks) = &run.config.tool_hooks {
        let revalidate = |other: &Value| -> Result<Value, String> {
            let prepared = guarded(|| tool.prepare_arguments(other.clone()))?.map_err(|e| e.0)?;
            run.tools.validate(tool.as_ref(), &prepared, other)
        };
        let decision = std::panic::AssertUnwindSafe(hooks.before_tool_call(
            BeforeToolCall {
                assistant_message: assistant,
                tool_call: call,
                args: &args,
                context: run.messages,
                annotations: tool.annotations(),
                revalidate: &revalidate,
            },
            run.cancel,
        ))
        .catch_unwind()
        .await;
        if run.cancel.is_cancelled() {
            return Preflight::refused(OPERATION_ABORTED.into(), None);
        }
        match decision {
            Ok(Ok(Some(decision))) if decision.block => {
                let reason = decision.reason.unwrap_or_else(|| BLOCKED.to_owned());
                return Preflight::refused(reason, decision.terminate);
            }
            Ok(Ok(Some(BeforeToolCallDecision {
                args: Some(updated),
                ..
            }))) => {
                return Preflight::Ready(Prepared {
                    tool: tool.clone(),
                    args: updated,
                });
            }
            Ok(Ok(_)) => {}
            Ok(Err(e)) => return Preflight::refused(e.0, None),
            Err(panic) => return Preflight::refused(panic_text(panic), None),
        }
    }
    Preflight::Ready(Prepared {
        tool: tool.clone(),
        args,
    })
}

/// Runs `execute` (a panic becomes an error result), then `afterToolCall`.
async fn execute_and_finalize(
    run: &BatchContext<'_>,
    assistant: &AssistantMessage,
    call: &ToolCall,
    prepared: Prepared,
) -> Finalized {
    let updates = ToolUpdates::new(Arc::clone(run.sink), &call.id, &call.name, &call.arguments);
    let context = tool_context(run.config);
    let started = Instant::now();
    let executed = std::panic::AssertUnwindSafe(prepared.tool.execute_in(
        &call.id,
        prepared.args.clone(),
        run.cancel.clone(),
        updates.clone(),
        &context,
    ))
    .catch_unwind()
    .await;
    updates.close();
    let duration_ms = Some(started.elapsed().as_millis() as u64);
    let (output, is_error) = match executed {
        Ok(Ok(output)) => {
            let is_error = output.is_error.unwrap_or(false);
            (output, is_error)
        }
        Ok(Err(e)) => (Finalized::failure_output(e.0), true),
        Err(panic) => (Finalized::failure_output(panic_text(panic)), true),
    };

    let Some(hooks) = &run.config.tool_hooks else {
        return Finalized {
            output,
            is_error,
            duration_ms,
        }
        .without_error_terminate();
    };
    let overridden = std::panic::AssertUnwindSafe(hooks.after_tool_call(
        AfterToolCall {
            assistant_message: assistant,
            tool_call: call,
            args: &prepared.args,
            result: &output,
            is_error,
            context: run.messages,
        },
        run.cancel,
    ))
    .catch_unwind()
    .await;
    match overridden {
        Ok(Ok(None)) => Finalized {
            output,
            is_error,
            duration_ms,
        },
        Ok(Ok(Some(o))) => Finalized {
            output: ToolOutput {
                // Structured content may no longer match content that was replaced (as in Pi).
                structured_content: match o.content {
                    Some(_) => None,
                    None => output.structured_content,
                },
                content: o.content.unwrap_or(output.content),
                details: o.details.or(output.details),
                terminate: o.terminate.or(output.terminate),
                ..output
            },
            is_error: o.is_error.unwrap_or(is_error),
            duration_ms,
        },
        Ok(Err(e)) => Finalized {
            output: Finalized::failure_output(e.0),
            is_error: true,
            duration_ms,
        },
        Err(panic) => Finalized {
            output: Finalized::failure_output(panic_text(panic)),
            is_error: true,
            duration_ms,
        },
    }
    .without_error_terminate()
}

/// What the call knows of its session, read when it starts.
fn tool_context(config: &LoopConfig) -> ToolContext {
    ToolContext {
        session_id: config.session_id.clone(),
        session_file: config.session_file.clone(),
        model: Some(config.model.clone()),
        thinking_level: Some(config.reasoning.unwrap_or_default()),
    }
}

fn guarded<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(panic_text)
}

fn panic_text(panic: Box<dyn std::any::Any + Send>) -> String {
    let message = panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_owned());
    format!("Tool panicked: {message}")
}

fn emit_start(run: &BatchContext<'_>, call: &ToolCall) {
    run.emit(AgentEvent::ToolExecutionStart {
        tool_call_id: call.id.clone(),
        tool_name: call.name.clone(),
        args: call.arguments.clone(),
    });
}

fn emit_end(run: &BatchContext<'_>, call: &ToolCall, f: &Finalized) {
    run.emit(AgentEvent::ToolExecutionEnd {
        tool_call_id: call.id.clone(),
        tool_name: call.name.clone(),
        result: ToolResultPayload {
            content: f.output.content.clone(),
            details: f.output.details.clone(),
            structured_content: f.output.structured_content.clone(),
            is_error: f.output.is_error,
            usage: f.output.usage.clone(),
            terminate: f.output.terminate,
        },
        is_error: f.is_error,
        duration_ms: f.duration_ms,
    });
}

fn tool_result_message(call: &ToolCall, f: Finalized) -> Arc<ToolResultMessage> {
    Arc::new(ToolResultMessage {
        tool_call_id: call.id.clone(),
        tool_name: call.name.clone(),
        content: f.output.content,
        details: f.output.details,
        is_error: f.is_error,
        duration_ms: f.duration_ms,
        usage: f.output.usage,
        timestamp: now_ms(),
    })
}

fn emit_result_message(run: &BatchContext<'_>, message: &Arc<ToolResultMessage>) {
    run.emit(AgentEvent::MessageStart {
        message: message.clone().into(),
    });
    run.emit(AgentEvent::MessageEnd {
        message: message.clone().into(),
    });
}
