//! Messages (pi-reference §1.2–1.4): user, assistant and tool-result messages, usage and stop reasons.
//!
//! [`Message`] holds each message behind an `Arc`, so the transcript is cheap to copy into every
//! model call and every event.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::content::{ContentBlock, ImageContent, ToolCall};

/// Milliseconds since the Unix epoch: the timestamp of messages.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// An LLM-level message, discriminated by `role`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role")]
pub enum Message {
    /// A user message.
    #[serde(rename = "user")]
    User(Arc<UserMessage>),
    /// A model response.
    #[serde(rename = "assistant")]
    Assistant(Arc<AssistantMessage>),
    /// The result of one tool call.
    #[serde(rename = "toolResult")]
    ToolResult(Arc<ToolResultMessage>),
}

impl Message {
    /// The role name as written on the wire.
    pub fn role(&self) -> &'static str {
        match self {
            Message::User(_) => "user",
            Message::Assistant(_) => "assistant",
            Message::ToolResult(_) => "toolResult",
        }
    }

    /// Whether `a` and `b` are the same shared message (not merely equal ones), as
    /// [`Arc::ptr_eq`] says.
    pub fn ptr_eq(a: &Message, b: &Message) -> bool {
        match (a, b) {
            (Message::User(a), Message::User(b)) => Arc::ptr_eq(a, b),
            (Message::Assistant(a), Message::Assistant(b)) => Arc::ptr_eq(a, b),
            (Message::ToolResult(a), Message::ToolResult(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

/// User content: a bare string or an array of text and image blocks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum UserContent {
    /// The legacy string form.
    Text(String),
    /// The array form rho always produces.
    Blocks(Vec<ContentBlock>),
}

/// `{role:"user", content, timestamp}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UserMessage {
    /// String or block array.
    pub content: UserContent,
    /// Epoch milliseconds.
    #[serde(default)]
    pub timestamp: i64,
}

impl UserMessage {
    /// A user message in the array form `[{type:"text",text}, ...images]`, as Pi's `prompt(text)` makes.
    pub fn text(text: impl Into<String>) -> Self {
        UserMessage {
            content: UserContent::Blocks(vec![ContentBlock::text(text)]),
            timestamp: now_ms(),
        }
    }

    /// `[{type:"text",text}, ...images]`: a prompt with attached images, as Pi's `prompt(text,
    /// {images})`, `steer` and `followUp` make it.
    pub fn with_images(text: impl Into<String>, images: Vec<ImageContent>) -> Self {
        let mut blocks = Vec::with_capacity(1 + images.len());
        blocks.push(ContentBlock::text(text));
        blocks.extend(images.into_iter().map(ContentBlock::Image));
        UserMessage {
            content: UserContent::Blocks(blocks),
            timestamp: now_ms(),
        }
    }

    /// The concatenated text of the message.
    pub fn text_content(&self) -> String {
        match &self.content {
            UserContent::Text(t) => t.clone(),
            UserContent::Blocks(blocks) => {
                blocks.iter().filter_map(ContentBlock::as_text).collect()
            }
        }
    }
}

/// Why a model response ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StopReason {
    /// Still streaming: what `message_start` shows (Pi 1.6); never the reason of a finished reply.
    Pending,
    /// The provider deferred the response (batch APIs); read, never produced by rho.
    Deferred,
    /// The model finished.
    Stop,
    /// The output token limit was reached.
    Length,
    /// The model asked for tools.
    ToolUse,
    /// The request or stream failed.
    Error,
    /// The caller cancelled.
    Aborted,
}

impl StopReason {
    /// `error` or `aborted`: the response is not a usable answer.
    pub fn is_failure(self) -> bool {
        matches!(self, StopReason::Error | StopReason::Aborted)
    }
}

/// Cost in USD, per token kind.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cost {
    /// Non-cached input.
    #[serde(serialize_with = "rho_stdx::js::serialize_number")]
    pub input: f64,
    /// Output.
    #[serde(serialize_with = "rho_stdx::js::serialize_number")]
    pub output: f64,
    /// Cache reads.
    #[serde(serialize_with = "rho_stdx::js::serialize_number")]
    pub cache_read: f64,
    /// Cache writes.
    #[serde(serialize_with = "rho_stdx::js::serialize_number")]
    pub cache_write: f64,
    /// Sum of the four.
    #[serde(serialize_with = "rho_stdx::js::serialize_number")]
    pub total: f64,
    /// Whether `total` is the provider's own figure (Pi 1.6 writes `false` whenever it computed the
    /// cost from the model's prices; absent before anything was computed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_from_provider: Option<bool>,
}

