//! Turning the model's streamed text into the assistant event stream: text blocks with deltas,
//! `<tool_call>` blocks as real tool-call events with generated ids, usage in real tokens.

use std::sync::atomic::{AtomicU64, Ordering};

use rho_ai::{
    AssistantMessage, AssistantMessageEvent as E, ContentBlock, ErrorInfo, Model, PartialMessage,
    StopReason, StreamSender, TextContent, ToolCall,
};

use crate::grammar::{TOOL_CALL_CLOSE, TOOL_CALL_OPEN};
use crate::tool_call::{OutputSplitter, Piece, parse_tool_call};

/// What pushing decoded text led to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pushed {
    /// Keep generating.
    More,
    /// A tool call closed: the turn is over.
    CallClosed,
    /// The model repeated a call it already made for this prompt; nothing was emitted for it.
    Repeated,
}

/// Builds the message and sends its events; owns the stream's sending side.
pub(crate) struct Emitter {
    sender: StreamSender,
    partial: PartialMessage,
    model: Model,
    splitter: OutputSplitter,
    /// Calls this turn may not repeat (see [`Emitter::forbid_calls`]).
    forbidden: Vec<(String, serde_json::Value)>,
    /// The text block being streamed, if one is open.
    open_text: Option<usize>,
    started: bool,
}

impl Emitter {
    pub fn new(sender: StreamSender, model: &Model) -> Self {
        let template = AssistantMessage::empty(&model.api, &model.provider, &model.id);
        Emitter {
            sender,
            partial: PartialMessage::new(template),
            model: model.clone(),
            splitter: OutputSplitter::new(),
            forbidden: Vec::new(),
            open_text: None,
            started: false,
        }
    }

    pub fn is_closed(&self) -> bool {
        self.sender.is_closed()
    }

    pub fn set_input_tokens(&mut self, tokens: u64) {
        self.partial.usage.input = tokens;
        self.update_totals();
    }

    pub fn set_output_tokens(&mut self, tokens: u64) {
        self.partial.usage.output = tokens;
        self.update_totals();
    }

    fn update_totals(&mut self) {
        let usage = &mut self.partial.usage;
        usage.total_tokens = usage.input + usage.output;
    }

    pub fn start(&mut self) {
        if !std::mem::replace(&mut self.started, true) {
            self.sender.push(E::Start {
                partial: self.partial.snapshot(),
            });
        }
    }

    /// Refuses, from now on, calls equal to one of `calls` (name and arguments): such a call
    /// is not emitted and [`Pushed::Repeated`] says so.
    pub fn forbid_calls(&mut self, calls: Vec<(String, serde_json::Value)>) {
        self.forbidden = calls;
    }

    /// Streams decoded text.
    pub fn push_text(&mut self, text: &str) -> Pushed {
        for piece in self.splitter.push(text) {
            if let Piece::Call { body, closed: true } = &piece
                && let Ok(call) = parse_tool_call(body)
                && self.forbidden.contains(&call)
            {
                self.splitter = OutputSplitter::new();
                return Pushed::Repeated;
            }
            let closed = matches!(piece, Piece::Call { closed: true, .. });
            self.piece(piece);
            if closed {
                return Pushed::CallClosed;
            }
        }
        Pushed::More
    }

    /// Flushes what is held back and closes the open block; the reason the output ended.
    pub fn finish(&mut self, hit_limit: bool) -> StopReason {
        if let Some(piece) = self.splitter.finish() {
            self.piece(piece);
        }
        self.close_text();
        if self.partial.tool_calls().next().is_some() {
            StopReason::ToolUse
        } else if hit_limit {
            StopReason::Length
        } else {
            StopReason::Stop
        }
    }

    pub fn done(&mut self, reason: StopReason) {
        self.start();
        self.partial.stop_reason = reason;
        let mut message = self.partial.to_message();
        self.model.apply_cost(&mut message.usage);
        self.sender.push(E::Done { reason, message });
    }

    pub fn fail(&mut self, reason: StopReason, text: String, info: ErrorInfo) {
        self.close_text();
        self.partial.stop_reason = reason;
        self.partial.error_message = Some(text);
        self.partial.error_info = Some(info);
        let mut error = self.partial.to_message();
        self.model.apply_cost(&mut error.usage);
        self.sender.push(E::Error { reason, error });
    }

    fn piece(&mut self, piece: Piece) {
        match piece {
            Piece::Text(text) => self.text(&text),
            Piece::Call { body, closed } => match parse_tool_call(&body) {
                Ok((name, arguments)) => self.tool_call(name, arguments),
                // Not a call after all (cut off by the token limit, or malformed outside the
                // grammar): shown as the text it is rather than lost.
                Err(_) => {
                    let close = if closed { TOOL_CALL_CLOSE } else { "" };
                    self.text(&format!("{TOOL_CALL_OPEN}{body}{close}"));
                }
            },
        }
    }

    fn text(&mut self, text: &str) {
        let index = match self.open_text {
            Some(index) => index,
            None => {
                // Whitespace before the first word (or before a tool call) is not an answer.
                let text = text.trim_start();
                if text.is_empty() {
                    return;
                }
                let index = self.partial.content.len();
                self.partial.content.push(ContentBlock::text(""));
                self.open_text = Some(index);
                self.sender.push(E::TextStart {
                    content_index: index,
                    partial: self.partial.snapshot(),
                });
                return self.append_text(index, text);
            }
        };
        self.append_text(index, text);
    }

    fn append_text(&mut self, index: usize, delta: &str) {
        if let Some(ContentBlock::Text(block)) = self.partial.content.get_mut(index) {
            block.text.push_str(delta);
        }
        self.sender.push(E::TextDelta {
            content_index: index,
            delta: delta.to_owned(),
            partial: self.partial.snapshot(),
        });
    }

    fn close_text(&mut self) {
        let Some(index) = self.open_text.take() else {
            return;
        };
        let content = match self.partial.content.get(index) {
            Some(ContentBlock::Text(TextContent { text, .. })) => text.clone(),
            _ => String::new(),
        };
        self.sender.push(E::TextEnd {
            content_index: index,
            content,
            partial: self.partial.snapshot(),
        });
    }

    fn tool_call(&mut self, name: String, arguments: serde_json::Value) {
        self.close_text();
        let index = self.partial.content.len();
        let call = ToolCall {
            id: new_call_id(),
            name,
            arguments: serde_json::Value::Object(serde_json::Map::new()),
            thought_signature: None,
        };
        self.partial
            .content
            .push(ContentBlock::ToolCall(call.clone()));
        self.sender.push(E::ToolCallStart {
            content_index: index,
            partial: self.partial.snapshot(),
        });
        self.sender.push(E::ToolCallDelta {
            content_index: index,
            delta: arguments.to_string(),
            partial: self.partial.snapshot(),
        });
        let call = ToolCall { arguments, ..call };
        if let Some(slot) = self.partial.content.get_mut(index) {
            *slot = ContentBlock::ToolCall(call.clone());
        }
        self.sender.push(E::ToolCallEnd {
            content_index: index,
            tool_call: call,
            partial: self.partial.snapshot(),
        });
    }
}

/// A call id unique in this process and unlikely to repeat across runs of one session.
fn new_call_id() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let millis = rho_ai::now_ms();
    format!("call_{millis:x}{count:04x}")
}
