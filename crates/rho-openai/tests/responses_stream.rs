//! Responses stream edge cases not covered by recordings: truncation, error events, malformed
//! data, cancelled responses, hosted-tool items and early ends.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::responses_common;

use responses_common::{fold_events, fold_in_pieces, kinds, model};
use rho_ai::{
    AssistantMessage, ContentBlock, ErrorInfo, ErrorKind, StopReason, TextContent, ToolCall, Usage,
};
use serde_json::{Value, json};

fn created() -> Value {
    json!({"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}})
}

fn message_added() -> Value {
    json!({"type": "response.output_item.added", "item": {"id": "msg_1", "type": "message", "content": []}})
}

fn text_delta(delta: &str) -> Value {
    json!({"type": "response.output_text.delta", "item_id": "msg_1", "delta": delta})
}

/// A finished reply with no usage reported (so never priced).
fn base(content: Vec<ContentBlock>, actual: &AssistantMessage) -> AssistantMessage {
    let mut message = AssistantMessage::empty("openai-responses", "openai", "gpt-5");
    message.content = content;
    message.response_id = Some("resp_1".into());
    message.timestamp = actual.timestamp;
    message.stop_reason = StopReason::Stop;
    message.raw_stop_reason = actual.raw_stop_reason.clone();
    message
}

fn failed(mut message: AssistantMessage, text: &str, kind: ErrorKind) -> AssistantMessage {
    message.stop_reason = StopReason::Error;
    message.error_message = Some(text.into());
    message.error_info = Some(ErrorInfo::new(kind));
    message
}

#[test]
fn an_incomplete_response_for_max_output_tokens_is_a_length_stop_keeping_the_text() {
    let model = model("openai", "gpt-5");
    let actual = fold_events(
        &model,
        &[
            created(),
            message_added(),
            text_delta("Partial"),
            json!({"type": "response.incomplete", "response": {"id": "resp_1", "status": "incomplete",
                   "incomplete_details": {"reason": "max_output_tokens"},
                   "usage": {"input_tokens": 10, "output_tokens": 16, "total_tokens": 26}}}),
        ],
    )
    .message;
    let mut expected = base(vec![ContentBlock::text("Partial")], &actual);
    expected.usage = Usage {
        input: 10,
        output: 16,
        reasoning: Some(0),
        total_tokens: 26,
        ..Usage::default()
    };
    model.apply_cost(&mut expected.usage);
    expected.stop_reason = StopReason::Length;
    assert_eq!(actual, expected);
}

#[test]
fn an_error_event_with_top_level_fields_is_worded_as_pi_and_classified_by_code() {
    let model = model("openai", "gpt-5");
    let actual = fold_events(
        &model,
        &[
            created(),
            json!({"type": "error", "code": "rate_limit_exceeded", "message": "Slow down", "param": null}),
        ],
    )
    .message;
    let expected = failed(
        base(vec![], &actual),
        "Error Code rate_limit_exceeded: Slow down",
        ErrorKind::RateLimited,
    );
    assert_eq!(actual, expected);
}

#[test]
fn unparseable_data_is_a_malformed_stream_keeping_what_came_before() {
    let model = model("openai", "gpt-5");
    let mut body = String::new();
    for event in [created(), message_added(), text_delta("Hi")] {
        body.push_str(&format!("data: {event}\n\n"));
    }
    body.push_str("data: {not json\n\n");
    let actual = fold_in_pieces(&model, body.as_bytes(), &[]).message;
    assert_eq!(
        (
            actual.content.clone(),
            actual.error_info,
            actual
                .error_message
                .unwrap()
                .starts_with("Malformed stream event: ")
        ),
        (
            vec![ContentBlock::text("Hi")],
            Some(ErrorInfo::new(ErrorKind::MalformedStream)),
            true
        )
    );
}

#[test]
fn a_cancelled_response_is_an_unknown_error() {
    let model = model("openai", "gpt-5");
    let actual = fold_events(
        &model,
        &[
            created(),
            json!({"type": "response.completed", "response": {"id": "resp_1", "status": "cancelled"}}),
        ],
    )
    .message;
    let expected = failed(
        base(vec![], &actual),
        "An unknown error occurred",
        ErrorKind::Provider,
    );
    assert_eq!(actual, expected);
}

#[test]
fn done_without_response_completed_is_a_stream_cut() {
    let model = model("openai", "gpt-5");
    let mut body = format!("data: {}\n\n", created());
    body.push_str("data: [DONE]\n\n");
    let actual = fold_in_pieces(&model, body.as_bytes(), &[]).message;
    let expected = failed(
        base(vec![], &actual),
        "Stream ended before response.completed",
        ErrorKind::StreamCut,
    );
    assert_eq!(actual, expected);
}

#[test]
fn hosted_tool_items_are_skipped_and_final_arguments_replace_a_diverging_stream() {
    let model = model("openai", "gpt-5");
    let call = json!({"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "f", "arguments": ""});
    let folded = fold_events(
        &model,
        &[
            created(),
            json!({"type": "response.output_item.added", "item": {"id": "ws_1", "type": "web_search_call"}}),
            json!({"type": "response.output_item.done", "item": {"id": "ws_1", "type": "web_search_call"}}),
            json!({"type": "response.output_item.added", "item": call}),
            json!({"type": "response.function_call_arguments.delta", "item_id": "fc_1", "delta": "{\"a\":"}),
            json!({"type": "response.function_call_arguments.done", "item_id": "fc_1", "arguments": "{\"b\":2}"}),
            json!({"type": "response.output_item.done", "item": call}),
            json!({"type": "response.completed", "response": {"id": "resp_1", "status": "completed"}}),
        ],
    );
    let mut expected = base(
        vec![ContentBlock::ToolCall(ToolCall {
            id: "call_1|fc_1".into(),
            name: "f".into(),
            arguments: json!({"b": 2}),
            thought_signature: None,
        })],
        &folded.message,
    );
    expected.stop_reason = StopReason::ToolUse;
    assert_eq!(folded.message, expected);
    assert_eq!(
        kinds(&folded.events),
        [
            ("start".to_owned(), None, None),
            ("toolcall_start".to_owned(), Some(0), None),
            (
                "toolcall_delta".to_owned(),
                Some(0),
                Some("{\"a\":".to_owned())
            ),
            ("toolcall_end".to_owned(), Some(0), None),
            ("done".to_owned(), None, None),
        ]
    );
}

#[test]
fn a_refusal_streams_as_text_and_ends_as_the_refusal() {
    let model = model("openai", "gpt-5");
    let item = json!({"id": "msg_1", "type": "message",
                      "content": [{"type": "refusal", "refusal": "I can't help with that."}]});
    let actual = fold_events(
        &model,
        &[
            created(),
            message_added(),
            json!({"type": "response.refusal.delta", "item_id": "msg_1", "delta": "I can't help with that."}),
            json!({"type": "response.output_item.done", "item": item}),
            json!({"type": "response.completed", "response": {"id": "resp_1", "status": "completed"}}),
        ],
    )
    .message;
    let expected = base(
        vec![ContentBlock::Text(TextContent {
            text: "I can't help with that.".into(),
            text_signature: Some(r#"{"v":1,"id":"msg_1"}"#.into()),
        })],
        &actual,
    );
    assert_eq!(actual, expected);
}
