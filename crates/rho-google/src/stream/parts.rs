//! One `candidates[0].content.parts[]` entry at a time: text and thought parts grow the open
//! block, function calls become whole tool calls.
//!
//! Vertex AI can also stream a call's arguments (`streamFunctionCallArguments`): a named call
//! with `willContinue: true`, then name-less parts carrying `partialArgs` addressed by JSON path,
//! then an empty `functionCall: {}` that closes it. Those are assembled into one tool call whose
//! single `toolcall_delta` / `toolcall_end` are sent when it closes.

use rho_ai::AssistantMessageEvent as E;
use rho_ai::{ContentBlock, StreamSender, TextContent, ThinkingContent, ToolCall};
use serde_json::{Map, Value};

use super::GoogleFolder;

/// The kind of the block text parts are appended to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Open {
    Text,
    Thinking,
}

/// A non-empty `thoughtSignature` of a part. A later part without one keeps the earlier one.
fn signature(part: &Value) -> Option<String> {
    part.get("thoughtSignature")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

impl GoogleFolder {
    fn last_index(&self) -> usize {
        self.message.content.len().saturating_sub(1)
    }

    /// Emits the `*_end` of the open text or thinking block, if any.
    pub(super) fn close_open(&mut self, out: &mut StreamSender) {
        let Some(open) = self.open.take() else {
            return;
        };
        let content_index = self.last_index();
        let event = match (open, self.message.content.last()) {
            (Open::Text, Some(ContentBlock::Text(text))) => E::TextEnd {
                content_index,
                content: text.text.clone(),
                partial: self.message.snapshot(),
            },
            (Open::Thinking, Some(ContentBlock::Thinking(thinking))) => E::ThinkingEnd {
                content_index,
                content: thinking.thinking.clone(),
                partial: self.message.snapshot(),
            },
            _ => return,
        };
        out.push(event);
    }

    pub(super) fn text_part(&mut self, part: &Value, text: &str, out: &mut StreamSender) {
        let thought = part.get("thought").and_then(Value::as_bool) == Some(true);
        self.text(thought, signature(part), text, out);
    }

    /// A text part (a thought part with `thought`) with its non-empty `thoughtSignature`.
    pub(super) fn text(
        &mut self,
        thought: bool,
        incoming: Option<String>,
        text: &str,
        out: &mut StreamSender,
    ) {
        self.end_streaming_call(out);
        let kind = if thought { Open::Thinking } else { Open::Text };
        if self.open != Some(kind) {
            self.close_open(out);
            let block = match kind {
                Open::Text => ContentBlock::Text(TextContent {
                    text: String::new(),
                    text_signature: None,
                }),
                Open::Thinking => ContentBlock::Thinking(ThinkingContent {
                    thinking: String::new(),
                    thinking_signature: None,
                    redacted: None,
                }),
            };
            self.message.content.push(block);
            self.open = Some(kind);
            let content_index = self.last_index();
            let partial = self.message.snapshot();
            out.push(match kind {
                Open::Text => E::TextStart {
                    content_index,
                    partial,
                },
                Open::Thinking => E::ThinkingStart {
                    content_index,
                    partial,
                },
            });
        }
        match self.message.content.last_mut() {
            Some(ContentBlock::Text(block)) => {
                block.text.push_str(text);
                if incoming.is_some() {
                    block.text_signature = incoming;
                }
            }
            Some(ContentBlock::Thinking(block)) => {
                block.thinking.push_str(text);
                if incoming.is_some() {
                    block.thinking_signature = incoming;
                }
            }
            _ => return,
        }
        let content_index = self.last_index();
        let delta = text.to_owned();
        let partial = self.message.snapshot();
        out.push(match kind {
            Open::Text => E::TextDelta {
                content_index,
                delta,
                partial,
            },
            Open::Thinking => E::ThinkingDelta {
                content_index,
                delta,
                partial,
            },
        });
    }

    pub(super) fn function_call_part(
        &mut self,
        part: &Value,
        call: &Value,
        out: &mut StreamSender,
    ) {
        let name = call.get("name").and_then(Value::as_str);
        let continues = call.get("willContinue").and_then(Value::as_bool) == Some(true);
        if let (Some(index), None) = (self.streaming_call, name) {
            // A continuation of the Vertex call being streamed.
            if let Some(fragments) = call.get("partialArgs").and_then(Value::as_array)
                && let Some(ContentBlock::ToolCall(tool_call)) = self.message.content.get_mut(index)
            {
                apply_partial_args(&mut tool_call.arguments, fragments);
            }
            if !continues {
                self.end_streaming_call(out);
            }
            return;
        }
        self.end_streaming_call(out);
        self.close_open(out);

        let name = name.unwrap_or_default().to_owned();
        let provided = call
            .get("id")
            .and_then(Value::as_str)
            .filter(|id| !id.is_empty());
        let duplicate = |id: &str| self.message.tool_calls().any(|c| c.id == id);
        let id = match provided {
            Some(id) if !duplicate(id) => id.to_owned(),
            _ => (self.ids)(&name),
        };
        let arguments = match call.get("args") {
            Some(Value::Object(args)) => Value::Object(args.clone()),
            _ => Value::Object(Map::new()),
        };
        let tool_call = ToolCall {
            id,
            name,
            arguments,
            thought_signature: signature(part),
        };
        self.message.content.push(ContentBlock::ToolCall(tool_call));
        out.push(E::ToolCallStart {
            content_index: self.last_index(),
            partial: self.message.snapshot(),
        });
        if continues {
            self.streaming_call = Some(self.last_index());
        } else {
            self.end_call(self.last_index(), out);
        }
    }

    /// Closes the Vertex call still receiving arguments, if any.
    pub(super) fn end_streaming_call(&mut self, out: &mut StreamSender) {
        if let Some(index) = self.streaming_call.take() {
            self.end_call(index, out);
        }
    }

    /// The one `toolcall_delta` (the arguments as JSON) and the `toolcall_end` of a call.
    fn end_call(&mut self, content_index: usize, out: &mut StreamSender) {
        let Some(ContentBlock::ToolCall(tool_call)) = self.message.content.get(content_index)
        else {
            return;
        };
        let tool_call = tool_call.clone();
        out.push(E::ToolCallDelta {
            content_index,
            delta: tool_call.arguments.to_string(),
            partial: self.message.snapshot(),
        });
        out.push(E::ToolCallEnd {
            content_index,
            tool_call,
            partial: self.message.snapshot(),
        });
    }
}

/// Applies Vertex `partialArgs` fragments (`{jsonPath:"$.a.b", stringValue|numberValue|
/// boolValue|nullValue}`) to `args`: string fragments append, other values replace. A path that
/// is not a plain `$.key.key` chain is skipped rather than guessed at.
fn apply_partial_args(args: &mut Value, fragments: &[Value]) {
    for fragment in fragments {
        let Some(path) = fragment
            .get("jsonPath")
            .and_then(Value::as_str)
            .and_then(|path| path.strip_prefix("$."))
        else {
            continue;
        };
        if path.contains('[') || path.split('.').any(str::is_empty) {
            continue;
        }
        let Some(slot) = slot_at(args, path) else {
            continue;
        };
        if let Some(text) = fragment.get("stringValue").and_then(Value::as_str) {
            match slot {
                Value::String(existing) => existing.push_str(text),
                other => *other = Value::String(text.to_owned()),
            }
        } else if let Some(number) = fragment.get("numberValue").filter(|v| v.is_number()) {
            *slot = number.clone();
        } else if let Some(flag) = fragment.get("boolValue").filter(|v| v.is_boolean()) {
            *slot = flag.clone();
        } else if fragment.get("nullValue").is_some() {
            *slot = Value::Null;
        }
    }
}

/// The value at a dotted path, creating objects on the way (a `null` becomes one); `None` when
/// another non-object is in the way.
fn slot_at<'a>(root: &'a mut Value, path: &str) -> Option<&'a mut Value> {
    let mut node = root;
    for key in path.split('.') {
        if node.is_null() {
            *node = Value::Object(Map::new());
        }
        node = node
            .as_object_mut()?
            .entry(key.to_owned())
            .or_insert(Value::Null);
    }
    Some(node)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn partial_args_append_strings_set_other_values_and_skip_odd_paths() {
        let mut args = json!({});
        apply_partial_args(
            &mut args,
            &[
                json!({"jsonPath": "$.id", "stringValue": "A", "willContinue": true}),
                json!({"jsonPath": "$.id", "stringValue": "B"}),
                json!({"jsonPath": "$.opts.n", "numberValue": 3}),
                json!({"jsonPath": "$.opts.on", "boolValue": true}),
                json!({"jsonPath": "$.list[0]", "stringValue": "x"}),
                json!({"jsonPath": "id", "stringValue": "x"}),
            ],
        );
        assert_eq!(args, json!({"id": "AB", "opts": {"n": 3, "on": true}}));
    }
}
