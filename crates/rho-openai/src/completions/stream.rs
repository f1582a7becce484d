//! Chat Completions chunks → assistant-message events (pi-reference §5.3 "Chunk → events").
//!
//! One text block and one thinking block per message, created on first content; tool calls keyed
//! by `index` (or by order and id for servers that omit it). Every `*_end` event is emitted only
//! after the body ended, in content order, as Pi does.

use crate::provider_error::SdkHttpError;
use rho_ai::partial_json::StreamingJson;
use rho_ai::{
    AssistantMessage, AssistantMessageEvent as E, ContentBlock, ErrorKind, Model, PartialMessage,
    StreamSender, ThinkingContent, ToolCall,
};
use rho_http::{Failure, Flow, SseEvent, SseFolder};
use serde_json::{Map, Value};

use super::convert::REASONING_FIELDS;
use super::errors::{
    classify_http_error, error_message, http_error_message, in_stream_error_kind, map_finish_reason,
};
use super::usage::normalize_usage;

mod chunk;

/// Error text for a body that ended with neither `[DONE]` nor a finish reason.
pub const STREAM_CUT: &str = "Stream ended before a finish_reason or [DONE]";

/// A tool call being streamed.
#[derive(Debug)]
struct CallState {
    /// Index of the block in `output.content`.
    content_index: usize,
    /// The server's `index`, when it sends one.
    stream_index: Option<u64>,
    /// The argument JSON so far, parsed as it streams.
    args: StreamingJson,
}

/// Folds one Chat Completions SSE stream into an [`AssistantMessage`].
#[derive(Debug)]
pub struct CompletionsFolder {
    model: Model,
    output: PartialMessage,
    text: Option<usize>,
    thinking: Option<usize>,
    calls: Vec<CallState>,
    /// Encrypted OpenRouter reasoning details whose tool call has not arrived yet, by call id.
    pending_details: Vec<(String, String)>,
    finish_reason: Option<String>,
    saw_done: bool,
}

impl CompletionsFolder {
    /// A folder for a call to `model`; the message's timestamp is now.
    pub fn new(model: &Model) -> Self {
        CompletionsFolder {
            model: model.clone(),
            output: PartialMessage::new(AssistantMessage::empty(
                &model.api,
                &model.provider,
                &model.id,
            )),
            text: None,
            thinking: None,
            calls: Vec::new(),
            pending_details: Vec::new(),
            finish_reason: None,
            saw_done: false,
        }
    }

