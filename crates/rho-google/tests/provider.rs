//! The provider over a loopback Gemini server: the agent loop's second request replays turn 1's
//! calls (with their signature) and answers them with function responses; a 429
//! `RESOURCE_EXHAUSTED` is one request and one rate-limit error; a missing key sends nothing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use rho_agent::{AgentEvent, AgentMessage, LoopConfig, LoopContext, run_agent_loop};
use rho_ai::{
    AssistantMessage, Context, ErrorInfo, ErrorKind, Model, Provider, StopReason, StreamOptions,
    ThinkingLevel, UserMessage,
};
use rho_google::GoogleProvider;
use rho_http::HttpClient;
use rho_testkit::tools::Lookup;
use rho_testkit::{Chunk, MockResponse, MockServer};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const KEY: &str = "AIza-test-key";

fn schema() -> Value {
    json!({"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]})
}

/// Data-only events with CRLF framing, one per HTTP chunk, as Gemini sends them.
fn gemini_stream(chunks: &[Value]) -> MockResponse {
    MockResponse::new(200)
        .header("content-type", "text/event-stream")
        .chunks(
            chunks
                .iter()
                .map(|chunk| Chunk::text(&format!("data: {chunk}\r\n\r\n"))),
        )
}

fn parts(parts: Value, finish: Option<&str>) -> Value {
    let mut candidate = json!({"content": {"parts": parts, "role": "model"}, "index": 0});
    if let Some(reason) = finish {
        candidate["finishReason"] = json!(reason);
    }
    json!({"candidates": [candidate], "usageMetadata": {"promptTokenCount": 40,
        "candidatesTokenCount": 12, "totalTokenCount": 52}, "responseId": "r1"})
}

/// Turn 1: text, a signed call of `lookup`, a call of a tool that does not exist.
fn turn_with_tool_calls() -> MockResponse {
    gemini_stream(&[
        parts(json!([{"text": "Checking."}]), None),
        parts(
            json!([
                {"functionCall": {"name": "lookup", "args": {"key": "alpha"}}, "thoughtSignature": "c2lnQ2FsbA=="},
                {"functionCall": {"name": "missing_tool", "args": {}}},
            ]),
            None,
        ),
        parts(json!([{"text": ""}]), Some("STOP")),
    ])
}

fn turn_with_text() -> MockResponse {
    gemini_stream(&[parts(json!([{"text": "alpha is 42."}]), Some("STOP"))])
}

fn model_at(server: &MockServer) -> Model {
    Model {
        base_url: format!("{}/v1beta", server.base_url()),
        ..common::model()
    }
}

fn provider() -> GoogleProvider {
    GoogleProvider::new(HttpClient::default(), Duration::from_secs(30))
}

async fn run(server: &MockServer) -> Vec<AgentMessage> {
    let config = LoopConfig {
        api_key: Some(KEY.into()),
        ..LoopConfig::new(model_at(server), Arc::new(provider()))
    };
    let context = LoopContext {
        system_prompt: Some("You are a test.".into()),
        messages: Vec::new(),
        tools: vec![Arc::new(Lookup { schema: schema() })],
    };
    let sink = Arc::new(|_: AgentEvent| {});
    run_agent_loop(
        vec![UserMessage::text("Look up alpha").into()],
        context,
        &config,
        CancellationToken::new(),
        sink,
    )
    .await
    .unwrap()
}

#[tokio::test]
async fn the_second_request_replays_the_signed_calls_and_answers_them_with_function_responses() {
    let server = MockServer::start(vec![turn_with_tool_calls(), turn_with_text()]).await;
    let messages = run(&server).await;

    let roles: Vec<(String, Option<StopReason>)> = messages
        .iter()
        .map(|m| (m.role().to_owned(), m.as_assistant().map(|a| a.stop_reason)))
        .collect();
    assert_eq!(
        roles,
        vec![
            ("user".into(), None),
            ("assistant".into(), Some(StopReason::ToolUse)),
            ("toolResult".into(), None),
            ("toolResult".into(), None),
            ("assistant".into(), Some(StopReason::Stop)),
        ]
    );
    assert_eq!(messages[4].as_assistant().unwrap().text(), "alpha is 42.");

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    for request in &requests {
        assert_eq!(
            (&*request.method, &*request.path),
            (
                "POST",
                "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
            )
        );
        assert_eq!(request.header("x-goog-api-key"), Some(KEY));
    }
    let second = requests[1].body_json().unwrap();
    assert_eq!(
        second,
        json!({
            "contents": [
                {"parts": [{"text": "Look up alpha"}], "role": "user"},
                {"parts": [
                    {"text": "Checking."},
                    {"functionCall": {"args": {"key": "alpha"}, "name": "lookup"}, "thoughtSignature": "c2lnQ2FsbA=="},
                    {"functionCall": {"args": {}, "name": "missing_tool"}},
                ], "role": "model"},
                {"parts": [
                    {"functionResponse": {"name": "lookup", "response": {"output": "alpha=42"}}},
                    {"functionResponse": {"name": "missing_tool",
                        "response": {"error": "Tool missing_tool not found"}}},
                ], "role": "user"},
            ],
            "systemInstruction": {"parts": [{"text": "You are a test."}], "role": "user"},
            "tools": [{"functionDeclarations": [
                {"name": "lookup", "description": "Look a key up", "parametersJsonSchema": schema()},
            ]}],
            "generationConfig": {"maxOutputTokens": 32000, "thinkingConfig": {"thinkingBudget": 0}},
        })
    );
}

#[tokio::test]
async fn a_429_resource_exhausted_is_one_request_and_one_rate_limit_error() {
    let body = "{\n  \"error\": {\n    \"code\": 429,\n    \"message\": \"Resource has been exhausted (e.g. check quota).\",\n    \"status\": \"RESOURCE_EXHAUSTED\"\n  }\n}\n";
    let server = MockServer::start(vec![
        MockResponse::json_error(429, body),
        // Would be served to a hidden retry; it must never be asked for.
        turn_with_text(),
    ])
    .await;
    let messages = run(&server).await;

    assert_eq!(messages.len(), 2);
    let error = messages[1].as_assistant().unwrap();
    let expected = AssistantMessage {
        stop_reason: StopReason::Error,
        error_message: Some(
            r#"{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}"#
                .into(),
        ),
        error_info: Some(ErrorInfo {
            kind: ErrorKind::RateLimited,
            status: Some(429),
            retry_after_ms: None,
        }),
        timestamp: error.timestamp,
        // Set by the loop: the call's duration (whatever it was) and the level it asked for.
        duration_ms: error.duration_ms,
        thinking_level: Some(ThinkingLevel::Off),
        ..AssistantMessage::empty("google-generative-ai", "google", "gemini-2.5-pro")
    };
    assert!(error.duration_ms.is_some());
    assert_eq!(**error, expected);
    assert_eq!(server.requests().len(), 1);
    assert_eq!(server.remaining(), 1);
}

#[tokio::test]
async fn a_missing_key_fails_with_an_auth_error_and_sends_nothing() {
    let server = MockServer::start(vec![turn_with_text()]).await;
    let stream = provider().stream(
        &model_at(&server),
        Context::default(),
        StreamOptions::default(),
    );
    let message = stream.result().await;
    let expected = AssistantMessage {
        stop_reason: StopReason::Error,
        error_message: Some("No API key for provider: google".into()),
        error_info: Some(ErrorInfo::new(ErrorKind::Auth)),
        timestamp: message.timestamp,
        ..AssistantMessage::empty("google-generative-ai", "google", "gemini-2.5-pro")
    };
    assert_eq!(message, expected);
    assert_eq!(server.requests().len(), 0);
}
