//! Stream shapes the recordings do not cover: cuts, garbage, filters, id-only grouping,
//! OpenRouter encrypted reasoning, cache-write usage.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{fold_in_pieces, kinds, model};
use rho_ai::{
    AssistantMessage, ContentBlock, Cost, ErrorInfo, ErrorKind, StopReason, ToolCall, Usage,
};
use serde_json::{Value, json};

/// A data-only SSE body with one event per chunk.
fn body(chunks: &[Value], done: bool) -> Vec<u8> {
    let mut text = String::new();
    for chunk in chunks {
        text.push_str(&format!("data: {chunk}\n\n"));
    }
    if done {
        text.push_str("data: [DONE]\n\n");
    }
    text.into_bytes()
}

fn chunk(delta: Value, finish_reason: Option<&str>) -> Value {
    json!({"id": "chatcmpl-1", "model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]})
}

fn fold(chunks: &[Value], done: bool) -> AssistantMessage {
    fold_in_pieces(&model("p", "m"), &body(chunks, done), &[]).message
}

fn base(
    content: Vec<ContentBlock>,
    stop_reason: StopReason,
    actual: &AssistantMessage,
) -> AssistantMessage {
    let mut message = AssistantMessage::empty("openai-completions", "p", "m");
    message.content = content;
    message.response_id = Some("chatcmpl-1".into());
    message.stop_reason = stop_reason;
    message.timestamp = actual.timestamp;
    message.raw_stop_reason = actual.raw_stop_reason.clone();
    message
}

fn failed(mut message: AssistantMessage, text: &str, kind: ErrorKind) -> AssistantMessage {
    message.stop_reason = StopReason::Error;
    message.error_message = Some(text.into());
    message.error_info = Some(ErrorInfo::new(kind));
    message
}

fn call(id: &str, name: &str, arguments: Value, signature: Option<&str>) -> ContentBlock {
    ContentBlock::ToolCall(ToolCall {
        id: id.into(),
        name: name.into(),
        arguments,
        thought_signature: signature.map(str::to_owned),
    })
}

#[test]
fn a_body_that_ends_with_neither_finish_reason_nor_done_is_a_stream_cut() {
    let actual = fold(&[chunk(json!({"content": "Hel"}), None)], false);
    let expected = failed(
        base(vec![ContentBlock::text("Hel")], StopReason::Error, &actual),
        "Stream ended before a finish_reason or [DONE]",
        ErrorKind::StreamCut,
    );
    assert_eq!(actual, expected);
}

#[test]
fn a_finish_reason_without_done_completes_the_stream() {
    let actual = fold(&[chunk(json!({"content": "Hi"}), Some("length"))], false);
    assert_eq!(
        actual,
        base(vec![ContentBlock::text("Hi")], StopReason::Length, &actual)
    );
}

#[test]
fn done_without_a_finish_reason_is_a_normal_stop() {
    let actual = fold(&[chunk(json!({"content": "Hi"}), None)], true);
    assert_eq!(
        actual,
        base(vec![ContentBlock::text("Hi")], StopReason::Stop, &actual)
    );
}

#[test]
fn content_filter_is_a_refusal_that_keeps_the_text_and_ends_its_blocks() {
    let folded = fold_in_pieces(
        &model("p", "m"),
        &body(
            &[chunk(json!({"content": "Sure"}), Some("content_filter"))],
            true,
        ),
        &[],
    );
    let expected = failed(
        base(
            vec![ContentBlock::text("Sure")],
            StopReason::Error,
            &folded.message,
        ),
        "Provider finish_reason: content_filter",
        ErrorKind::Refused,
    );
    assert_eq!(folded.message, expected);
    let kinds: Vec<String> = kinds(&folded.events).into_iter().map(|k| k.0).collect();
    assert_eq!(
        kinds,
        ["start", "text_start", "text_delta", "text_end", "error"]
    );
}

#[test]
fn empty_data_keep_alives_and_comments_are_skipped() {
    let mut bytes = b": ping\n\ndata:\n\n".to_vec();
    bytes.extend(body(&[chunk(json!({"content": "ok"}), Some("stop"))], true));
    let actual = fold_in_pieces(&model("p", "m"), &bytes, &[]).message;
    assert_eq!(
        actual,
        base(vec![ContentBlock::text("ok")], StopReason::Stop, &actual)
    );
}

#[test]
fn an_unknown_finish_reason_is_a_provider_error_naming_it() {
    let actual = fold(&[chunk(json!({"content": "x"}), Some("eos_weird"))], true);
    let expected = failed(
        base(vec![ContentBlock::text("x")], StopReason::Error, &actual),
        "Provider finish_reason: eos_weird",
        ErrorKind::Provider,
    );
    assert_eq!(actual, expected);
}

#[test]
fn unparseable_json_is_a_malformed_stream_keeping_what_came_before() {
    let mut bytes = body(&[chunk(json!({"content": "ok"}), None)], false);
    bytes.extend_from_slice(b"data: {\"choices\": [\n\n");
    let actual = fold_in_pieces(&model("p", "m"), &bytes, &[]).message;
    assert_eq!(
        (
            actual.content.clone(),
            actual.stop_reason,
            actual.error_info.clone(),
            actual
                .error_message
                .as_deref()
                .map(|m| m.starts_with("Malformed stream chunk: ")),
        ),
        (
            vec![ContentBlock::text("ok")],
            StopReason::Error,
            Some(ErrorInfo::new(ErrorKind::MalformedStream)),
            Some(true),
        )
    );
}

#[test]
fn index_less_calls_with_different_ids_are_separate_calls_in_order() {
    let actual = fold(
        &[
            chunk(
                json!({"tool_calls": [{"id": "a1", "function": {"name": "read", "arguments": "{\"path\":"}}]}),
                None,
            ),
            chunk(
                json!({"tool_calls": [{"function": {"arguments": "\"x\"}"}}]}),
                None,
            ),
            chunk(
                json!({"tool_calls": [{"id": "b2", "function": {"name": "ls", "arguments": "{}"}}]}),
                Some("tool_calls"),
            ),
        ],
        false,
    );
    let expected = base(
        vec![
            call("a1", "read", json!({"path": "x"}), None),
            call("b2", "ls", json!({}), None),
        ],
        StopReason::ToolUse,
        &actual,
    );
    assert_eq!(actual, expected);
}

#[test]
fn a_reused_index_with_a_new_id_starts_a_new_call() {
    let actual = fold(
        &[
            chunk(
                json!({"tool_calls": [{"index": 0, "id": "a", "function": {"name": "one", "arguments": "{}"}}]}),
                None,
            ),
            chunk(
                json!({"tool_calls": [{"index": 0, "id": "b", "function": {"name": "two", "arguments": "{\"n\":2}"}}]}),
                Some("tool_calls"),
            ),
        ],
        true,
    );
    let expected = base(
        vec![
            call("a", "one", json!({}), None),
            call("b", "two", json!({"n": 2}), None),
        ],
        StopReason::ToolUse,
        &actual,
    );
    assert_eq!(actual, expected);
}

#[test]
fn openrouter_encrypted_reasoning_becomes_the_tool_calls_thought_signature() {
    let detail = json!({"type": "reasoning.encrypted", "id": "call_1", "data": "ENC", "format": "google-gemini-v1", "index": 0});
    let actual = fold(
        &[
            chunk(json!({"reasoning_details": [detail]}), None),
            chunk(
                json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}],
                          "reasoning_details": [{"type": "reasoning.text", "text": "hm"}]}),
                Some("tool_calls"),
            ),
        ],
        true,
    );
    let expected = base(
        vec![call("call_1", "ls", json!({}), Some(&detail.to_string()))],
        StopReason::ToolUse,
        &actual,
    );
    assert_eq!(actual, expected);
}