    fn fold_chunk(&mut self, chunk: &Map<String, Value>, out: &mut StreamSender) {
        if self.output.response_id.is_none()
            && let Some(id) = chunk.get("id").and_then(Value::as_str)
        {
            self.output.response_id = Some(id.to_owned());
        }
        if self.output.response_model.is_none()
            && let Some(name) = chunk.get("model").and_then(Value::as_str)
            && name != self.model.id
        {
            self.output.response_model = Some(name.to_owned());
        }
        let choice = chunk
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|choices| choices.first());
        let usage = chunk.get("usage").filter(|u| u.is_object()).or_else(|| {
            choice
                .and_then(|c| c.get("usage"))
                .filter(|u| u.is_object())
        });
        if let Some(usage) = usage {
            self.set_usage(usage);
        }
        let Some(choice) = choice else { return };
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish_reason = Some(reason.to_owned());
        }
        let Some(delta) = choice.get("delta").and_then(Value::as_object) else {
            return;
        };
        if let Some(text) = delta.get("content").and_then(Value::as_str)
            && !text.is_empty()
        {
            self.push_text(text, out);
        }
        let reasoning = REASONING_FIELDS.iter().find_map(|field| {
            let text = delta.get(*field)?.as_str()?;
            (!text.is_empty()).then_some((*field, text))
        });
        if let Some((field, text)) = reasoning {
            self.push_thinking(field, text, out);
        }
        if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
            for call in calls {
                self.push_tool_call(call, out);
            }
        }
        if let Some(details) = delta.get("reasoning_details").and_then(Value::as_array) {
            for detail in details {
                self.attach_reasoning_detail(detail);
            }
        }
    }

    fn set_usage(&mut self, raw: &Value) {
        let mut usage = normalize_usage(raw);
        self.model.apply_cost(&mut usage);
        self.output.usage = usage;
    }

    fn push_text(&mut self, text: &str, out: &mut StreamSender) {
        let index = match self.text {
            Some(index) => index,
            None => {
                let index = self.output.content.len();
                self.output.content.push(ContentBlock::text(""));
                self.text = Some(index);
                out.push(E::TextStart {
                    content_index: index,
                    partial: self.output.snapshot(),
                });
                index
            }
        };
        if let Some(ContentBlock::Text(block)) = self.output.content.get_mut(index) {
            block.text.push_str(text);
        }
        out.push(E::TextDelta {
            content_index: index,
            delta: text.to_owned(),
            partial: self.output.snapshot(),
        });
    }

    fn push_thinking(&mut self, field: &str, text: &str, out: &mut StreamSender) {
        let index = match self.thinking {
            Some(index) => index,
            None => {
                let index = self.output.content.len();
                self.output
                    .content
                    .push(ContentBlock::Thinking(ThinkingContent {
                        thinking: String::new(),
                        thinking_signature: Some(field.to_owned()),
                        redacted: None,
                    }));
                self.thinking = Some(index);
                out.push(E::ThinkingStart {
                    content_index: index,
                    partial: self.output.snapshot(),
                });
                index
            }
        };
        if let Some(ContentBlock::Thinking(block)) = self.output.content.get_mut(index) {
            block.thinking.push_str(text);
        }
        out.push(E::ThinkingDelta {
            content_index: index,
            delta: text.to_owned(),
            partial: self.output.snapshot(),
        });
    }

    fn call_block(&mut self, state: usize) -> Option<&mut ToolCall> {
        let index = self.calls.get(state)?.content_index;
        match self.output.content.get_mut(index) {
            Some(ContentBlock::ToolCall(call)) => Some(call),
            _ => None,
        }
    }

    /// Which streamed call a fragment belongs to: the one with its `index`, else (servers that
    /// omit `index`) the current one; a different non-empty `id` always starts a new call.
    fn find_call(&mut self, stream_index: Option<u64>, id: &str) -> Option<usize> {
        let candidate = match stream_index {
            Some(i) => self.calls.iter().rposition(|c| c.stream_index == Some(i)),
            None => self.calls.len().checked_sub(1),
        }?;
        let current_id = self
            .call_block(candidate)
            .map(|c| c.id.as_str())
            .unwrap_or("");
        let other_call = !id.is_empty() && !current_id.is_empty() && current_id != id;
        (!other_call).then_some(candidate)
    }

    fn push_tool_call(&mut self, fragment: &Value, out: &mut StreamSender) {
        let stream_index = fragment.get("index").and_then(Value::as_u64);
        let id = fragment.get("id").and_then(Value::as_str).unwrap_or("");
        let function = fragment.get("function");
        let name = function
            .and_then(|f| f.get("name"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let args = match function.and_then(|f| f.get("arguments")) {
            Some(Value::String(text)) => text.clone(),
            // A few servers send the arguments as an object instead of a JSON string.
            Some(value) if !value.is_null() => value.to_string(),
            _ => String::new(),
        };
        let state = match self.find_call(stream_index, id) {
            Some(state) => state,
            None => {
                let content_index = self.output.content.len();
                self.output.content.push(ContentBlock::ToolCall(ToolCall {
                    id: id.to_owned(),
                    name: name.to_owned(),
                    arguments: Value::Object(Map::new()),
                    thought_signature: None,
                }));
                self.calls.push(CallState {
                    content_index,
                    stream_index,
                    args: StreamingJson::new(),
                });
                out.push(E::ToolCallStart {
                    content_index,
                    partial: self.output.snapshot(),
                });
                self.calls.len() - 1
            }
        };
        let Some(call_state) = self.calls.get_mut(state) else {
            return;
        };
        call_state.args.push(&args);
        let content_index = call_state.content_index;
        if let Some(ContentBlock::ToolCall(call)) = self.output.content.get_mut(content_index) {
            if call.id.is_empty() {
                call.id = id.to_owned();
            }
            if !name.is_empty() {
                call.name = name.to_owned();
            }
            if !args.is_empty() {
                call_state.args.update(&mut call.arguments);
            }
        }
        self.attach_pending_details();
        out.push(E::ToolCallDelta {
            content_index,
            delta: args,
            partial: self.output.snapshot(),
        });
    }

    /// OpenRouter's encrypted reasoning for a tool call becomes that call's `thoughtSignature`.
    fn attach_reasoning_detail(&mut self, detail: &Value) {
        let encrypted = detail.get("type").and_then(Value::as_str) == Some("reasoning.encrypted");
        let id = detail.get("id").and_then(Value::as_str).unwrap_or("");
        let has_data = detail.get("data").is_some_and(|d| !d.is_null());
        if encrypted && !id.is_empty() && has_data {
            self.pending_details
                .push((id.to_owned(), detail.to_string()));
            self.attach_pending_details();
        }
    }

    fn attach_pending_details(&mut self) {
        if self.pending_details.is_empty() {
            return;
        }
        let pending = std::mem::take(&mut self.pending_details);
        for (id, signature) in pending {
            let call = self
                .output
                .content
                .iter_mut()
                .find_map(|block| match block {
                    ContentBlock::ToolCall(call) if call.id == id => Some(call),
                    _ => None,
                });
            match call {
                Some(call) => call.thought_signature = Some(signature),
                None => self.pending_details.push((id, signature)),
            }
        }
    }

    /// Emits every `*_end` event in content order, finalizing tool arguments.
    fn end_blocks(&mut self, out: &mut StreamSender) {
        for state in &mut self.calls {
            if let Some(ContentBlock::ToolCall(call)) =
                self.output.content.get_mut(state.content_index)
            {
                // Reads nothing new unless no fragment carried text: then the arguments are `{}`.
                state.args.update(&mut call.arguments);
            }
        }
        for (index, block) in self.output.content.iter().enumerate() {
            let event = match block {
                ContentBlock::Text(t) => E::TextEnd {
                    content_index: index,
                    content: t.text.clone(),
                    partial: self.output.snapshot(),
                },
                ContentBlock::Thinking(t) => E::ThinkingEnd {
                    content_index: index,
                    content: t.thinking.clone(),
                    partial: self.output.snapshot(),
                },
                ContentBlock::ToolCall(call) => E::ToolCallEnd {
                    content_index: index,
                    tool_call: call.clone(),
                    partial: self.output.snapshot(),
                },
                ContentBlock::Image(_) => continue,
            };
            out.push(event);
        }
    }
}

impl SseFolder for CompletionsFolder {
    fn start(&mut self, out: &mut StreamSender) {
        out.push(E::Start {
            partial: self.output.snapshot(),
        });
    }

    fn on_event(&mut self, event: &SseEvent, out: &mut StreamSender) -> Result<Flow, Failure> {
        let data = event.data.trim();
        if data == "[DONE]" {
            self.saw_done = true;
            return Ok(Flow::Done);
        }
        if data.is_empty() {
            // An empty `data:` line is a keep-alive on some servers, not a chunk.
            return Ok(Flow::Continue);
        }
        if self.fast_chunk(event, data, out) {
            return Ok(Flow::Continue);
        }
        let chunk: Value = serde_json::from_str(data).map_err(|e| {
            Failure::new(
                ErrorKind::MalformedStream,
                format!("Malformed stream chunk: {e}"),
            )
        })?;
        let Value::Object(chunk) = chunk else {
            return Err(Failure::new(
                ErrorKind::MalformedStream,
                "Malformed stream chunk: not a JSON object",
            ));
        };
        let in_stream_error = match chunk.get("error").filter(|e| !e.is_null()) {
            Some(error) => Some(error.clone()),
            // Groq's `event: error` carries the error object; take the whole chunk if it does not.
            None if event.event.as_deref() == Some("error") => Some(Value::Object(chunk.clone())),
            None => None,
        };
        if let Some(error) = in_stream_error {
            // The usage of a failed stream is still spent; keep it on the message.
            if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
                self.set_usage(usage);
            }
            return Err(Failure::new(
                in_stream_error_kind(&error),
                error_message(&error),
            ));
        }
        self.fold_chunk(&chunk, out);
        Ok(Flow::Continue)
    }

    fn finish(&mut self, out: &mut StreamSender) -> Result<AssistantMessage, Failure> {
        if !self.saw_done && self.finish_reason.is_none() {
            return Err(Failure::new(ErrorKind::StreamCut, STREAM_CUT));
        }
        self.end_blocks(out);
        self.output.raw_stop_reason.clone_from(&self.finish_reason);
        self.output.stop_reason = map_finish_reason(self.finish_reason.as_deref())?;
        Ok(self.output.to_message())
    }

    fn partial(&self) -> AssistantMessage {
        self.output.to_message()
    }

    fn classify_http_error(&self, status: u16, body: &str) -> ErrorKind {
        classify_http_error(status, body)
    }

    fn http_error_message(&self, status: u16, body: &str) -> String {
        http_error_message(status, body)
    }

    fn sdk_error_message(&self, status: u16, body: &str) -> String {
        SdkHttpError::parse(status, body).sdk_message().to_owned()
    }
}
