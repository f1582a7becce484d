//! Responses stream events → assistant-message events (pi-reference §5.2 "Stream events").
//!
//! Each output item (`reasoning`, `message`, `function_call`) becomes one content block (see
//! `items.rs`). Events name their item by `item_id`, and blocks are found by it, so servers that
//! finish items out of order (OpenRouter ends the reasoning item after the message) still fold
//! each item into its own block. `response.completed` sets usage and the stop reason; failures
//! end the stream with the provider's words and a kind from its error code.

use rho_ai::{
    AssistantMessage, AssistantMessageEvent as E, ErrorKind, Model, PartialMessage, StopReason,
    StreamSender,
};
use rho_http::{Failure, Flow, SseEvent, SseFolder};
use serde_json::{Map, Value};

use super::errors::{UNKNOWN_ERROR, chunk_error, error_event, response_failed};
use super::items::{ItemState, str_field};
use super::usage::{apply_cost, normalize_usage};
use crate::completions::classify_http_error;
use crate::provider_error::SdkHttpError;

mod delta;

/// Error text for a body that ended before `response.completed`.
pub const STREAM_CUT: &str = "Stream ended before response.completed";

/// Folds one Responses SSE stream into an [`AssistantMessage`].
#[derive(Debug)]
pub struct ResponsesFolder {
    /// The model called, for pricing.
    pub(super) model: Model,
    /// The message so far.
    pub(super) output: PartialMessage,
    /// Every output item seen, in the order they were added.
    pub(super) items: Vec<ItemState>,
    /// `response.completed` (or `response.incomplete`) arrived.
    pub(super) completed: bool,
}

impl ResponsesFolder {
    /// A folder for a call to `model`; the message's timestamp is now.
    pub fn new(model: &Model) -> Self {
        ResponsesFolder {
            model: model.clone(),
            output: PartialMessage::new(AssistantMessage::empty(
                &model.api,
                &model.provider,
                &model.id,
            )),
            items: Vec::new(),
            completed: false,
        }
    }

    fn set_usage(&mut self, response: &Value) {
        if let Some(usage) = response.get("usage").filter(|u| u.is_object()) {
            let mut usage = normalize_usage(usage);
            apply_cost(&self.model, &mut usage, str_field(response, "service_tier"));
            self.output.usage = usage;
        }
    }

    /// `response.completed` (or `response.incomplete`): usage, then the stop reason.
    fn complete(&mut self, response: &Value) -> Result<(), Failure> {
        if let Some(id) = str_field(response, "id") {
            self.output.response_id = Some(id.to_owned());
        }
        self.set_usage(response);
        self.completed = true;
        let status = str_field(response, "status");
        let incomplete = response
            .pointer("/incomplete_details/reason")
            .and_then(Value::as_str);
        self.output.raw_stop_reason = match (status, incomplete) {
            (Some(status), Some(reason)) => Some(format!("{status}.{reason}")),
            (status, _) => status.map(str::to_owned),
        };
        let reason = match status {
            None | Some("completed" | "in_progress" | "queued") => StopReason::Stop,
            Some("incomplete") => StopReason::Length,
            Some("failed" | "cancelled") => {
                return Err(Failure::new(ErrorKind::Provider, UNKNOWN_ERROR));
            }
            Some(other) => {
                return Err(Failure::new(
                    ErrorKind::Provider,
                    format!("Unhandled stop reason: {other}"),
                ));
            }
        };
        let has_calls = self.output.tool_calls().next().is_some();
        self.output.stop_reason = if reason == StopReason::Stop && has_calls {
            StopReason::ToolUse
        } else {
            reason
        };
        Ok(())
    }

    fn fold(
        &mut self,
        event: &Map<String, Value>,
        out: &mut StreamSender,
    ) -> Result<Flow, Failure> {
        let item_id = event.get("item_id").and_then(Value::as_str);
        let delta = event.get("delta").and_then(Value::as_str).unwrap_or("");
        let response = event.get("response").filter(|r| r.is_object());
        match event.get("type").and_then(Value::as_str).unwrap_or("") {
            "response.created" => {
                if let Some(id) = response.and_then(|r| str_field(r, "id")) {
                    self.output.response_id = Some(id.to_owned());
                }
            }
            "response.output_item.added" => {
                if let Some(item) = event.get("item") {
                    self.add_item(item, out);
                }
            }
            "response.output_item.done" => {
                if let Some(item) = event.get("item") {
                    self.end_item(item, out);
                }
            }
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                self.push_thinking(item_id, delta, out);
            }
            // Summary parts are separated by a blank line while streaming, as in the final text.
            "response.reasoning_summary_part.done" => self.push_thinking(item_id, "\n\n", out),
            "response.output_text.delta" | "response.refusal.delta" => {
                self.push_text(item_id, delta, out);
            }
            "response.function_call_arguments.delta" => {
                self.push_args(item_id, delta, false, out);
            }
            "response.function_call_arguments.done" => {
                if let Some(args) = event.get("arguments").and_then(Value::as_str) {
                    self.push_args(item_id, args, true, out);
                }
            }
            "response.completed" | "response.incomplete" => {
                self.complete(response.unwrap_or(&Value::Null))?;
                return Ok(Flow::Done);
            }
            "response.failed" => {
                if let Some(response) = response {
                    self.set_usage(response);
                }
                return Err(response_failed(response));
            }
            "error" => return Err(error_event(&Value::Object(event.clone()))),
            _ => {}
        }
        Ok(Flow::Continue)
    }
}

impl SseFolder for ResponsesFolder {
    fn start(&mut self, out: &mut StreamSender) {
        out.push(E::Start {
            partial: self.output.snapshot(),
        });
    }

    fn on_event(&mut self, event: &SseEvent, out: &mut StreamSender) -> Result<Flow, Failure> {
        let data = event.data.trim();
        if data == "[DONE]" {
            return Ok(Flow::Done);
        }
        if data.is_empty() {
            return Ok(Flow::Continue);
        }
        if self.fast_event(data, out) {
            return Ok(Flow::Continue);
        }
        let chunk: Value = serde_json::from_str(data).map_err(|e| {
            Failure::new(
                ErrorKind::MalformedStream,
                format!("Malformed stream event: {e}"),
            )
        })?;
        let Value::Object(chunk) = chunk else {
            return Err(Failure::new(
                ErrorKind::MalformedStream,
                "Malformed stream event: not a JSON object",
            ));
        };
        // The OpenAI SDK throws any event that carries an `error` object, whatever its type.
        if let Some(error) = chunk.get("error").filter(|e| e.is_object()) {
            return Err(chunk_error(error));
        }
        self.fold(&chunk, out)
    }

    fn finish(&mut self, _out: &mut StreamSender) -> Result<AssistantMessage, Failure> {
        if !self.completed {
            return Err(Failure::new(ErrorKind::StreamCut, STREAM_CUT));
        }
        Ok(self.output.to_message())
    }

    fn partial(&self) -> AssistantMessage {
        self.output.to_message()
    }

    fn classify_http_error(&self, status: u16, body: &str) -> ErrorKind {
        classify_http_error(status, body)
    }

    /// Pi 1.6's `"<Provider> API error (<status>): <body>"`, `OpenAI` for the provider `openai`.
    fn http_error_message(&self, status: u16, body: &str) -> String {
        let provider = match self.model.provider.as_str() {
            "openai" => "OpenAI",
            other => other,
        };
        SdkHttpError::parse(status, body).display(Some(&format!("{provider} API error")))
    }

    fn sdk_error_message(&self, status: u16, body: &str) -> String {
        SdkHttpError::parse(status, body).sdk_message().to_owned()
    }
}
