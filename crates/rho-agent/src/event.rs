//! Agent events (pi-reference §3.1, as Pi 1.6 prints them: delta §1) plus rho's `durationMs` on
//! `tool_execution_end`.

use std::sync::Arc;

use rho_ai::{AssistantMessageEvent, ContentBlock, ToolResultMessage, Usage};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use rho_ai::AgentMessage;

/// One event of a run. Serializes to Pi 1.6's JSON (`{"type":"turn_start"}`, …); only written,
/// never read back.
// Each event is built once and handed to the sink by value; boxing the large streaming variant
// would cost an allocation per streamed delta for no gain.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum AgentEvent {
    /// A run begins.
    AgentStart,
    /// A turn begins: at most one model call plus its tool calls.
    TurnStart,
    /// A message is being added to the context.
    MessageStart {
        /// The message (for an assistant, the empty partial).
        message: AgentMessage,
    },
    /// A streamed assistant delta (only `text_*`, `thinking_*`, `toolcall_*`). Pi 1.6 prints
    /// `{type, usage, assistantMessageEvent}`: the partial's usage and the delta alone.
    MessageUpdate {
        /// Snapshot of the partial assistant message (printed as its `usage`).
        #[serde(rename = "usage", serialize_with = "usage_of")]
        message: AgentMessage,
        /// The provider event (printed without its `partial`).
        #[serde(serialize_with = "rho_ai::wire_event::serialize_delta_only")]
        assistant_message_event: AssistantMessageEvent,
    },
    /// A message was added to the context.
    MessageEnd {
        /// The final message.
        message: AgentMessage,
    },
    /// A tool call enters preflight.
    ToolExecutionStart {
        /// The call id.
        tool_call_id: String,
        /// The tool name asked for.
        tool_name: String,
        /// Raw arguments, before preparation and validation.
        args: Value,
    },
    /// A running tool reported progress.
    ToolExecutionUpdate {
        /// The call id.
        tool_call_id: String,
        /// The tool name.
        tool_name: String,
        /// Raw arguments.
        args: Value,
        /// What the tool reported.
        partial_result: Value,
    },
    /// A tool call finished: executed, refused or failed.
    ToolExecutionEnd {
        /// The call id.
        tool_call_id: String,
        /// The tool name.
        tool_name: String,
        /// The finalized result.
        result: ToolResultPayload,
        /// Whether it is an error result.
        is_error: bool,
        /// rho: wall time of `execute`; present iff the tool executed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        duration_ms: Option<u64>,
    },
    /// A turn ended.
    TurnEnd {
        /// The turn's assistant message.
        message: AgentMessage,
        /// Its tool results, in source order (each written as a message, with its `role`).
        #[serde(serialize_with = "tool_result_messages")]
        tool_results: Vec<Arc<ToolResultMessage>>,
    },
    /// A run ended.
    AgentEnd {
        /// The run's new messages.
        messages: Vec<AgentMessage>,
        /// Pi 1.6: whether an automatic retry follows. The agent says `false`; the session,
        /// which owns retries, says what it will do.
        will_retry: bool,
    },
}

/// Tool results as messages: `{"role":"toolResult", …}`, as Pi writes `turn_end.toolResults`.
fn tool_result_messages<S: serde::Serializer>(
    results: &[Arc<ToolResultMessage>],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    #[serde(tag = "role")]
    enum Tagged<'a> {
        #[serde(rename = "toolResult")]
        ToolResult(&'a ToolResultMessage),
    }
    serializer.collect_seq(results.iter().map(|r| Tagged::ToolResult(r)))
}

/// The usage of a partial assistant message (zero for any other message).
fn usage_of<S: serde::Serializer>(
    message: &AgentMessage,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    match message.as_assistant() {
        Some(assistant) => assistant.usage.serialize(serializer),
        None => Usage::default().serialize(serializer),
    }
}

/// The `result` object of `tool_execution_end`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultPayload {
    /// What the model reads.
    pub content: Vec<ContentBlock>,
    /// Data for programs and screens.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// Structured output (never sent to the model by rho itself).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// The tool's own `isError`, present only when the tool *returned* an error result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Usage of a tool that called a model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Asks the loop to stop after this batch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub terminate: Option<bool>,
}

/// Where the loop sends its events. Emission is synchronous and in order.
pub trait EventSink: Send + Sync {
    /// Delivers one event.
    fn emit(&self, event: AgentEvent);
}

impl<F: Fn(AgentEvent) + Send + Sync> EventSink for F {
    fn emit(&self, event: AgentEvent) {
        self(event)
    }
}
