//! Broken, failing and unusual Gemini streams: every one ends in one terminal event, with the
//! failure classified where it arises and the content streamed so far kept.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{expected_message, fold, gemini_body, kinds, model, strings};
use rho_ai::{AssistantMessage, ContentBlock, ErrorKind, StopReason, TextContent, ToolCall, Usage};
use rho_google::classify::UNKNOWN_ERROR;
use rho_google::generate_tool_call_id;
use rho_google::stream::ENDED_EARLY;
use rho_http::Failure;
use serde_json::{Value, json};

fn chunk(parts: Value, finish: Option<&str>) -> Value {
    let mut candidate = json!({"content": {"parts": parts, "role": "model"}, "index": 0});
    if let Some(reason) = finish {
        candidate["finishReason"] = json!(reason);
    }
    json!({"candidates": [candidate], "responseId": "resp-1"})
}

fn hello() -> Vec<ContentBlock> {
    vec![ContentBlock::Text(TextContent {
        text: "Hello".into(),
        text_signature: None,
    })]
}

#[test]
fn a_stream_that_ends_without_a_finish_reason_was_cut_and_keeps_its_text() {
    let folded = fold(&gemini_body(&[chunk(json!([{"text": "Hello"}]), None)]));
    let (failure, partial) = folded.outcome.unwrap_err();
    assert_eq!(failure, Failure::new(ErrorKind::StreamCut, ENDED_EARLY));
    assert_eq!(partial.content, hello());
    assert_eq!(
        kinds(&folded.events),
        strings(&["start", "text_start", "text_delta", "text_end", "error"])
    );
}

#[test]
fn an_error_chunk_fails_with_the_sdks_wording_and_the_kind_named_by_its_status() {
    let cases = [
        (
            json!({"code": 429, "message": "Quota", "status": "RESOURCE_EXHAUSTED"}),
            ErrorKind::RateLimited,
        ),
        (
            json!({"code": 503, "message": "Overloaded", "status": "UNAVAILABLE"}),
            ErrorKind::Overloaded,
        ),
        (
            json!({"code": 400, "message": "Bad", "status": "INVALID_ARGUMENT"}),
            ErrorKind::InvalidRequest,
        ),
        (
            json!({"code": 500, "message": "Oops", "status": "INTERNAL"}),
            ErrorKind::Server,
        ),
        (
            json!({"code": 500, "message": "Oops", "status": "BRAND_NEW"}),
            ErrorKind::Server,
        ),
        (json!({"message": "What"}), ErrorKind::Provider),
    ];
    for (error, kind) in cases {
        let error_chunk = json!({"error": error});
        let body = gemini_body(&[chunk(json!([{"text": "Hello"}]), None), error_chunk.clone()]);
        let folded = fold(&body);
        let (failure, partial) = folded.outcome.unwrap_err();
        let status = error["status"].as_str().unwrap_or("undefined");
        assert_eq!(
            failure,
            Failure::new(kind, format!("got status: {status}. {error_chunk}")),
            "{error}"
        );
        assert_eq!(partial.content, hello());
        assert_eq!(
            kinds(&folded.events),
            strings(&["start", "text_start", "text_delta", "error"])
        );
    }
}

#[test]
fn content_filter_finish_reasons_are_refusals_and_others_are_provider_errors() {
    for (reason, kind) in [
        ("SAFETY", ErrorKind::Refused),
        ("RECITATION", ErrorKind::Refused),
        ("PROHIBITED_CONTENT", ErrorKind::Refused),
        ("MALFORMED_FUNCTION_CALL", ErrorKind::Provider),
        ("OTHER", ErrorKind::Provider),
    ] {
        let folded = fold(&gemini_body(&[chunk(
            json!([{"text": "Hello"}]),
            Some(reason),
        )]));
        let (failure, partial) = folded.outcome.unwrap_err();
        assert_eq!(failure, Failure::new(kind, UNKNOWN_ERROR), "{reason}");
        assert_eq!(partial.content, hello());
    }
}

