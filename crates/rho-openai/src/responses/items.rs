//! The output items of one response, each folded into its own content block: added by
//! `response.output_item.added`, grown by its deltas, finished by `response.output_item.done`,
//! which carries the whole item (the reasoning item becomes the thinking signature, the message
//! id and phase the text signature).

use rho_ai::partial_json::{StreamingJson, parse_streaming_json};
use rho_ai::{AssistantMessageEvent as E, ContentBlock, StreamSender, ThinkingContent, ToolCall};
use serde_json::Value;

use super::ids::encode_text_signature;
use super::stream::ResponsesFolder;

/// What an output item becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ItemKind {
    /// A `reasoning` item: a thinking block.
    Reasoning,
    /// A `message` item: a text block.
    Message,
    /// A `function_call` item: a tool-call block.
    FunctionCall,
}

/// One output item being streamed.
#[derive(Debug)]
pub(super) struct ItemState {
    /// What the item becomes.
    pub(super) kind: ItemKind,
    /// The item's `id`, which later events name as `item_id`.
    pub(super) id: Option<String>,
    /// Index of its block in `output.content`.
    pub(super) content_index: usize,
    /// The argument JSON so far (function calls), parsed as it streams.
    pub(super) args: StreamingJson,
    /// `response.output_item.done` arrived.
    pub(super) ended: bool,
}

/// A string field of a JSON object.
pub(super) fn str_field<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

/// The texts of an item's parts (`summary` or `content`) under `key`, joined by `separator`.
fn join_parts(item: &Value, parts: &str, key: &str, separator: &str) -> String {
    item.get(parts)
        .and_then(Value::as_array)
        .map(|parts| {
            parts
                .iter()
                .filter_map(|part| str_field(part, key))
                .collect::<Vec<_>>()
                .join(separator)
        })
        .unwrap_or_default()
}

impl ResponsesFolder {
    /// The open item of `kind` an event names by `item_id`; when no item has that id (or the
    /// event names none), the latest open item of that kind: servers that leave `item_id` out
    /// stream one item at a time. A finished item is never reopened.
    pub(super) fn find(&self, kind: ItemKind, item_id: Option<&str>) -> Option<usize> {
        let open = |item: &ItemState| item.kind == kind && !item.ended;
        if let Some(id) = item_id
            && let Some(found) = self
                .items
                .iter()
                .rposition(|item| item.id.as_deref() == Some(id))
        {
            return open(&self.items[found]).then_some(found);
        }
        self.items.iter().rposition(open)
    }

    /// The content block of item `state`.
    pub(super) fn block(&mut self, state: usize) -> Option<&mut ContentBlock> {
        let index = self.items.get(state)?.content_index;
        self.output.content.get_mut(index)
    }

    /// A new output item: its block is appended and started. Items rho does not show (hosted
    /// tools such as web search) are skipped.
    pub(super) fn add_item(&mut self, item: &Value, out: &mut StreamSender) {
        let id = str_field(item, "id").map(str::to_owned);
        let content_index = self.output.content.len();
        let (kind, block, args) = match str_field(item, "type") {
            Some("reasoning") => (
                ItemKind::Reasoning,
                ContentBlock::Thinking(ThinkingContent {
                    thinking: String::new(),
                    thinking_signature: None,
                    redacted: None,
                }),
                StreamingJson::new(),
            ),
            Some("message") => (
                ItemKind::Message,
                ContentBlock::text(""),
                StreamingJson::new(),
            ),
            Some("function_call") => {
                let mut args = StreamingJson::new();
                args.push(str_field(item, "arguments").unwrap_or(""));
                let mut arguments = Value::Null;
                args.update(&mut arguments);
                let call = ToolCall {
                    id: format!(
                        "{}|{}",
                        str_field(item, "call_id").unwrap_or(""),
                        id.as_deref().unwrap_or("")
                    ),
                    name: str_field(item, "name").unwrap_or("").to_owned(),
                    arguments,
                    thought_signature: None,
                };
                (ItemKind::FunctionCall, ContentBlock::ToolCall(call), args)
            }
            // Hosted tools run on the provider's side; they are not rho's to show or run.
            _ => return,
        };
        self.output.content.push(block);
        self.items.push(ItemState {
            kind,
            id,
            content_index,
            args,
            ended: false,
        });
        let partial = self.output.snapshot();
        out.push(match kind {
            ItemKind::Reasoning => E::ThinkingStart {
                content_index,
                partial,
            },
            ItemKind::Message => E::TextStart {
                content_index,
                partial,
            },
            ItemKind::FunctionCall => E::ToolCallStart {
                content_index,
                partial,
            },
        });
    }