/// Token usage of one model call (or a sum of several).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    /// Non-cached prompt tokens.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Tokens served from cache.
    pub cache_read: u64,
    /// Tokens written to cache.
    pub cache_write: u64,
    /// Reasoning tokens, a part of `output` (Pi 1.6; absent when the provider does not say).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<u64>,
    /// Provider-reported total.
    pub total_tokens: u64,
    /// Cost in USD.
    pub cost: Cost,
    /// Anthropic: cache writes with a one-hour lifetime (a part of `cache_write`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        rename = "cacheWrite1h"
    )]
    pub cache_write_1h: Option<u64>,
}

impl Usage {
    /// Adds `other` into `self`, field by field.
    pub fn add(&mut self, other: &Usage) {
        self.input += other.input;
        self.output += other.output;
        self.cache_read += other.cache_read;
        self.cache_write += other.cache_write;
        self.reasoning = add_optional(self.reasoning, other.reasoning);
        self.total_tokens += other.total_tokens;
        self.cache_write_1h = add_optional(self.cache_write_1h, other.cache_write_1h);
        self.cost.input += other.cost.input;
        self.cost.output += other.cost.output;
        self.cost.cache_read += other.cost.cache_read;
        self.cost.cache_write += other.cost.cache_write;
        self.cost.total += other.cost.total;
    }
}

/// The sum of two optional counts: absent only when both are.
fn add_optional(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    match (a, b) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
    }
}

/// rho: a content block only its provider understands (Anthropic's server-side tool use and
/// results, for example), kept so the conversation can be replayed to the same model. It never
/// becomes a tool call rho would run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderBlock {
    /// Index in `content` before which the block stood (`content.len()` = after the last).
    pub position: usize,
    /// The block as the provider sent it (shared: a snapshot per streamed delta must not copy a
    /// page of search results each time).
    pub block: Arc<Value>,
}

/// A model response (pi-reference §1.3), its fields in Pi 1.6's order (rho's additions last).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AssistantMessage {
    /// Text, thinking and tool-call blocks in stream order.
    pub content: Vec<ContentBlock>,
    /// Wire API used.
    pub api: String,
    /// Provider name.
    pub provider: String,
    /// Requested model id.
    pub model: String,
    /// The model the server says answered, when it differs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_model: Option<String>,
    /// Token usage and cost.
    #[serde(default)]
    pub usage: Usage,
    /// Why the response ended (`pending` while it streams).
    pub stop_reason: StopReason,
    /// When the provider call started, epoch ms.
    #[serde(default)]
    pub timestamp: i64,
    /// Upstream response id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_id: Option<String>,
    /// The provider's own stop reason (`tool_calls`, `end_turn`, `completed`…), as it sent it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_stop_reason: Option<String>,
    /// Present iff `stop_reason` is `error` or `aborted`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
    /// Milliseconds from the call's start to its end (Pi 1.6; set by the loop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// The thinking level the call asked for (Pi 1.6; set by the loop).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_level: Option<crate::model::ThinkingLevel>,
    /// Provider diagnostics, kept opaque.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diagnostics: Option<Value>,
    /// rho: provider-only blocks, for replay to the same model (additive; Pi clients ignore it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub provider_blocks: Vec<ProviderBlock>,
    /// rho: how the call failed (retryable? overflow? auth?), set by the provider where the
    /// failure arose. Not part of Pi's wire format, so not serialized.
    #[serde(skip)]
    pub error_info: Option<crate::error::ErrorInfo>,
}

impl AssistantMessage {
    /// An empty message for `api`/`provider`/`model`, stamped now.
    pub fn empty(api: &str, provider: &str, model: &str) -> Self {
        AssistantMessage {
            content: Vec::new(),
            api: api.to_owned(),
            provider: provider.to_owned(),
            model: model.to_owned(),
            response_model: None,
            usage: Usage::default(),
            stop_reason: StopReason::Pending,
            timestamp: now_ms(),
            response_id: None,
            raw_stop_reason: None,
            error_message: None,
            duration_ms: None,
            thinking_level: None,
            diagnostics: None,
            provider_blocks: Vec::new(),
            error_info: None,
        }
    }

    /// The tool calls of this message, in source order.
    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.content.iter().filter_map(|b| match b {
            ContentBlock::ToolCall(call) => Some(call),
            _ => None,
        })
    }

    /// The concatenated text blocks.
    pub fn text(&self) -> String {
        self.content
            .iter()
            .filter_map(ContentBlock::as_text)
            .collect()
    }
}

/// The result of one tool call as the model sees it (pi-reference §1.4, plus rho's additions).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultMessage {
    /// The assistant's `toolCall.id`, verbatim.
    pub tool_call_id: String,
    /// The tool name the call asked for.
    pub tool_name: String,
    /// What the model reads.
    pub content: Vec<ContentBlock>,
    /// Data for programs and screens; never sent to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
    /// rho: usage reported by a tool that itself called a model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// True when the call was refused or failed.
    pub is_error: bool,
    /// Wall time of `execute` in ms; present iff the tool really executed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// Epoch ms.
    #[serde(default)]
    pub timestamp: i64,
}
