//! Anthropic SSE events → rho assistant-message events (pi-reference §5.1 "SSE → events").
//!
//! The folder keeps the message being built plus, per open Anthropic content block, where it
//! lives and its raw argument JSON. Server-side tool blocks (`server_tool_use`, `*_tool_result`,
//! `mcp_tool_use`, …) are executed by Anthropic, not by rho: they never become `toolCall`s. rho's
//! content model has no slot for them yet, so they are kept aside ([`AnthropicFolder::server_blocks`])
//! and left out of `content`.

mod blocks;
mod events;

use rho_ai::AssistantMessageEvent as E;
use rho_ai::{AssistantMessage, ErrorKind, Model, PartialMessage, StreamSender};
use rho_http::{Failure, Flow, SseEvent, SseFolder};
use serde_json::Value;

use crate::classify::{StopOutcome, classify_http_error, kind_of_error_body, map_stop_reason};
use blocks::Slot;

/// The `thinking` text of a redacted reasoning block.
pub const REDACTED_THINKING: &str = "[Reasoning redacted]";
/// The failure of a stream that ended without `message_stop`.
pub const ENDED_EARLY: &str = "Anthropic stream ended before message_stop";

/// The SSE event names this adapter reads; others (`ping`, future names) are skipped unparsed.
const HANDLED: [&str; 6] = [
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
];

/// Folds one Anthropic Messages stream into an [`AssistantMessage`].
#[derive(Debug)]
pub struct AnthropicFolder {
    model: Model,
    message: PartialMessage,
    /// Open blocks by Anthropic `index`.
    open: Vec<(u64, Slot)>,
    server_blocks: Vec<Value>,
    saw_message_stop: bool,
    /// A stop reason that makes the finished response a failure (a refusal, an unknown reason).
    failed_stop: Option<Failure>,
}

impl AnthropicFolder {
    /// A folder for a call to `model`; the message is stamped now.
    pub fn new(model: &Model) -> Self {
        AnthropicFolder {
            model: model.clone(),
            message: PartialMessage::new(AssistantMessage::empty(
                &model.api,
                &model.provider,
                &model.id,
            )),
            open: Vec::new(),
            server_blocks: Vec::new(),
            saw_message_stop: false,
            failed_stop: None,
        }
    }

    /// Completed server-side tool blocks, raw as Anthropic sent them (with their streamed `input`
    /// filled in), in stream order. Not part of `content`: rho has no replayable slot for them yet.
    pub fn server_blocks(&self) -> &[Value] {
        &self.server_blocks
    }

    fn apply_usage(&mut self, usage: &Value) {
        let read = |key: &str| usage.get(key).and_then(Value::as_u64);
        let target = &mut self.message.usage;
        // Only fields present and non-null overwrite: message_delta may repeat or omit them.
        if let Some(n) = read("input_tokens") {
            target.input = n;
        }
        if let Some(n) = read("output_tokens") {
            target.output = n;
        }
        if let Some(n) = read("cache_read_input_tokens") {
            target.cache_read = n;
        }
        if let Some(n) = read("cache_creation_input_tokens") {
            target.cache_write = n;
        }
        // Pi 1.6: the one-hour part of the cache writes, and the thinking part of the output.
        if let Some(n) = usage
            .get("cache_creation")
            .and_then(|c| c.get("ephemeral_1h_input_tokens"))
            .and_then(Value::as_u64)
        {
            target.cache_write_1h = Some(n);
        }
        if let Some(n) = usage
            .get("output_tokens_details")
            .and_then(|d| d.get("thinking_tokens"))
            .and_then(Value::as_u64)
        {
            target.reasoning = Some(n);
        }
        target.total_tokens = target.input + target.output + target.cache_read + target.cache_write;
        self.model.apply_cost(target);
    }