    /// Reasoning text (summary or raw) for a reasoning item.
    pub(super) fn push_thinking(
        &mut self,
        item_id: Option<&str>,
        delta: &str,
        out: &mut StreamSender,
    ) {
        let Some(state) = self.find(ItemKind::Reasoning, item_id) else {
            return;
        };
        if let Some(ContentBlock::Thinking(block)) = self.block(state) {
            block.thinking.push_str(delta);
        }
        out.push(E::ThinkingDelta {
            content_index: self.items[state].content_index,
            delta: delta.to_owned(),
            partial: self.output.snapshot(),
        });
    }

    /// Output or refusal text for a message item.
    pub(super) fn push_text(&mut self, item_id: Option<&str>, delta: &str, out: &mut StreamSender) {
        let Some(state) = self.find(ItemKind::Message, item_id) else {
            return;
        };
        if let Some(ContentBlock::Text(block)) = self.block(state) {
            block.text.push_str(delta);
        }
        out.push(E::TextDelta {
            content_index: self.items[state].content_index,
            delta: delta.to_owned(),
            partial: self.output.snapshot(),
        });
    }

    /// Appends argument JSON (`replace`: the server's final arguments, of which only the part not
    /// yet streamed is emitted as a delta).
    pub(super) fn push_args(
        &mut self,
        item_id: Option<&str>,
        text: &str,
        replace: bool,
        out: &mut StreamSender,
    ) {
        let Some(state) = self.find(ItemKind::FunctionCall, item_id) else {
            return;
        };
        let Some(item) = self.items.get_mut(state) else {
            return;
        };
        let delta = if replace {
            match text.strip_prefix(item.args.text()) {
                Some(suffix) => {
                    item.args.push(suffix);
                    suffix.to_owned()
                }
                None => {
                    item.args = StreamingJson::new();
                    item.args.push(text);
                    String::new()
                }
            }
        } else {
            item.args.push(text);
            text.to_owned()
        };
        let content_index = item.content_index;
        if let Some(ContentBlock::ToolCall(call)) = self.output.content.get_mut(content_index) {
            item.args.update(&mut call.arguments);
        }
        if !delta.is_empty() || !replace {
            out.push(E::ToolCallDelta {
                content_index,
                delta,
                partial: self.output.snapshot(),
            });
        }
    }

    /// `response.output_item.done`: the block takes its final form from the whole item and ends.
    pub(super) fn end_item(&mut self, item: &Value, out: &mut StreamSender) {
        let kind = match str_field(item, "type") {
            Some("reasoning") => ItemKind::Reasoning,
            Some("message") => ItemKind::Message,
            Some("function_call") => ItemKind::FunctionCall,
            _ => return,
        };
        let state = match self.find(kind, str_field(item, "id")) {
            Some(state) => state,
            None if kind == ItemKind::FunctionCall => {
                // A call that was never announced still has to reach the model's caller.
                self.add_item(item, out);
                self.items.len() - 1
            }
            None => return,
        };
        self.items[state].ended = true;
        let content_index = self.items[state].content_index;
        let mut args = std::mem::take(&mut self.items[state].args);
        let Some(block) = self.block(state) else {
            return;
        };
        let event = match block {
            ContentBlock::Thinking(thinking) => {
                let summary = join_parts(item, "summary", "text", "\n\n");
                let content = join_parts(item, "content", "text", "\n\n");
                if !summary.is_empty() {
                    thinking.thinking = summary;
                } else if !content.is_empty() {
                    thinking.thinking = content;
                }
                thinking.thinking_signature = Some(item.to_string());
                let content = thinking.thinking.clone();
                E::ThinkingEnd {
                    content_index,
                    content,
                    partial: self.output.snapshot(),
                }
            }
            ContentBlock::Text(text) => {
                let parts = item.get("content").and_then(Value::as_array);
                text.text = parts
                    .into_iter()
                    .flatten()
                    .filter_map(|part| match str_field(part, "type") {
                        Some("output_text") => str_field(part, "text"),
                        Some("refusal") => str_field(part, "refusal"),
                        _ => None,
                    })
                    .collect();
                let id = str_field(item, "id").unwrap_or("");
                text.text_signature = Some(encode_text_signature(id, str_field(item, "phase")));
                let content = text.text.clone();
                E::TextEnd {
                    content_index,
                    content,
                    partial: self.output.snapshot(),
                }
            }
            ContentBlock::ToolCall(call) => {
                if args.text().is_empty() {
                    let final_args = str_field(item, "arguments")
                        .filter(|a| !a.is_empty())
                        .unwrap_or("{}");
                    call.arguments = Value::Object(parse_streaming_json(final_args));
                } else {
                    // The last delta's update left the final parse: this reads nothing new.
                    args.update(&mut call.arguments);
                }
                let tool_call = call.clone();
                E::ToolCallEnd {
                    content_index,
                    tool_call,
                    partial: self.output.snapshot(),
                }
            }
            ContentBlock::Image(_) => return,
        };
        out.push(event);
    }
}
