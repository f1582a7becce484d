//! The events the recorded Anthropic streams produce: their order, the best-effort tool
//! arguments in every partial, and blocks whose deltas add up to their end content.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{cost, fixture_body, fold, kinds, model, strings};
use rho_ai::{
    AssistantMessage, AssistantMessageEvent as E, ContentBlock, Cost, StopReason, TextContent,
    ToolCall, Usage,
};
use serde_json::{Value, json};

#[test]
fn the_smallest_text_stream_emits_start_text_events_and_done_with_the_whole_message() {
    let folded = fold(&fixture_body("text-simple.sse"));
    assert_eq!(
        kinds(&folded.events),
        strings(&["start", "text_start", "text_delta", "text_end", "done"])
    );
    let message = folded.outcome.unwrap();
    let m = model();
    let expected = AssistantMessage {
        content: vec![ContentBlock::Text(TextContent {
            text: "Hello".into(),
            text_signature: None,
        })],
        response_id: Some("msg_01T8kTq7cYyYJeQ5DxcVUc6D".into()),
        usage: Usage {
            input: 10,
            output: 4,
            cache_read: 0,
            cache_write: 0,
            total_tokens: 14,
            cost: Cost {
                input: cost(3.0, 10),
                output: cost(15.0, 4),
                cache_read: 0.0,
                cache_write: 0.0,
                total: cost(3.0, 10) + cost(15.0, 4),
                total_from_provider: Some(false),
            },
            cache_write_1h: Some(0),
            ..Default::default()
        },
        stop_reason: StopReason::Stop,
        raw_stop_reason: Some("end_turn".into()),
        timestamp: message.timestamp,
        ..AssistantMessage::empty(&m.api, &m.provider, &m.id)
    };
    assert_eq!(message, expected);
}

#[test]
fn tool_argument_deltas_carry_best_effort_arguments_in_every_partial() {
    let folded = fold(&fixture_body("text-then-tool-use-json.jsonl"));
    assert_eq!(
        kinds(&folded.events),
        strings(&[
            "start",
            "text_start",
            "text_delta",
            "text_delta",
            "text_end",
            "toolcall_start",
            "toolcall_delta",
            "toolcall_delta",
            "toolcall_delta",
            "toolcall_end",
            "done",
        ])
    );
    let element = json!({"location": "San Francisco", "temperature": 58, "condition": "sunny"});
    let arguments_seen: Vec<(String, Value)> = folded
        .events
        .iter()
        .filter_map(|event| match event {
            E::ToolCallDelta {
                content_index,
                delta,
                partial,
            } => match &partial.content[*content_index] {
                ContentBlock::ToolCall(call) => Some((delta.clone(), call.arguments.clone())),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(
        arguments_seen,
        vec![
            (String::new(), json!({})),
            (
                r#"{"elements": [{"location": "San Francisco", "temperature": 58, "condition": "sunny"}]"#
                    .into(),
                json!({"elements": [element]})
            ),
            ("}".into(), json!({"elements": [element]})),
        ]
    );
    let end = folded
        .events
        .iter()
        .find_map(|event| match event {
            E::ToolCallEnd {
                content_index,
                tool_call,
                ..
            } => Some((*content_index, tool_call.clone())),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        end,
        (
            1,
            ToolCall {
                id: "toolu_01KFbKqPYSuAKujiL6mTfzYA".into(),
                name: "json".into(),
                arguments: json!({"elements": [element]}),
                thought_signature: None,
            }
        )
    );
}

#[test]
fn redacted_thinking_emits_a_start_and_an_end_without_deltas() {
    let folded = fold(&fixture_body("redacted-thinking.sse"));
    let mut expected = strings(&[
        "start",
        "thinking_start",
        "thinking_end",
        "thinking_start",
        "thinking_end",
        "text_start",
    ]);
    expected.extend(std::iter::repeat_n("text_delta".to_owned(), 15));
    expected.extend(strings(&["text_end", "done"]));
    assert_eq!(kinds(&folded.events), expected);
}

#[test]
fn in_every_fixture_each_block_ends_with_the_concatenation_of_its_deltas() {
    for name in common::FIXTURES {
        let folded = fold(&fixture_body(name));
        let mut streamed: Vec<String> = Vec::new();
        let mut ended = 0;
        for event in &folded.events {
            match event {
                E::TextStart { content_index, .. }
                | E::ThinkingStart { content_index, .. }
                | E::ToolCallStart { content_index, .. } => {
                    assert_eq!(*content_index, streamed.len(), "{name}");
                    streamed.push(String::new());
                }
                E::TextDelta {
                    content_index,
                    delta,
                    ..
                }
                | E::ThinkingDelta {
                    content_index,
                    delta,
                    ..
                } => streamed[*content_index].push_str(delta),
                E::TextEnd {
                    content_index,
                    content,
                    partial,
                } => {
                    assert_eq!(&streamed[*content_index], content, "{name}");
                    assert_eq!(partial.content[*content_index].as_text(), Some(&**content));
                    ended += 1;
                }
                E::ThinkingEnd {
                    content_index,
                    content,
                    partial,
                } => {
                    let ContentBlock::Thinking(block) = &partial.content[*content_index] else {
                        panic!("{name}: thinking_end on a non-thinking block");
                    };
                    if block.redacted != Some(true) {
                        assert_eq!(&streamed[*content_index], content, "{name}");
                    }
                    assert_eq!(&block.thinking, content, "{name}");
                    ended += 1;
                }
                E::ToolCallEnd { .. } => ended += 1,
                _ => {}
            }
        }
        assert_eq!(ended, streamed.len(), "{name}: every block ended");
        let message = folded.outcome.unwrap();
        assert_eq!(message.content.len(), streamed.len(), "{name}");
    }
}
