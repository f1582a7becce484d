//! Broken, failing and unusual Anthropic streams: every one ends in one terminal event, with the
//! failure classified where it arises and the content streamed so far kept.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{fixture_body, fold, kinds, strings};
use rho_ai::{ContentBlock, ErrorKind, StopReason, TextContent, ToolCall};
use rho_anthropic::stream::ENDED_EARLY;
use rho_http::Failure;
use serde_json::{Value, json};

/// One named SSE event.
fn sse(data: &Value) -> String {
    format!(
        "event: {}\ndata: {data}\n\n",
        data["type"].as_str().unwrap()
    )
}

fn message_start(usage: Value) -> String {
    sse(&json!({"type": "message_start", "message": {
        "id": "msg_test", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
        "content": [], "stop_reason": null, "usage": usage}}))
}

fn text_block(text: &str) -> String {
    [
        sse(&json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})),
        sse(&json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}})),
        sse(&json!({"type": "content_block_stop", "index": 0})),
    ]
    .concat()
}

fn message_end(stop_reason: &str, usage: Value) -> String {
    sse(&json!({"type": "message_delta", "delta": {"stop_reason": stop_reason}, "usage": usage}))
        + &sse(&json!({"type": "message_stop"}))
}

fn hello() -> Vec<ContentBlock> {
    vec![ContentBlock::Text(TextContent {
        text: "Hello".into(),
        text_signature: None,
    })]
}

/// The body of `text-simple.sse` up to (not including) its `content_block_stop`.
fn text_simple_until_stop() -> String {
    let body = String::from_utf8(fixture_body("text-simple.sse")).unwrap();
    let cut = body.find("event: content_block_stop").unwrap();
    body[..cut].to_owned()
}

#[test]
fn an_error_event_fails_with_its_raw_data_and_the_kind_named_by_its_type() {
    let cases = [
        ("overloaded_error", ErrorKind::Overloaded),
        ("rate_limit_error", ErrorKind::RateLimited),
        ("api_error", ErrorKind::Server),
        ("authentication_error", ErrorKind::Auth),
        ("permission_error", ErrorKind::Auth),
        ("not_found_error", ErrorKind::NotFound),
        ("request_too_large", ErrorKind::ContextOverflow),
        ("invalid_request_error", ErrorKind::InvalidRequest),
        ("brand_new_error", ErrorKind::Provider),
    ];
    for (error_type, kind) in cases {
        let data = format!(
            r#"{{"type":"error","error":{{"details":null,"type":"{error_type}","message":"Overloaded"}},"request_id":"req_1"}}"#
        );
        let body = format!("{}event: error\ndata: {data}\n\n", text_simple_until_stop());
        let folded = fold(body.as_bytes());
        let (failure, partial) = folded.outcome.unwrap_err();
        assert_eq!(failure, Failure::new(kind, data.clone()), "{error_type}");
        assert_eq!(partial.content, hello());
        assert_eq!(
            kinds(&folded.events),
            strings(&["start", "text_start", "text_delta", "error"])
        );
    }
}

#[test]
fn a_stream_cut_before_message_stop_is_a_stream_cut_keeping_best_effort_tool_arguments() {
    let body = String::from_utf8(fixture_body("text-then-tool-use-json.jsonl")).unwrap();
    // Up to and including the second input_json_delta: the arguments lack their closing brace.
    let cut = body.find("data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"}\"").unwrap();
    let folded = fold(&body.as_bytes()[..cut]);
    let (failure, partial) = folded.outcome.unwrap_err();
    assert_eq!(failure, Failure::new(ErrorKind::StreamCut, ENDED_EARLY));
    assert_eq!(
        partial.content,
        vec![
            ContentBlock::text("I'll invoke the JSON response tool."),
            ContentBlock::ToolCall(ToolCall {
                id: "toolu_01KFbKqPYSuAKujiL6mTfzYA".into(),
                name: "json".into(),
                arguments: json!({"elements": [{"location": "San Francisco", "temperature": 58, "condition": "sunny"}]}),
                thought_signature: None,
            }),
        ]
    );
    // No toolcall_end for a call that never finished.
    assert_eq!(
        kinds(&folded.events).last().map(String::as_str),
        Some("error")
    );
    assert!(!kinds(&folded.events).contains(&"toolcall_end".to_owned()));
}

#[test]
fn an_empty_body_is_a_stream_cut() {
    let (failure, partial) = fold(b"").outcome.unwrap_err();
    assert_eq!(failure, Failure::new(ErrorKind::StreamCut, ENDED_EARLY));
    assert_eq!(partial.content, vec![]);
}

#[test]
fn unparseable_event_json_is_a_malformed_stream_naming_the_event() {
    let bad = r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","#;
    let serde_error = serde_json::from_str::<Value>(bad).unwrap_err();
    let body = format!(
        "{}event: content_block_delta\ndata: {bad}\n\n",
        text_simple_until_stop()
    );
    let (failure, partial) = fold(body.as_bytes()).outcome.unwrap_err();
    assert_eq!(
        failure,
        Failure::new(
            ErrorKind::MalformedStream,
            format!("Could not parse Anthropic SSE event content_block_delta: {serde_error}")
        )
    );
    assert_eq!(partial.content, hello());
}

