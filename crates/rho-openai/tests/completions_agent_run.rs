//! The Chat Completions provider under the real agent loop, against a loopback server.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use rho_agent::{AgentMessage, LoopConfig, LoopContext, run_agent_loop};
use rho_ai::{
    AssistantMessageEvent, Context, ErrorInfo, ErrorKind, Message, Model, ModelCost, Provider,
    StopReason, StreamOptions, UserMessage,
};
use rho_http::HttpClient;
use rho_openai::CompletionsProvider;
use rho_testkit::tools::NoteTool;
use rho_testkit::{MockResponse, MockServer};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

fn model(provider: &str, base_url: &str) -> Model {
    Model {
        id: "local-model".into(),
        name: "local-model".into(),
        api: "openai-completions".into(),
        provider: provider.into(),
        base_url: base_url.into(),
        reasoning: false,
        input: vec!["text".into()],
        cost: ModelCost::default(),
        context_window: 32_768,
        max_tokens: 4_096,
        headers: None,
        compat: None,
    }
}

fn provider() -> Arc<CompletionsProvider> {
    Arc::new(CompletionsProvider::new(
        HttpClient::default(),
        Duration::from_secs(10),
    ))
}

fn as_refs(events: &[String]) -> Vec<&str> {
    events.iter().map(String::as_str).collect()
}

fn chunk(delta: Value, finish_reason: Option<&str>) -> String {
    json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "local-model",
           "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]})
    .to_string()
}

#[tokio::test]
async fn a_tool_call_turn_then_a_text_turn_replays_the_call_and_its_result() {
    let turn1 = [
        chunk(json!({"role": "assistant", "content": null}), None),
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "call_abc", "type": "function",
                                    "function": {"name": "read_note", "arguments": ""}}]}),
            None,
        ),
        chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"name\":"}}]}),
            None,
        ),
        chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": "\"todo\"}"}}]}),
            None,
        ),
        chunk(json!({}), Some("tool_calls")),
        "[DONE]".to_owned(),
    ];
    let turn2 = [
        chunk(
            json!({"role": "assistant", "content": "The note says: "}),
            None,
        ),
        chunk(json!({"content": "buy milk"}), None),
        chunk(json!({}), Some("stop")),
        "[DONE]".to_owned(),
    ];
    let server = MockServer::start(vec![
        MockResponse::sse(&as_refs(&turn1)),
        MockResponse::sse(&as_refs(&turn2)),
    ])
    .await;

    let model = model("local-vllm", &format!("{}/v1/", server.base_url()));
    let mut config = LoopConfig::new(model, provider());
    config.api_key = Some("sk-test".into());
    let parameters =
        json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]});
    let context = LoopContext {
        system_prompt: Some(Arc::from("Be brief.")),
        messages: Vec::new(),
        tools: vec![Arc::new(NoteTool {
            parameters: parameters.clone(),
        })],
    };
    let prompt = AgentMessage::Llm(Message::User(Arc::new(UserMessage::text(
        "What does my todo note say?",
    ))));
    let sink = Arc::new(|_event: rho_agent::AgentEvent| {});
    let messages = run_agent_loop(
        vec![prompt],
        context,
        &config,
        CancellationToken::new(),
        sink,
    )
    .await
    .unwrap();

    let Some(AgentMessage::Llm(Message::Assistant(last))) = messages.last() else {
        panic!("the run ends with an assistant message: {messages:?}");
    };
    assert_eq!(
        (last.text(), last.stop_reason),
        ("The note says: buy milk".to_owned(), StopReason::Stop)
    );

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        (
            requests[1].method.as_str(),
            requests[1].path.as_str(),
            requests[1].header("authorization"),
        ),
        ("POST", "/v1/chat/completions", Some("Bearer sk-test"))
    );
    let expected = json!({
        "model": "local-model",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": [{"type": "text", "text": "What does my todo note say?"}]},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_abc", "type": "function",
                 "function": {"name": "read_note", "arguments": "{\"name\":\"todo\"}"}}
            ]},
            {"role": "tool", "content": "buy milk", "tool_call_id": "call_abc"}
        ],
        "stream": true,
        "stream_options": {"include_usage": true},
        "store": false,
        "max_completion_tokens": 4096,
        "tools": [{"type": "function", "function": {
            "name": "read_note", "description": "Read a note", "parameters": parameters
        }}]
    });
    assert_eq!(
        serde_json::to_string_pretty(&requests[1].body_json().unwrap()).unwrap(),
        serde_json::to_string_pretty(&expected).unwrap()
    );
}

#[tokio::test]
async fn http_429_with_retry_after_is_rate_limited_with_the_hint_and_one_request() {
    let server = MockServer::start(vec![
        MockResponse::json_error(
            429,
            r#"{"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}"#,
        )
        .header("retry-after", "3"),
    ])
    .await;
    let model = model("local-vllm", &format!("{}/v1", server.base_url()));
    let mut stream = provider().stream(&model, Context::default(), StreamOptions::default());
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        events.push(event);
    }
    let [AssistantMessageEvent::Error { reason, error }] = events.as_slice() else {
        panic!("expected one error event, got {events:?}");
    };
    assert_eq!(
        (
            *reason,
            error.content.clone(),
            error.error_message.as_deref(),
            error.error_info.clone(),
        ),
        (
            StopReason::Error,
            vec![],
            Some(
                r#"429: {"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}"#
            ),
            Some(ErrorInfo {
                kind: ErrorKind::RateLimited,
                status: Some(429),
                retry_after_ms: Some(3000),
            }),
        )
    );
    let requests = server.requests();
    assert_eq!(
        (requests.len(), requests[0].header("authorization")),
        (1, None),
        "exactly one request; a loopback server needs no key"
    );
}

#[tokio::test]
async fn a_missing_key_for_a_remote_server_fails_at_once_with_an_auth_error() {
    let model = model("openai", "https://api.openai.com/v1");
    let result = provider()
        .stream(&model, Context::default(), StreamOptions::default())
        .result()
        .await;
    assert_eq!(
        (
            result.stop_reason,
            result.content.len(),
            result.error_message.as_deref(),
            result.error_info,
        ),
        (
            StopReason::Error,
            0,
            Some("No API key for provider: openai"),
            Some(ErrorInfo::new(ErrorKind::Auth)),
        )
    );
}