    fn message_delta(&mut self, data: &Value) {
        if let Some(reason) = data
            .get("delta")
            .and_then(|delta| delta.get("stop_reason"))
            .and_then(Value::as_str)
        {
            self.message.raw_stop_reason = Some(reason.to_owned());
            match map_stop_reason(reason) {
                StopOutcome::Ok(stop) => {
                    self.message.stop_reason = stop;
                    self.failed_stop = None;
                }
                StopOutcome::Failed { message, kind } => {
                    self.failed_stop = Some(Failure::new(kind, message));
                }
            }
        }
        if let Some(usage) = data.get("usage") {
            self.apply_usage(usage);
        }
    }
}

fn malformed(message: impl Into<String>) -> Failure {
    Failure::new(ErrorKind::MalformedStream, message)
}

fn parse_event(name: &str, data: &str) -> Result<Value, Failure> {
    serde_json::from_str(data)
        .map_err(|err| malformed(format!("Could not parse Anthropic SSE event {name}: {err}")))
}

impl SseFolder for AnthropicFolder {
    fn start(&mut self, out: &mut StreamSender) {
        out.push(E::Start {
            partial: self.message.snapshot(),
        });
    }

    fn on_event(&mut self, event: &SseEvent, out: &mut StreamSender) -> Result<Flow, Failure> {
        if let Some(flow) = self.fast_event(event, out) {
            return Ok(flow);
        }
        // Data-only framing (no `event:` line) names the event by its JSON `type`.
        let (name, parsed) = match &event.event {
            Some(name) => (name.clone(), None),
            None => {
                let value = parse_event("message", &event.data)?;
                let name = value
                    .get("type")
                    .and_then(Value::as_str)
                    .unwrap_or("message")
                    .to_owned();
                (name, Some(value))
            }
        };
        if name == "error" {
            let kind = kind_of_error_body(&event.data).unwrap_or(ErrorKind::Provider);
            return Err(Failure::new(kind, event.data.clone()));
        }
        if !HANDLED.contains(&name.as_str()) {
            return Ok(Flow::Continue);
        }
        let mut data = match parsed {
            Some(value) => value,
            None => parse_event(&name, &event.data)?,
        };
        let kind = data
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or(&name)
            .to_owned();
        match kind.as_str() {
            "message_start" => {
                if let Some(message) = data.get("message") {
                    if let Some(id) = message.get("id").and_then(Value::as_str) {
                        self.message.response_id = Some(id.to_owned());
                    }
                    if let Some(usage) = message.get("usage") {
                        // Pi 1.6 reads the one-hour cache writes of message_start as 0 when absent.
                        self.message.usage.cache_write_1h = Some(0);
                        self.apply_usage(usage);
                    }
                }
            }
            "content_block_start" => self.block_start(&mut data, out)?,
            "content_block_delta" => self.block_delta(&data, out),
            "content_block_stop" => {
                if let Some(index) = data.get("index").and_then(Value::as_u64) {
                    self.block_stop(index, out);
                }
            }
            "message_delta" => self.message_delta(&data),
            "message_stop" => {
                self.saw_message_stop = true;
                return Ok(Flow::Done);
            }
            _ => {}
        }
        Ok(Flow::Continue)
    }

    fn finish(&mut self, out: &mut StreamSender) -> Result<AssistantMessage, Failure> {
        if !self.saw_message_stop {
            return Err(Failure::new(ErrorKind::StreamCut, ENDED_EARLY));
        }
        // A well-formed end with a block left open: close it so every start has its end.
        let still_open: Vec<u64> = self.open.iter().map(|(index, _)| *index).collect();
        for index in still_open {
            self.block_stop(index, out);
        }
        if let Some(failure) = self.failed_stop.take() {
            return Err(failure);
        }
        Ok(self.message.to_message())
    }

    fn partial(&self) -> AssistantMessage {
        self.message.to_message()
    }

    fn classify_http_error(&self, status: u16, body: &str) -> ErrorKind {
        classify_http_error(status, body)
    }
}
