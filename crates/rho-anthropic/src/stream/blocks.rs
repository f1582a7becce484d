//! Content blocks of one response: `content_block_start` opens a block (a rho content block, or
//! a server-side block kept aside), deltas grow it, `content_block_stop` closes it with its
//! `*_end` event.

use rho_ai::AssistantMessageEvent as E;
use rho_ai::partial_json::{StreamingJson, parse_streaming_json};
use rho_ai::{ContentBlock, StreamSender, TextContent, ThinkingContent, ToolCall};
use rho_http::Failure;
use serde_json::{Map, Value};

use super::{AnthropicFolder, REDACTED_THINKING, malformed};

/// The fields of a `content_block_delta`'s `delta` the folder reads; "" when absent or not a
/// string.
pub(super) struct DeltaFields<'a> {
    /// `type`.
    pub(super) kind: &'a str,
    /// `text` (`text_delta`).
    pub(super) text: &'a str,
    /// `thinking` (`thinking_delta`).
    pub(super) thinking: &'a str,
    /// `partial_json` (`input_json_delta`).
    pub(super) partial_json: &'a str,
    /// `signature` (`signature_delta`).
    pub(super) signature: &'a str,
}

/// A string field of a block, "" when absent.
fn text_of(block: &Value, key: &str) -> String {
    block
        .get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// Where an open Anthropic content block is being built.
#[derive(Debug)]
pub(super) enum Slot {
    /// A block of `message.content` at this position; `json` parses its tool arguments as they
    /// stream.
    Content {
        position: usize,
        json: StreamingJson,
    },
    /// A server-side tool block, kept opaque; `json` is its streamed `input`; it stood before
    /// `message.content[position]`.
    Server {
        block: Value,
        json: String,
        position: usize,
    },
}

impl AnthropicFolder {
    /// `content_block_start`: appends a rho block and emits its `*_start`, or keeps a
    /// server-side block aside.
    pub(super) fn block_start(
        &mut self,
        data: &mut Value,
        out: &mut StreamSender,
    ) -> Result<(), Failure> {
        let index = data.get("index").and_then(Value::as_u64);
        let (Some(index), Some(block)) = (index, data.get_mut("content_block")) else {
            return Err(malformed(
                "Anthropic content_block_start without index or content_block",
            ));
        };
        let kind = block
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let position = self.message.content.len();
        let new_block = match kind {
            "text" => ContentBlock::Text(TextContent {
                text: String::new(),
                text_signature: None,
            }),
            "thinking" => ContentBlock::Thinking(ThinkingContent {
                thinking: String::new(),
                thinking_signature: Some(String::new()),
                redacted: None,
            }),
            "redacted_thinking" => ContentBlock::Thinking(ThinkingContent {
                thinking: REDACTED_THINKING.to_owned(),
                thinking_signature: Some(text_of(block, "data")),
                redacted: Some(true),
            }),
            "tool_use" => ContentBlock::ToolCall(ToolCall {
                id: text_of(block, "id"),
                name: text_of(block, "name"),
                arguments: match block.get("input") {
                    Some(Value::Object(input)) => Value::Object(input.clone()),
                    _ => Value::Object(Map::new()),
                },
                thought_signature: None,
            }),
            _ => {
                // The event is dropped after this: the (large) block is moved, not copied.
                let slot = Slot::Server {
                    block: block.take(),
                    json: String::new(),
                    position: self.message.content.len(),
                };
                self.open.push((index, slot));
                return Ok(());
            }
        };
        let is_tool = matches!(new_block, ContentBlock::ToolCall(_));
        let is_text = matches!(new_block, ContentBlock::Text(_));
        self.message.content.push(new_block);
        self.open.push((
            index,
            Slot::Content {
                position,
                json: StreamingJson::new(),
            },
        ));
        let partial = self.message.snapshot();
        out.push(if is_tool {
            E::ToolCallStart {
                content_index: position,
                partial,
            }
        } else if is_text {
            E::TextStart {
                content_index: position,
                partial,
            }
        } else {
            E::ThinkingStart {
                content_index: position,
                partial,
            }
        });
        // A block that starts with content (never seen, but allowed) streams it as a first delta.
        let initial = match kind {
            "text" => text_of(block, "text"),
            "thinking" => text_of(block, "thinking"),
            _ => String::new(),
        };
        if !initial.is_empty() {
            self.append_text(position, &initial, kind == "thinking", out);
        }
        Ok(())
    }

    /// Appends to the text block (or, with `thinking`, the thinking block) at `position` and
    /// emits the matching delta; a delta of the wrong kind for the block is ignored.
    fn append_text(
        &mut self,
        position: usize,
        delta: &str,
        thinking: bool,
        out: &mut StreamSender,
    ) {
        let is_text = match self.message.content.get_mut(position) {
            Some(ContentBlock::Text(t)) if !thinking => {
                t.text.push_str(delta);
                true
            }
            Some(ContentBlock::Thinking(t)) if thinking && t.redacted != Some(true) => {
                t.thinking.push_str(delta);
                false
            }
            _ => return,
        };
        let (content_index, delta, partial) = (position, delta.to_owned(), self.message.snapshot());
        out.push(if is_text {
            E::TextDelta {
                content_index,
                delta,
                partial,
            }
        } else {
            E::ThinkingDelta {
                content_index,
                delta,
                partial,
            }
        });
    }

    /// `content_block_delta`: grows the open block; tool arguments are parsed on with every
    /// fragment so each `toolcall_delta` partial holds the best-effort arguments so far.
    pub(super) fn block_delta(&mut self, data: &Value, out: &mut StreamSender) {
        let Some(index) = data.get("index").and_then(Value::as_u64) else {
            return;
        };
        let Some(delta) = data.get("delta") else {
            return;
        };
        let field = |key: &str| delta.get(key).and_then(Value::as_str).unwrap_or_default();
        let fields = DeltaFields {
            kind: field("type"),
            text: field("text"),
            thinking: field("thinking"),
            partial_json: field("partial_json"),
            signature: field("signature"),
        };
        self.apply_delta(index, &fields, out);
    }

    /// Grows the open block with Anthropic index `index` by one delta.
    pub(super) fn apply_delta(
        &mut self,
        index: u64,
        delta: &DeltaFields<'_>,
        out: &mut StreamSender,
    ) {
        // The open block with Anthropic index `index` (borrowed apart from `message`, which a
        // tool call's arguments are parsed into).
        let slot = self.open.iter_mut().find(|(open, _)| *open == index);
        let Some((_, slot)) = slot else {
            // Pi ignores deltas for blocks it does not know.
            return;
        };
        match (slot, delta.kind) {
            (Slot::Server { json, .. }, "input_json_delta") => json.push_str(delta.partial_json),
            (Slot::Server { .. }, _) => {}
            (Slot::Content { position, .. }, "text_delta" | "thinking_delta") => {
                let position = *position;
                let thinking = delta.kind == "thinking_delta";
                let text = if thinking { delta.thinking } else { delta.text };
                self.append_text(position, text, thinking, out);
            }
            (Slot::Content { position, json }, "input_json_delta") => {
                let fragment = delta.partial_json;
                json.push(fragment);
                let position = *position;
                if let Some(ContentBlock::ToolCall(call)) = self.message.content.get_mut(position) {
                    json.update(&mut call.arguments);
                    out.push(E::ToolCallDelta {
                        content_index: position,
                        delta: fragment.to_owned(),
                        partial: self.message.snapshot(),
                    });
                }
            }
            (Slot::Content { position, .. }, "signature_delta") => {
                let position = *position;
                if let Some(ContentBlock::Thinking(t)) = self.message.content.get_mut(position) {
                    t.thinking_signature
                        .get_or_insert_with(String::new)
                        .push_str(delta.signature);
                }
            }
            // `citations_delta` and future delta types have no place in rho's content.
            _ => {}
        }
    }

    /// `content_block_stop`: closes the block with its `*_end` (or files a server block).
    pub(super) fn block_stop(&mut self, index: u64, out: &mut StreamSender) {
        let Some(at) = self.open.iter().position(|(open, _)| *open == index) else {
            return;
        };
        let (_, slot) = self.open.remove(at);
        match slot {
            Slot::Server {
                mut block,
                json,
                position,
            } => {
                if !json.trim().is_empty()
                    && let Value::Object(fields) = &mut block
                {
                    fields.insert("input".into(), Value::Object(parse_streaming_json(&json)));
                }
                self.message.provider_blocks.push(rho_ai::ProviderBlock {
                    position,
                    block: std::sync::Arc::new(block.clone()),
                });
                self.server_blocks.push(block);
            }
            Slot::Content { position, json } => self.end_content_block(position, json, out),
        }
    }

    /// Emits the `*_end` of the rho block at `position`, with the tool arguments' final parse.
    fn end_content_block(
        &mut self,
        position: usize,
        mut json: StreamingJson,
        out: &mut StreamSender,
    ) {
        enum Ended {
            Text(String),
            Thinking(String),
            Tool(ToolCall),
        }
        let ended = match self.message.content.get_mut(position) {
            Some(ContentBlock::Text(t)) => Ended::Text(t.text.clone()),
            Some(ContentBlock::Thinking(t)) => Ended::Thinking(t.thinking.clone()),
            Some(ContentBlock::ToolCall(call)) => {
                // No argument deltas at all: keep what content_block_start gave. Otherwise the
                // last delta's update left the final parse (this one reads nothing new).
                if !json.text().trim().is_empty() {
                    json.update(&mut call.arguments);
                }
                Ended::Tool(call.clone())
            }
            Some(ContentBlock::Image(_)) | None => return,
        };
        let (content_index, partial) = (position, self.message.snapshot());
        out.push(match ended {
            Ended::Text(content) => E::TextEnd {
                content_index,
                content,
                partial,
            },
            Ended::Thinking(content) => E::ThinkingEnd {
                content_index,
                content,
                partial,
            },
            Ended::Tool(tool_call) => E::ToolCallEnd {
                content_index,
                tool_call,
                partial,
            },
        });
    }
}
