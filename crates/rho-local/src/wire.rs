//! The line protocol between rho and its model process `rho-llama`: one JSON object per line
//! each way. rho writes [`Request`]s to the process's stdin; the process answers each call with
//! [`Reply`] lines carrying the call's assistant events in order, the terminal event last.
//! Nothing else is written to its stdout.

use rho_ai::{AssistantMessageEvent, ErrorInfo, Message, Model, ToolSpec};
use serde::{Deserialize, Serialize};

/// What rho asks of the model process.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Request {
    /// Run one model call.
    Call(Box<Call>),
    /// Stop the call `id` between two tokens (or before it starts); it ends `aborted`.
    Cancel {
        /// The call's id.
        id: u64,
    },
}

/// One model call: the model file (the model's `base_url`), the context and the limits.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Call {
    /// Unique among the calls of one process.
    pub id: u64,
    /// The model; `base_url` is the GGUF file's path.
    pub model: Model,
    /// The system prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// The conversation.
    pub messages: Vec<Message>,
    /// The tools offered.
    pub tools: Vec<ToolSpec>,
    /// The context window, in tokens.
    pub context_window: u32,
    /// The output cap, in tokens.
    pub max_tokens: u64,
    /// Sampling temperature; greedy when absent or zero.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
}

/// One event of the call `id`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Reply {
    /// The call's id.
    pub id: u64,
    /// The event, as the model layer defines it.
    pub event: AssistantMessageEvent,
    /// The classification of a terminal error (not part of the event's own wire form).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_info: Option<ErrorInfo>,
}

impl Reply {
    /// The reply for `event`, with the classification its terminal message carries.
    pub fn new(id: u64, event: AssistantMessageEvent) -> Self {
        let error_info = event
            .terminal_message()
            .and_then(|message| message.error_info.clone());
        Reply {
            id,
            event,
            error_info,
        }
    }

    /// The event with its classification restored.
    pub fn into_event(self) -> AssistantMessageEvent {
        let mut event = self.event;
        if let AssistantMessageEvent::Error { error, .. } = &mut event {
            error.error_info = self.error_info;
        }
        event
    }
}
