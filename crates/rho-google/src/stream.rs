//! Gemini SSE chunks → rho assistant-message events (pi-reference §5.4 "Chunks → events").
//!
//! Every chunk is a whole `GenerateContentResponse`; only `candidates[0]` is read. Text parts
//! become a text block, `thought: true` parts a thinking block (a change of kind closes the open
//! block); a `functionCall` part closes the open block and is a whole tool call at once:
//! `toolcall_start`, one `toolcall_delta` with the arguments as JSON, `toolcall_end`. Usage is
//! cumulative and repeated: the last one counts. The stream has no terminal marker — it ends when
//! the body ends — so a body that ends without any `finishReason` was cut.

mod chunk;
mod parts;

use std::sync::atomic::{AtomicU64, Ordering};

use rho_ai::AssistantMessageEvent as E;
use rho_ai::{
    AssistantMessage, ErrorKind, Model, PartialMessage, StopReason, StreamSender, now_ms,
};
use rho_http::{Failure, Flow, SseEvent, SseFolder};
use serde_json::Value;

use crate::classify::{
    FinishOutcome, UNKNOWN_ERROR, classify_http_error, http_error_message, kind_of_error_object,
    map_finish_reason,
};
use parts::Open;

/// The token counts of one `usageMetadata` (0 when absent).
struct UsageCounts {
    prompt: u64,
    candidates: u64,
    thoughts: u64,
    total: u64,
    cached: u64,
}

/// The failure of a stream that ended without any `finishReason`.
pub const ENDED_EARLY: &str = "Gemini stream ended without a finishReason";

/// Makes the id of a tool call that came without one (or with a duplicate): gets the tool name.
pub type ToolCallIds = Box<dyn FnMut(&str) -> String + Send + Sync>;

/// Process-wide, like Pi's module counter: two calls in the same millisecond still differ.
static TOOL_CALL_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Pi's id for a tool call Gemini sent without one: `<name>_<epoch ms>_<counter>`.
pub fn generate_tool_call_id(name: &str) -> String {
    let counter = TOOL_CALL_COUNTER.fetch_add(1, Ordering::Relaxed) + 1;
    format!("{name}_{}_{counter}", now_ms())
}

/// Folds one Gemini stream into an [`AssistantMessage`].
pub struct GoogleFolder {
    model: Model,
    message: PartialMessage,
    /// The text or thinking block being appended to (always the last content block).
    open: Option<Open>,
    /// Vertex streamed arguments: the index of the tool call still receiving `partialArgs`.
    streaming_call: Option<usize>,
    /// The last `finishReason`, once one arrived.
    finish: Option<FinishOutcome>,
    ids: ToolCallIds,
}

impl std::fmt::Debug for GoogleFolder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GoogleFolder")
            .field("message", &self.message)
            .field("open", &self.open)
            .field("streaming_call", &self.streaming_call)
            .field("finish", &self.finish)
            .finish_non_exhaustive()
    }
}

impl GoogleFolder {
    /// A folder for a call to `model`, naming id-less tool calls as Pi does; stamped now.
    pub fn new(model: &Model) -> Self {
        Self::with_tool_call_ids(model, Box::new(generate_tool_call_id))
    }

    /// A folder with its own tool-call id maker (deterministic ids for tests and replays).
    pub fn with_tool_call_ids(model: &Model, ids: ToolCallIds) -> Self {
        GoogleFolder {
            model: model.clone(),
            // pi hard-codes the api of this adapter's messages.
            message: PartialMessage::new(AssistantMessage::empty(
                "google-generative-ai",
                &model.provider,
                &model.id,
            )),
            open: None,
            streaming_call: None,
            finish: None,
            ids,
        }
    }

    fn apply_usage(&mut self, usage: &Value) {
        let read = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
        self.apply_usage_counts(&UsageCounts {
            prompt: read("promptTokenCount"),
            candidates: read("candidatesTokenCount"),
            thoughts: read("thoughtsTokenCount"),
            total: read("totalTokenCount"),
            cached: read("cachedContentTokenCount"),
        });
    }

    fn apply_usage_counts(&mut self, counts: &UsageCounts) {
        let target = &mut self.message.usage;
        target.input = counts.prompt.saturating_sub(counts.cached);
        target.output = counts.candidates + counts.thoughts;
        target.cache_read = counts.cached;
        target.cache_write = 0;
        target.reasoning = Some(counts.thoughts);
        target.total_tokens = counts.total;
        self.model.apply_cost(target);
    }

