//! The agent loop over a loopback Anthropic server: the tool results of turn 1 reach the model in
//! turn 2 as `tool_result` blocks answering the replayed `tool_use` ids; a 529 is one request and
//! one classified error.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use rho_agent::{AgentEvent, AgentMessage, LoopConfig, LoopContext, run_agent_loop};
use rho_ai::{ErrorInfo, ErrorKind, Model, StopReason, UserMessage};
use rho_anthropic::AnthropicProvider;
use rho_http::HttpClient;
use rho_testkit::tools::Lookup;
use rho_testkit::{Chunk, MockResponse, MockServer};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

const KEY: &str = "sk-ant-test-key";

/// One named SSE event per chunk, as Anthropic sends them.
fn anthropic_stream(events: &[Value]) -> MockResponse {
    MockResponse::new(200)
        .header("content-type", "text/event-stream")
        .chunks(events.iter().map(|data| {
            Chunk::text(&format!(
                "event: {}\ndata: {data}\n\n",
                data["type"].as_str().unwrap()
            ))
        }))
}

fn start(id: &str) -> Value {
    json!({"type": "message_start", "message": {"id": id, "type": "message", "role": "assistant",
        "model": "claude-sonnet-4-5", "content": [], "stop_reason": null,
        "usage": {"input_tokens": 50, "output_tokens": 1}}})
}

fn end(stop_reason: &str) -> [Value; 2] {
    [
        json!({"type": "message_delta", "delta": {"stop_reason": stop_reason}, "usage": {"output_tokens": 20}}),
        json!({"type": "message_stop"}),
    ]
}

/// Turn 1: text, a call of `lookup`, a call of a tool that does not exist.
fn turn_with_tool_calls() -> MockResponse {
    let mut events = vec![
        start("msg_1"),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Checking."}}),
        json!({"type": "content_block_stop", "index": 0}),
        json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "toolu_A", "name": "lookup", "input": {}}}),
        json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"key\": \"al"}}),
        json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "pha\"}"}}),
        json!({"type": "content_block_stop", "index": 1}),
        json!({"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "toolu_B", "name": "missing_tool", "input": {}}}),
        json!({"type": "content_block_stop", "index": 2}),
    ];
    events.extend(end("tool_use"));
    anthropic_stream(&events)
}

fn turn_with_text() -> MockResponse {
    let mut events = vec![
        start("msg_2"),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "alpha is 42."}}),
        json!({"type": "content_block_stop", "index": 0}),
    ];
    events.extend(end("end_turn"));
    anthropic_stream(&events)
}

fn model_at(server: &MockServer) -> Model {
    Model {
        base_url: server.base_url(),
        ..common::model()
    }
}

fn config(model: Model) -> LoopConfig {
    let provider = AnthropicProvider::new(HttpClient::default(), Duration::from_secs(30));
    LoopConfig {
        api_key: Some(KEY.into()),
        ..LoopConfig::new(model, Arc::new(provider))
    }
}

fn context() -> LoopContext {
    let schema =
        json!({"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]});
    LoopContext {
        system_prompt: Some("You are a test.".into()),
        messages: Vec::new(),
        tools: vec![Arc::new(Lookup { schema })],
    }
}

async fn run(server: &MockServer) -> Vec<AgentMessage> {
    let sink = Arc::new(|_: AgentEvent| {});
    run_agent_loop(
        vec![UserMessage::text("Look up alpha").into()],
        context(),
        &config(model_at(server)),
        CancellationToken::new(),
        sink,
    )
    .await
    .unwrap()
}

#[tokio::test]
async fn tool_results_of_turn_one_reach_the_model_as_tool_result_blocks_in_turn_two() {
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
        assert_eq!((&*request.method, &*request.path), ("POST", "/v1/messages"));
        assert_eq!(request.header("x-api-key"), Some(KEY));
        assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
    }
    let second = requests[1].body_json().unwrap();
    assert_eq!(
        second["messages"],
        json!([
            {"role": "user", "content": [{"type": "text", "text": "Look up alpha"}]},
            {"role": "assistant", "content": [
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "toolu_A", "name": "lookup", "input": {"key": "alpha"}},
                {"type": "tool_use", "id": "toolu_B", "name": "missing_tool", "input": {}},
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_A", "content": "alpha=42", "is_error": false},
                {"type": "tool_result", "tool_use_id": "toolu_B", "content": "Tool missing_tool not found",
                 "is_error": true, "cache_control": {"type": "ephemeral"}},
            ]},
        ])
    );
}

#[tokio::test]
async fn an_overloaded_529_is_one_request_and_one_overloaded_error() {
    let body = r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
    let server = MockServer::start(vec![
        MockResponse::json_error(529, body),
        // Would be served to a hidden retry; it must never be asked for.
        turn_with_text(),
    ])
    .await;
    let messages = run(&server).await;

    assert_eq!(messages.len(), 2);
    let error = messages[1].as_assistant().unwrap();
    assert_eq!(error.stop_reason, StopReason::Error);
    assert_eq!(error.content, vec![]);
    assert_eq!(
        error.error_message.as_deref(),
        Some(&*format!("529 {body}"))
    );
    assert_eq!(
        error.error_info,
        Some(ErrorInfo {
            kind: ErrorKind::Overloaded,
            status: Some(529),
            retry_after_ms: None,
        })
    );
    assert_eq!(server.requests().len(), 1);
    assert_eq!(server.remaining(), 1);
}