#[test]
fn unparseable_data_without_an_event_name_is_named_message() {
    let serde_error = serde_json::from_str::<Value>("garbage").unwrap_err();
    let (failure, _) = fold(b"data: garbage\n\n").outcome.unwrap_err();
    assert_eq!(
        failure,
        Failure::new(
            ErrorKind::MalformedStream,
            format!("Could not parse Anthropic SSE event message: {serde_error}")
        )
    );
}

#[test]
fn pings_and_unknown_events_are_skipped_without_being_parsed() {
    let body = message_start(json!({"input_tokens": 5, "output_tokens": 1}))
        + "event: ping\ndata: not json at all\n\n"
        + "event: brand_new_event\ndata: {\n\n"
        + &text_block("Hello")
        + &message_end("end_turn", json!({"output_tokens": 2}));
    let message = fold(body.as_bytes()).outcome.unwrap();
    assert_eq!(message.content, hello());
    assert_eq!(message.stop_reason, StopReason::Stop);
}

#[test]
fn a_refusal_ends_as_a_refused_error_with_pis_unknown_error_message() {
    let body = message_start(json!({"input_tokens": 5, "output_tokens": 1}))
        + &text_block("Hello")
        + &message_end("refusal", json!({"output_tokens": 2}));
    let folded = fold(body.as_bytes());
    let (failure, partial) = folded.outcome.unwrap_err();
    assert_eq!(
        failure,
        Failure::new(ErrorKind::Refused, "An unknown error occurred")
    );
    assert_eq!(partial.content, hello());
    assert_eq!((partial.usage.input, partial.usage.output), (5, 2));
}

#[test]
fn an_unknown_stop_reason_is_an_error_naming_it() {
    let body = message_start(json!({"input_tokens": 5}))
        + &text_block("Hello")
        + &message_end("brand_new_reason", json!({}));
    let (failure, _) = fold(body.as_bytes()).outcome.unwrap_err();
    assert_eq!(
        failure,
        Failure::new(
            ErrorKind::Provider,
            "Unhandled stop reason: brand_new_reason"
        )
    );
}

#[test]
fn max_tokens_ends_with_stop_reason_length() {
    let body = message_start(json!({"input_tokens": 5}))
        + &text_block("Hello")
        + &message_end("max_tokens", json!({"output_tokens": 9}));
    let folded = fold(body.as_bytes());
    assert_eq!(folded.outcome.unwrap().stop_reason, StopReason::Length);
    assert_eq!(kinds(&folded.events).last().unwrap(), "done");
}

#[test]
fn message_delta_overwrites_only_the_usage_fields_it_carries() {
    let body = message_start(json!({
        "input_tokens": 100, "output_tokens": 1,
        "cache_read_input_tokens": 4000, "cache_creation_input_tokens": 300}))
        + &text_block("Hello")
        + &message_end(
            "end_turn",
            json!({"output_tokens": 50, "cache_read_input_tokens": null}),
        );
    let usage = fold(body.as_bytes()).outcome.unwrap().usage;
    assert_eq!(
        [
            usage.input,
            usage.output,
            usage.cache_read,
            usage.cache_write,
            usage.total_tokens
        ],
        [100, 50, 4000, 300, 4450]
    );
}

#[test]
fn a_tool_use_that_starts_with_input_and_gets_no_deltas_keeps_that_input() {
    let body = message_start(json!({"input_tokens": 5}))
        + &sse(
            &json!({"type": "content_block_start", "index": 0, "content_block":
            {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "a.txt"}}}),
        )
        + &sse(&json!({"type": "content_block_stop", "index": 0}))
        + &message_end("tool_use", json!({"output_tokens": 3}));
    let message = fold(body.as_bytes()).outcome.unwrap();
    assert_eq!(
        message.content,
        vec![ContentBlock::ToolCall(ToolCall {
            id: "toolu_1".into(),
            name: "read".into(),
            arguments: json!({"path": "a.txt"}),
            thought_signature: None,
        })]
    );
    assert_eq!(message.stop_reason, StopReason::ToolUse);
}

#[test]
fn a_block_left_open_at_message_stop_is_closed_before_done() {
    let body = message_start(json!({"input_tokens": 5}))
        + &sse(
            &json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        )
        + &sse(
            &json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hello"}}),
        )
        + &message_end("end_turn", json!({"output_tokens": 2}));
    let folded = fold(body.as_bytes());
    assert_eq!(
        kinds(&folded.events),
        strings(&["start", "text_start", "text_delta", "text_end", "done"])
    );
    assert_eq!(folded.outcome.unwrap().content, hello());
}

#[test]
fn content_block_start_without_an_index_is_a_malformed_stream() {
    let body = message_start(json!({"input_tokens": 5}))
        + &sse(
            &json!({"type": "content_block_start", "content_block": {"type": "text", "text": ""}}),
        );
    let (failure, _) = fold(body.as_bytes()).outcome.unwrap_err();
    assert_eq!(
        failure,
        Failure::new(
            ErrorKind::MalformedStream,
            "Anthropic content_block_start without index or content_block"
        )
    );
}