    fn apply_finish(&mut self, reason: &str) {
        self.message.raw_stop_reason = Some(reason.to_owned());
        let has_tool_calls = self.message.tool_calls().next().is_some();
        // Any tool call makes the turn a tool turn, whatever the reason says (as in Pi).
        let outcome = if has_tool_calls {
            FinishOutcome::Ok(StopReason::ToolUse)
        } else {
            map_finish_reason(reason)
        };
        if let FinishOutcome::Ok(stop) = outcome {
            self.message.stop_reason = stop;
        }
        self.finish = Some(outcome);
    }

    fn chunk(&mut self, chunk: &Value, out: &mut StreamSender) {
        // The first non-empty id counts.
        if self.message.response_id.is_none()
            && let Some(id) = chunk
                .get("responseId")
                .and_then(Value::as_str)
                .filter(|id| !id.is_empty())
        {
            self.message.response_id = Some(id.to_owned());
        }
        let candidate = chunk
            .get("candidates")
            .and_then(Value::as_array)
            .and_then(|candidates| candidates.first());
        let parts = candidate
            .and_then(|c| c.get("content"))
            .and_then(|content| content.get("parts"))
            .and_then(Value::as_array);
        for part in parts.into_iter().flatten() {
            if let Some(text) = part.get("text").and_then(Value::as_str) {
                self.text_part(part, text, out);
            }
            if let Some(call) = part.get("functionCall").filter(|c| c.is_object()) {
                self.function_call_part(part, call, out);
            }
        }
        if let Some(reason) = candidate
            .and_then(|c| c.get("finishReason"))
            .and_then(Value::as_str)
        {
            self.apply_finish(reason);
        }
        if let Some(usage) = chunk.get("usageMetadata").filter(|u| u.is_object()) {
            self.apply_usage(usage);
        }
    }
}

fn parse_chunk(data: &str) -> Result<Value, Failure> {
    serde_json::from_str(data).map_err(|err| {
        Failure::new(
            ErrorKind::MalformedStream,
            format!("exception parsing stream chunk {data}. {err}"),
        )
    })
}

/// An `{"error": {...}}` chunk: the SDK's wording, `got status: <status>. <chunk JSON>`.
fn in_stream_error(chunk: &Value, error: &Value) -> Failure {
    let status = error
        .get("status")
        .and_then(Value::as_str)
        .unwrap_or("undefined");
    let kind = kind_of_error_object(error).unwrap_or(ErrorKind::Provider);
    Failure::new(kind, format!("got status: {status}. {chunk}"))
}

impl SseFolder for GoogleFolder {
    fn start(&mut self, out: &mut StreamSender) {
        out.push(E::Start {
            partial: self.message.snapshot(),
        });
    }

    fn on_event(&mut self, event: &SseEvent, out: &mut StreamSender) -> Result<Flow, Failure> {
        if event.data.trim().is_empty() {
            return Ok(Flow::Continue);
        }
        if self.fast_chunk(&event.data, out) {
            return Ok(Flow::Continue);
        }
        let chunk = parse_chunk(&event.data)?;
        if let Some(error) = chunk.get("error").filter(|e| !e.is_null()) {
            return Err(in_stream_error(&chunk, error));
        }
        self.chunk(&chunk, out);
        Ok(Flow::Continue)
    }

    fn finish(&mut self, out: &mut StreamSender) -> Result<AssistantMessage, Failure> {
        self.end_streaming_call(out);
        self.close_open(out);
        match &self.finish {
            None => Err(Failure::new(ErrorKind::StreamCut, ENDED_EARLY)),
            Some(FinishOutcome::Failed(kind)) => Err(Failure::new(*kind, UNKNOWN_ERROR)),
            Some(FinishOutcome::Ok(_)) => Ok(self.message.to_message()),
        }
    }

    fn partial(&self) -> AssistantMessage {
        self.message.to_message()
    }

    fn classify_http_error(&self, status: u16, body: &str) -> ErrorKind {
        classify_http_error(status, body)
    }

    fn http_error_message(&self, status: u16, body: &str) -> String {
        http_error_message(status, body)
    }
}