#[test]
fn cache_reads_and_cache_writes_are_both_split_out_of_the_prompt_tokens() {
    let actual = fold(
        &[
            chunk(json!({"content": "a"}), Some("stop")),
            json!({"id": "chatcmpl-1", "model": "m", "choices": [], "usage": {
                "prompt_tokens": 1000, "completion_tokens": 20,
                "prompt_tokens_details": {"cached_tokens": 700, "cache_write_tokens": 200}}}),
        ],
        true,
    );
    let mut expected = base(vec![ContentBlock::text("a")], StopReason::Stop, &actual);
    // Pi 1.6: `cached_tokens` counts reads only, writes come on top of them.
    expected.usage = Usage {
        input: 100,
        output: 20,
        cache_read: 700,
        cache_write: 200,
        reasoning: Some(0),
        total_tokens: 1020,
        cost: Cost {
            total_from_provider: Some(false),
            ..Cost::default()
        },
        ..Usage::default()
    };
    assert_eq!(actual, expected);
}

#[test]
fn an_in_stream_error_with_openrouter_raw_metadata_appends_it_and_is_classified() {
    let actual = fold(
        &[
            chunk(json!({"content": "par"}), None),
            json!({"id": "chatcmpl-1", "error": {"code": 429, "message": "Provider returned error",
                   "metadata": {"raw": "{\"error\":\"rate limited upstream\"}"}}}),
        ],
        true,
    );
    let expected = failed(
        base(vec![ContentBlock::text("par")], StopReason::Error, &actual),
        "Provider returned error\n{\"error\":\"rate limited upstream\"}",
        ErrorKind::RateLimited,
    );
    assert_eq!(actual, expected);
}

#[test]
fn a_response_model_that_differs_from_the_requested_id_is_recorded() {
    let actual = fold(
        &[
            json!({"id": "chatcmpl-1", "model": "m-2025", "choices": [{"index": 0, "delta": {"content": "x"}, "finish_reason": "stop"}]}),
        ],
        true,
    );
    let mut expected = base(vec![ContentBlock::text("x")], StopReason::Stop, &actual);
    expected.response_model = Some("m-2025".into());
    assert_eq!(actual, expected);
}
