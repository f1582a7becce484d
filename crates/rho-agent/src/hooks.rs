//! The small traits through which the loop calls out (pi-reference §4.5). Every method has a
//! default that does nothing, so a host implements only what it needs.

use async_trait::async_trait;
use rho_ai::{AssistantMessage, ContentBlock, Message, ToolCall, ToolResultMessage};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::tool::ToolOutput;
use rho_ai::{AgentMessage, default_convert_to_llm};

/// A hook failure; in tool hooks it becomes an error result, in context hooks it ends the run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct HookError(pub String);

/// What `before_tool_call` sees.
pub struct BeforeToolCall<'a> {
    /// The assistant message that proposed the call.
    pub assistant_message: &'a AssistantMessage,
    /// The original call.
    pub tool_call: &'a ToolCall,
    /// The validated, coerced arguments.
    pub args: &'a Value,
    /// The context so far.
    pub context: &'a [AgentMessage],
    /// What the tool says of itself (an MCP tool's `readOnlyHint`).
    pub annotations: crate::tool::ToolAnnotations,
    /// Prepares and validates other arguments for this tool as the loop validated `args` (a
    /// hook that rewrites the input checks its rewrite here): the coerced arguments, or the
    /// error text the model would see.
    pub revalidate: &'a (dyn Fn(&Value) -> Result<Value, String> + Send + Sync),
}

/// `{block, reason?, terminate?}`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BeforeToolCallDecision {
    /// Refuse the call.
    pub block: bool,
    /// The refusal text (default `Tool execution was blocked`).
    pub reason: Option<String>,
    /// rho: the refusal also asks the batch to terminate.
    pub terminate: Option<bool>,
    /// rho: the call runs with these arguments instead (validated through
    /// [`BeforeToolCall::revalidate`]); ignored when `block` is set.
    pub args: Option<Value>,
}

/// What `after_tool_call` sees.
pub struct AfterToolCall<'a> {
    /// The assistant message that proposed the call.
    pub assistant_message: &'a AssistantMessage,
    /// The original call.
    pub tool_call: &'a ToolCall,
    /// The validated arguments.
    pub args: &'a Value,
    /// What the tool produced (or the error result built from its failure).
    pub result: &'a ToolOutput,
    /// Whether that is an error.
    pub is_error: bool,
    /// The context so far.
    pub context: &'a [AgentMessage],
}

/// Field-wise override of a result; `None` keeps the tool's value (no deep merge).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AfterToolCallOverride {
    /// Replaces `content`.
    pub content: Option<Vec<ContentBlock>>,
    /// Replaces `details`.
    pub details: Option<Value>,
    /// Replaces `isError`.
    pub is_error: Option<bool>,
    /// Replaces `terminate`.
    pub terminate: Option<bool>,
}

/// Hooks around each tool call: the host's permission check and result rewriting.
#[async_trait]
pub trait ToolHooks: Send + Sync {
    /// Runs after validation, before `execute`; may block the call.
    async fn before_tool_call(
        &self,
        _call: BeforeToolCall<'_>,
        _cancel: &CancellationToken,
    ) -> Result<Option<BeforeToolCallDecision>, HookError> {
        Ok(None)
    }

    /// Runs after `execute`, before `tool_execution_end`; may override fields of the result.
    async fn after_tool_call(
        &self,
        _call: AfterToolCall<'_>,
        _cancel: &CancellationToken,
    ) -> Result<Option<AfterToolCallOverride>, HookError> {
        Ok(None)
    }
}

/// Hooks that shape what the model sees on every call.
#[async_trait]
pub trait ContextHooks: Send + Sync {
    /// Prunes or injects agent messages before conversion.
    async fn transform_context(
        &self,
        messages: Vec<AgentMessage>,
        _cancel: &CancellationToken,
    ) -> Result<Vec<AgentMessage>, HookError> {
        Ok(messages)
    }

    /// Maps agent messages to LLM messages.
    fn convert_to_llm(&self, messages: &[AgentMessage]) -> Result<Vec<Message>, HookError> {
        Ok(default_convert_to_llm(messages))
    }

    /// `true` when `transform_context` is the identity and `convert_to_llm` maps each message on
    /// its own: the loop then converts only the messages added since its last model call, so a
    /// turn's cost does not grow with the transcript.
    fn converts_each_message_alone(&self) -> bool {
        false
    }
}

/// Where queued steering and follow-up messages come from.
pub trait MessageSource: Send + Sync {
    /// Polled at the start of the run and after every turn.
    fn steering_messages(&self) -> Vec<AgentMessage>;
    /// Polled when the run would otherwise stop.
    fn follow_up_messages(&self) -> Vec<AgentMessage>;
}

/// What `should_stop_after_turn` sees.
pub struct TurnSummary<'a> {
    /// The turn's assistant message.
    pub message: &'a AssistantMessage,
    /// Its tool results.
    pub tool_results: &'a [std::sync::Arc<ToolResultMessage>],
    /// The whole context.
    pub context: &'a [AgentMessage],
    /// The run's new messages.
    pub new_messages: &'a [AgentMessage],
}

/// Prepares the next turn of a run that goes on (Pi 1.6's `prepareNextTurn`): called after a
/// `turn_end` whose run continues, before the next `turn_start`. The session compacts here when
/// the context passed the threshold mid-run.
#[async_trait]
pub trait NextTurnHook: Send + Sync {
    /// `Some(messages)` replaces the run's context for the turns that follow (the compacted
    /// view); `None` keeps it.
    async fn prepare_next_turn(
        &self,
        context: &[AgentMessage],
        cancel: &CancellationToken,
    ) -> Option<Vec<AgentMessage>>;
}

/// The tools of the turn about to start, and the `system` message declaring how they changed.
pub struct ToolChange {
    /// Every tool the model may call from this turn on.
    pub tools: Vec<std::sync::Arc<dyn crate::tool::AgentTool>>,
    /// Added to the context right after `turn_start` (Pi 1.6: `toolsAdded`/`toolsRemoved`).
    pub message: Option<AgentMessage>,
}

/// Pi 1.6's `declareToolChanges`: at the start of each turn of a run (but the first turn of a
/// prompt, which the prompt's own `system` message declares), the host may change the run's
/// tools — a tool search loaded some, an MCP server connected or withdrew one.
pub trait ToolChangeHook: Send + Sync {
    /// `Some` when the tools differ from those the context declares.
    fn tool_changes(&self, context: &[AgentMessage]) -> Option<ToolChange>;
}

/// Called when a run would end because the model stopped (no tool calls, no steering, no
/// follow-ups): Claude Code's `Stop` hook. Returning messages makes the run go on with them as
/// follow-ups.
#[async_trait]
pub trait StopHook: Send + Sync {
    /// `Some(messages)` continues the run with `messages`; `None` lets it end.
    async fn before_stop(
        &self,
        context: &[AgentMessage],
        cancel: &CancellationToken,
    ) -> Option<Vec<AgentMessage>>;
}

/// Decides after each `turn_end` whether the run ends at once (budgets live here).
pub trait TurnGate: Send + Sync {
    /// `true` ends the run without polling steering or follow-ups.
    fn should_stop_after_turn(&self, turn: TurnSummary<'_>) -> bool;
}
