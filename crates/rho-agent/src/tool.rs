//! The tool contract: what a tool declares, what `execute` receives and what it returns.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use async_trait::async_trait;
use rho_ai::{ContentBlock, Model, ThinkingLevel, ToolSpec, Usage};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::event::{AgentEvent, EventSink};

/// Whether a tool may run beside others in one batch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ExecutionMode {
    /// Runs concurrently with the other calls of the batch.
    #[default]
    Parallel,
    /// Forces the whole batch to run one call after another.
    Sequential,
}

/// What a tool returns: `content` for the model, `details` for programs (never sent to the model).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolOutput {
    /// What the model reads.
    pub content: Vec<ContentBlock>,
    /// Data for programs and screens.
    pub details: Option<Value>,
    /// Structured output, not sent to the model unless the host merges it into `content`.
    pub structured_content: Option<Value>,
    /// Usage of a tool that itself called a model.
    pub usage: Option<Usage>,
    /// Asks the loop to stop after this batch (only if every result of the batch asks).
    pub terminate: Option<bool>,
    /// A tool may report failure without returning `Err`.
    pub is_error: Option<bool>,
}

impl ToolOutput {
    /// A result with one text block and no details.
    pub fn text(text: impl Into<String>) -> Self {
        ToolOutput {
            content: vec![ContentBlock::text(text)],
            ..ToolOutput::default()
        }
    }
}

/// A tool failure; its message becomes the text of an error result.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ToolError(pub String);

impl ToolError {
    /// A failure with `message`.
    pub fn new(message: impl Into<String>) -> Self {
        ToolError(message.into())
    }
}

/// Lets a running tool report progress as `tool_execution_update` events. Updates sent after
/// the call finished are dropped, so none can follow its `tool_execution_end`.
#[derive(Clone)]
pub struct ToolUpdates {
    sink: Arc<dyn EventSink>,
    tool_call_id: String,
    tool_name: String,
    args: Value,
    open: Arc<AtomicBool>,
}

impl ToolUpdates {
    pub(crate) fn new(
        sink: Arc<dyn EventSink>,
        tool_call_id: &str,
        tool_name: &str,
        args: &Value,
    ) -> Self {
        ToolUpdates {
            sink,
            tool_call_id: tool_call_id.to_owned(),
            tool_name: tool_name.to_owned(),
            args: args.clone(),
            open: Arc::new(AtomicBool::new(true)),
        }
    }

    /// Ends the call's updates: later `send`s do nothing.
    pub(crate) fn close(&self) {
        self.open.store(false, Ordering::Release);
    }

    /// Emits `tool_execution_update` with `partial_result` (conventionally `{content, details}`).
    pub fn send(&self, partial_result: Value) {
        if !self.open.load(Ordering::Acquire) {
            return;
        }
        self.sink.emit(AgentEvent::ToolExecutionUpdate {
            tool_call_id: self.tool_call_id.clone(),
            tool_name: self.tool_name.clone(),
            args: self.args.clone(),
            partial_result,
        });
    }
}

/// What a call knows of the session it runs in (Pi's `ctx`), taken by the loop when the call
/// starts: the tools never reach into the session for it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ToolContext {
    /// The session's id.
    pub session_id: Option<String>,
    /// The session file, when the session is kept on disk.
    pub session_file: Option<PathBuf>,
    /// The model of the run.
    pub model: Option<Model>,
    /// The run's thinking level (`off` when it does not reason).
    pub thinking_level: Option<ThinkingLevel>,
}

/// What a tool says of itself (MCP's tool annotations): hints, never guarantees; the host's gate
/// may rely on `read_only_hint` to let a tool run in read-only mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ToolAnnotations {
    /// The tool does not change its environment.
    pub read_only_hint: Option<bool>,
    /// The tool may destroy data.
    pub destructive_hint: Option<bool>,
    /// Calling it twice with the same arguments does nothing more.
    pub idempotent_hint: Option<bool>,
    /// The tool reaches outside (the network, other systems).
    pub open_world_hint: Option<bool>,
}

/// A tool the model may call. The host decides whether a proposed call runs; the tool only runs it.
#[async_trait]
pub trait AgentTool: Send + Sync {
    /// The name the model calls it by.
    fn name(&self) -> &str;
    /// Display label.
    fn label(&self) -> &str {
        self.name()
    }
    /// Description sent to the model.
    fn description(&self) -> &str;
    /// JSON Schema of the arguments.
    fn parameters(&self) -> &Value;
    /// Parallel (default) or sequential.
    fn execution_mode(&self) -> ExecutionMode {
        ExecutionMode::Parallel
    }
    /// How a provider may constrain sampling to the schema, as a `system` message declares the
    /// tool (Pi 1.6 declares `{"type":"json_schema","strict":"prefer"}` on read, bash, edit and
    /// write); `None` for no preference.
    fn constrained_sampling(&self) -> Option<Value> {
        None
    }
    /// What the tool says of itself (none by default).
    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations::default()
    }
    /// Reshapes raw arguments before validation (for compatibility shims).
    fn prepare_arguments(&self, args: Value) -> Result<Value, ToolError> {
        Ok(args)
    }
    /// Runs the call with validated arguments. `cancel` fires when the run is aborted.
    async fn execute(
        &self,
        tool_call_id: &str,
        args: Value,
        cancel: CancellationToken,
        updates: ToolUpdates,
    ) -> Result<ToolOutput, ToolError>;

    /// Runs the call knowing the session it runs in; the loop calls this. The default ignores
    /// `context` and calls [`AgentTool::execute`].
    async fn execute_in(
        &self,
        tool_call_id: &str,
        args: Value,
        cancel: CancellationToken,
        updates: ToolUpdates,
        context: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let _ = context;
        self.execute(tool_call_id, args, cancel, updates).await
    }

    /// The specification sent to the model.
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: self.name().to_owned(),
            description: self.description().to_owned(),
            parameters: self.parameters().clone(),
        }
    }
}
