//! The assistant-message event stream (pi-reference §2.2).

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::content::ToolCall;
use crate::message::{AssistantMessage, StopReason};

/// One event of a provider's response stream. `partial` is a snapshot of the message so far,
/// shared, not copied (see [`crate::partial::PartialMessage`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum AssistantMessageEvent {
    /// Response headers arrived; nothing streamed yet.
    Start {
        /// The empty message.
        partial: Arc<AssistantMessage>,
    },
    /// A text block was appended at `content_index`.
    TextStart {
        /// Index in `partial.content`.
        content_index: usize,
        /// Snapshot.
        partial: Arc<AssistantMessage>,
    },
    /// Text appended to a block.
    TextDelta {
        /// Index in `partial.content`.
        content_index: usize,
        /// The new text.
        delta: String,
        /// Snapshot.
        partial: Arc<AssistantMessage>,
    },
    /// A text block finished.
    TextEnd {
        /// Index in `partial.content`.
        content_index: usize,
        /// The block's full text.
        content: String,
        /// Snapshot.
        partial: Arc<AssistantMessage>,
    },
    /// A thinking block was appended.
    ThinkingStart {
        /// Index in `partial.content`.
        content_index: usize,
        /// Snapshot.
        partial: Arc<AssistantMessage>,
    },
    /// Thinking appended to a block.
    ThinkingDelta {
        /// Index in `partial.content`.
        content_index: usize,
        /// The new text.
        delta: String,
        /// Snapshot.
        partial: Arc<AssistantMessage>,
    },
    /// A thinking block finished.
    ThinkingEnd {
        /// Index in `partial.content`.
        content_index: usize,
        /// The block's full text.
        content: String,
        /// Snapshot.
        partial: Arc<AssistantMessage>,
    },
    /// A tool-call block was appended.
    #[serde(rename = "toolcall_start")]
    ToolCallStart {
        /// Index in `partial.content`.
        content_index: usize,
        /// Snapshot.
        partial: Arc<AssistantMessage>,
    },
    /// A raw JSON fragment of the arguments.
    #[serde(rename = "toolcall_delta")]
    ToolCallDelta {
        /// Index in `partial.content`.
        content_index: usize,
        /// Raw JSON fragment (may be empty).
        delta: String,
        /// Snapshot, with best-effort parsed arguments.
        partial: Arc<AssistantMessage>,
    },
    /// A tool call is complete (parsed, not validated).
    #[serde(rename = "toolcall_end")]
    ToolCallEnd {
        /// Index in `partial.content`.
        content_index: usize,
        /// The final call.
        tool_call: ToolCall,
        /// Snapshot.
        partial: Arc<AssistantMessage>,
    },
    /// Terminal: success.
    Done {
        /// `stop`, `length` or `toolUse`.
        reason: StopReason,
        /// The final message.
        message: AssistantMessage,
    },
    /// Terminal: failure or abort; `error.content` keeps what streamed so far.
    Error {
        /// `error` or `aborted`.
        reason: StopReason,
        /// The final message.
        error: AssistantMessage,
    },
}

impl AssistantMessageEvent {
    /// The final message if this is a terminal event.
    pub fn terminal_message(&self) -> Option<&AssistantMessage> {
        match self {
            AssistantMessageEvent::Done { message, .. } => Some(message),
            AssistantMessageEvent::Error { error, .. } => Some(error),
            _ => None,
        }
    }

    /// The partial snapshot, for non-terminal events.
    pub fn partial(&self) -> Option<&Arc<AssistantMessage>> {
        use AssistantMessageEvent as E;
        match self {
            E::Start { partial }
            | E::TextStart { partial, .. }
            | E::TextDelta { partial, .. }
            | E::TextEnd { partial, .. }
            | E::ThinkingStart { partial, .. }
            | E::ThinkingDelta { partial, .. }
            | E::ThinkingEnd { partial, .. }
            | E::ToolCallStart { partial, .. }
            | E::ToolCallDelta { partial, .. }
            | E::ToolCallEnd { partial, .. } => Some(partial),
            E::Done { .. } | E::Error { .. } => None,
        }
    }
}
