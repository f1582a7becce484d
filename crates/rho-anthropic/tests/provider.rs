//! `AnthropicProvider` over a loopback server: what it sends, and how it fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use rho_ai::{
    AssistantMessage, AssistantMessageEvent, Context, ErrorInfo, ErrorKind, Model, Provider,
    StopReason, StreamOptions, ToolSpec, UserMessage,
};
use rho_anthropic::{AnthropicProvider, anthropic_headers, to_anthropic_request};
use rho_http::HttpClient;
use rho_testkit::{Chunk, MockResponse, MockServer};
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn provider() -> AnthropicProvider {
    AnthropicProvider::new(HttpClient::default(), Duration::from_secs(30))
}

fn model_at(server: &MockServer) -> Model {
    Model {
        base_url: format!("{}/", server.base_url()),
        ..common::model()
    }
}

fn context() -> Context {
    Context {
        system_prompt: Some("Be brief.".into()),
        messages: Arc::new(vec![rho_ai::Message::User(Arc::new(UserMessage::text(
            "Hi",
        )))]),
        tools: Arc::from(vec![ToolSpec {
            name: "read".into(),
            description: "Read a file".into(),
            parameters: json!({"type": "object", "properties": {}}),
        }]),
    }
}

fn with_key(key: Option<&str>) -> StreamOptions {
    StreamOptions {
        api_key: key.map(Into::into),
        ..StreamOptions::default()
    }
}

async fn events_of(mut stream: rho_ai::AssistantMessageEventStream) -> Vec<AssistantMessageEvent> {
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        events.push(event);
    }
    events
}

fn text_simple() -> MockResponse {
    MockResponse::new(200)
        .header("content-type", "text/event-stream")
        .chunk(Chunk::Bytes(common::fixture_body("text-simple.sse")))
}

#[tokio::test]
async fn a_missing_api_key_fails_with_auth_and_sends_nothing() {
    let server = MockServer::start(vec![text_simple()]).await;
    let model = model_at(&server);
    for key in [None, Some(""), Some("  ")] {
        let events = events_of(provider().stream(&model, context(), with_key(key))).await;
        let [AssistantMessageEvent::Error { reason, error }] = &events[..] else {
            panic!("expected one error event, got {events:?}");
        };
        let expected = AssistantMessage {
            stop_reason: StopReason::Error,
            error_message: Some("No API key for provider: anthropic".into()),
            error_info: Some(ErrorInfo::new(ErrorKind::Auth)),
            timestamp: error.timestamp,
            ..AssistantMessage::empty("anthropic-messages", "anthropic", "claude-sonnet-4-5")
        };
        assert_eq!((*reason, error), (StopReason::Error, &expected));
    }
    assert_eq!(server.requests().len(), 0);
}

#[tokio::test]
async fn the_request_is_one_post_of_the_built_body_with_the_built_headers() {
    let server = MockServer::start(vec![text_simple()]).await;
    let model = model_at(&server);
    let options = with_key(Some("sk-ant-secret"));
    let stream = provider().stream(&model, context(), options.clone());
    let message = stream.result().await;
    assert_eq!(message.text(), "Hello");
    assert_eq!(message.stop_reason, StopReason::Stop);

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let request = &requests[0];
    assert_eq!((&*request.method, &*request.path), ("POST", "/v1/messages"));
    assert_eq!(
        request.body_json().unwrap(),
        to_anthropic_request(&model, &context(), &options)
    );
    for (name, value) in anthropic_headers(&model, &context(), &options, "sk-ant-secret") {
        assert_eq!(request.header(&name), Some(&*value), "{name}");
    }
    assert_eq!(request.header("content-type"), Some("application/json"));
}

#[tokio::test]
async fn an_in_stream_error_event_keeps_the_streamed_text_and_its_kind() {
    let body = String::from_utf8(common::fixture_body("text-simple.sse")).unwrap();
    let cut = body.find("event: content_block_stop").unwrap();
    let data = r#"{"type":"error","error":{"details":null,"type":"overloaded_error","message":"Overloaded"},"request_id":"req_1"}"#;
    let server = MockServer::start(vec![
        MockResponse::new(200)
            .header("content-type", "text/event-stream")
            .chunk(Chunk::text(&body[..cut]))
            .chunk(Chunk::text(&format!("event: error\ndata: {data}\n\n"))),
    ])
    .await;
    let model = model_at(&server);
    let events = events_of(provider().stream(&model, context(), with_key(Some("k")))).await;
    let kinds: Vec<String> = common::kinds(&events);
    assert_eq!(
        kinds,
        common::strings(&["start", "text_start", "text_delta", "error"])
    );
    let error = events.last().unwrap().terminal_message().unwrap();
    assert_eq!(error.text(), "Hello");
    assert_eq!(error.stop_reason, StopReason::Error);
    assert_eq!(error.error_message.as_deref(), Some(data));
    assert_eq!(
        error.error_info,
        Some(ErrorInfo::new(ErrorKind::Overloaded))
    );
    assert_eq!(
        error.response_id.as_deref(),
        Some("msg_01T8kTq7cYyYJeQ5DxcVUc6D")
    );
}

#[tokio::test]
async fn a_call_cancelled_before_it_starts_is_aborted_without_a_request() {
    let server = MockServer::start(vec![text_simple()]).await;
    let options = StreamOptions {
        cancel: CancellationToken::new(),
        ..with_key(Some("k"))
    };
    options.cancel.cancel();
    let message = provider()
        .stream(&model_at(&server), context(), options)
        .result()
        .await;
    assert_eq!(message.stop_reason, StopReason::Aborted);
    assert_eq!(
        message.error_message.as_deref(),
        Some("Request was aborted")
    );
    assert_eq!(server.requests().len(), 0);
}
