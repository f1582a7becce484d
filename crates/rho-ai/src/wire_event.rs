//! The assistant event as Pi 1.6 prints it inside `message_update` (delta §1.1, E1–E2): only
//! the delta, never the cumulative `partial`; `toolcall_start` names the call it opens.

use serde::ser::{SerializeMap, Serializer};

use crate::content::{ContentBlock, ToolCall};
use crate::event::AssistantMessageEvent;

/// Serializes `event` without its `partial`: `{type, contentIndex, delta | content | toolCall}`,
/// and `{type:"toolcall_start", contentIndex, id, toolName}`. Terminal events never reach a
/// `message_update`; they are written with their message as they are.
pub fn serialize_delta_only<S: Serializer>(
    event: &AssistantMessageEvent,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    use AssistantMessageEvent as E;
    let mut map = serializer.serialize_map(None)?;
    match event {
        E::Start { .. } => map.serialize_entry("type", "start")?,
        E::TextStart { content_index, .. } => start(&mut map, "text_start", *content_index)?,
        E::ThinkingStart { content_index, .. } => {
            start(&mut map, "thinking_start", *content_index)?
        }
        E::TextDelta {
            content_index,
            delta,
            ..
        } => with(&mut map, "text_delta", *content_index, "delta", delta)?,
        E::ThinkingDelta {
            content_index,
            delta,
            ..
        } => with(&mut map, "thinking_delta", *content_index, "delta", delta)?,
        E::ToolCallDelta {
            content_index,
            delta,
            ..
        } => with(&mut map, "toolcall_delta", *content_index, "delta", delta)?,
        E::TextEnd {
            content_index,
            content,
            ..
        } => with(&mut map, "text_end", *content_index, "content", content)?,
        E::ThinkingEnd {
            content_index,
            content,
            ..
        } => with(&mut map, "thinking_end", *content_index, "content", content)?,
        E::ToolCallStart {
            content_index,
            partial,
        } => {
            start(&mut map, "toolcall_start", *content_index)?;
            if let Some(ContentBlock::ToolCall(call)) = partial.content.get(*content_index) {
                map.serialize_entry("id", &call.id)?;
                map.serialize_entry("toolName", &call.name)?;
            }
        }
        E::ToolCallEnd {
            content_index,
            tool_call,
            ..
        } => with(
            &mut map,
            "toolcall_end",
            *content_index,
            "toolCall",
            &Tagged::ToolCall(tool_call),
        )?,
        E::Done { reason, message } => {
            map.serialize_entry("type", "done")?;
            map.serialize_entry("reason", reason)?;
            map.serialize_entry("message", message)?;
        }
        E::Error { reason, error } => {
            map.serialize_entry("type", "error")?;
            map.serialize_entry("reason", reason)?;
            map.serialize_entry("error", error)?;
        }
    }
    map.end()
}

/// A tool call as a content block writes it: `{"type":"toolCall", id, name, arguments, …}`.
#[derive(serde::Serialize)]
#[serde(tag = "type")]
enum Tagged<'a> {
    #[serde(rename = "toolCall")]
    ToolCall(&'a ToolCall),
}

fn start<M: SerializeMap>(map: &mut M, kind: &str, index: usize) -> Result<(), M::Error> {
    map.serialize_entry("type", kind)?;
    map.serialize_entry("contentIndex", &index)
}

fn with<M: SerializeMap, V: serde::Serialize + ?Sized>(
    map: &mut M,
    kind: &str,
    index: usize,
    key: &str,
    value: &V,
) -> Result<(), M::Error> {
    start(map, kind, index)?;
    map.serialize_entry(key, value)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::sync::Arc;

    use super::*;
    use crate::message::AssistantMessage;

    fn json(event: &AssistantMessageEvent) -> String {
        let mut out = Vec::new();
        serialize_delta_only(event, &mut serde_json::Serializer::new(&mut out)).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn deltas_carry_no_partial_and_a_tool_call_start_names_its_call() {
        let mut partial = AssistantMessage::empty("a", "p", "m");
        partial.content.push(ContentBlock::text("Reading"));
        partial.content.push(ContentBlock::ToolCall(ToolCall {
            id: "call_1".into(),
            name: "read".into(),
            arguments: serde_json::json!({}),
            thought_signature: None,
        }));
        let partial = Arc::new(partial);
        assert_eq!(
            json(&AssistantMessageEvent::TextDelta {
                content_index: 0,
                delta: "Reading".into(),
                partial: partial.clone(),
            }),
            r#"{"type":"text_delta","contentIndex":0,"delta":"Reading"}"#
        );
        assert_eq!(
            json(&AssistantMessageEvent::ToolCallStart {
                content_index: 1,
                partial: partial.clone(),
            }),
            r#"{"type":"toolcall_start","contentIndex":1,"id":"call_1","toolName":"read"}"#
        );
        assert_eq!(
            json(&AssistantMessageEvent::TextEnd {
                content_index: 0,
                content: "Reading".into(),
                partial: partial.clone(),
            }),
            r#"{"type":"text_end","contentIndex":0,"content":"Reading"}"#
        );
        let ContentBlock::ToolCall(call) = &partial.content[1] else {
            unreachable!()
        };
        assert_eq!(
            json(&AssistantMessageEvent::ToolCallEnd {
                content_index: 1,
                tool_call: call.clone(),
                partial: partial.clone(),
            }),
            r#"{"type":"toolcall_end","contentIndex":1,"toolCall":{"type":"toolCall","id":"call_1","name":"read","arguments":{}}}"#
        );
    }
}