#[test]
fn max_tokens_is_a_length_stop_and_any_tool_call_makes_the_turn_tool_use() {
    let folded = fold(&gemini_body(&[chunk(
        json!([{"text": "Hello"}]),
        Some("MAX_TOKENS"),
    )]));
    assert_eq!(folded.outcome.unwrap().stop_reason, StopReason::Length);

    // As in Pi: a call was made, so the turn is a tool turn whatever the reason says.
    let call = json!([{"functionCall": {"name": "lookup", "args": {"key": "a"}}}]);
    let folded = fold(&gemini_body(&[chunk(call, Some("SAFETY"))]));
    assert_eq!(folded.outcome.unwrap().stop_reason, StopReason::ToolUse);
}

#[test]
fn a_chunk_that_is_not_json_is_a_malformed_stream() {
    let body = b"data: {\"candidates\": [\r\n\r\n";
    let (failure, partial) = fold(body).outcome.unwrap_err();
    assert_eq!(failure.kind, ErrorKind::MalformedStream);
    assert!(
        failure
            .message
            .starts_with("exception parsing stream chunk {\"candidates\": [. "),
        "{}",
        failure.message
    );
    assert_eq!(partial.content, vec![]);
}

#[test]
fn a_provided_call_id_is_kept_unless_it_repeats_and_thought_text_closes_the_answer_block() {
    let parts = json!([
        {"text": "Let me think", "thought": true},
        {"text": "Answer", "thoughtSignature": "c2ln"},
        {"text": " more"},
        {"functionCall": {"id": "call_1", "name": "lookup", "args": {"key": "a"}}},
        {"functionCall": {"id": "call_1", "name": "lookup", "args": {"key": "b"}}},
    ]);
    let folded = fold(&gemini_body(&[chunk(parts, Some("STOP"))]));
    let message = folded.outcome.unwrap();
    let call = |id: &str, key: &str| {
        ContentBlock::ToolCall(ToolCall {
            id: id.into(),
            name: "lookup".into(),
            arguments: json!({"key": key}),
            thought_signature: None,
        })
    };
    let expected = AssistantMessage {
        content: vec![
            ContentBlock::Thinking(rho_ai::ThinkingContent {
                thinking: "Let me think".into(),
                thinking_signature: None,
                redacted: None,
            }),
            ContentBlock::Text(TextContent {
                text: "Answer more".into(),
                text_signature: Some("c2ln".into()),
            }),
            call("call_1", "a"),
            call("lookup#1", "b"),
        ],
        response_id: Some("resp-1".into()),
        stop_reason: StopReason::ToolUse,
        ..expected_message(&message)
    };
    assert_eq!(message, expected);
    assert_eq!(
        kinds(&folded.events),
        strings(&[
            "start",
            "thinking_start",
            "thinking_delta",
            "thinking_end",
            "text_start",
            "text_delta",
            "text_delta",
            "text_end",
            "toolcall_start",
            "toolcall_delta",
            "toolcall_end",
            "toolcall_start",
            "toolcall_delta",
            "toolcall_end",
            "done",
        ])
    );
}

#[test]
fn cached_prompt_tokens_are_cache_reads_not_input() {
    let mut last = chunk(json!([{"text": "Hello"}]), Some("STOP"));
    last["usageMetadata"] = json!({"promptTokenCount": 1000, "cachedContentTokenCount": 800,
        "candidatesTokenCount": 10, "thoughtsTokenCount": 5, "totalTokenCount": 1015});
    let message = fold(&gemini_body(&[last])).outcome.unwrap();
    let mut usage = Usage {
        input: 200,
        output: 15,
        cache_read: 800,
        cache_write: 0,
        reasoning: Some(5),
        total_tokens: 1015,
        ..Usage::default()
    };
    model().apply_cost(&mut usage);
    assert_eq!(message.usage, usage);
}

#[test]
fn generated_call_ids_are_name_millis_counter_and_never_repeat() {
    let first = generate_tool_call_id("read");
    let second = generate_tool_call_id("read");
    for id in [&first, &second] {
        let fields: Vec<&str> = id.split('_').collect();
        assert_eq!(fields.len(), 3, "{id}");
        assert_eq!(fields[0], "read");
        assert!(
            fields[1..]
                .iter()
                .all(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit())),
            "{id}"
        );
    }
    assert_ne!(first, second);
}
