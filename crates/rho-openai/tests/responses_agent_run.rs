//! The Responses provider under the real agent loop and over HTTP faults, against a loopback
//! server.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use rho_agent::{AgentMessage, LoopConfig, LoopContext, run_agent_loop};
use rho_ai::{
    AssistantMessage, ContentBlock, Context, ErrorInfo, ErrorKind, Message, Model, ModelCost,
    Provider, StopReason, StreamOptions, TextContent, ThinkingLevel, UserMessage,
};
use rho_http::HttpClient;
use rho_openai::ResponsesProvider;
use rho_testkit::tools::NoteTool;
use rho_testkit::{MockResponse, MockServer};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

fn model(base_url: &str) -> Model {
    Model {
        id: "gpt-5-mini".into(),
        name: "gpt-5-mini".into(),
        api: "openai-responses".into(),
        provider: "openai".into(),
        base_url: base_url.into(),
        reasoning: true,
        input: vec!["text".into()],
        cost: ModelCost::default(),
        context_window: 400_000,
        max_tokens: 4_096,
        headers: None,
        compat: None,
    }
}

fn provider() -> Arc<ResponsesProvider> {
    Arc::new(ResponsesProvider::new(
        HttpClient::default(),
        Duration::from_secs(10),
    ))
}

fn sse(events: &[Value]) -> MockResponse {
    let payloads: Vec<String> = events.iter().map(Value::to_string).collect();
    let refs: Vec<&str> = payloads.iter().map(String::as_str).collect();
    MockResponse::sse(&refs)
}

fn completed(id: &str) -> Value {
    json!({"type": "response.completed", "response": {"id": id, "status": "completed",
        "usage": {"input_tokens": 50, "input_tokens_details": {"cached_tokens": 10},
                  "output_tokens": 20, "output_tokens_details": {"reasoning_tokens": 5},
                  "total_tokens": 70}}})
}

fn reasoning_done() -> Value {
    json!({"id": "rs_1", "type": "reasoning", "encrypted_content": "enc-1",
           "summary": [{"type": "summary_text", "text": "Need the note."}]})
}

#[tokio::test]
async fn a_function_call_turn_replays_reasoning_and_the_call_paired_with_its_output() {
    let call_item = json!({"id": "fc_1", "type": "function_call", "status": "in_progress",
                           "call_id": "call_1", "name": "read_note", "arguments": ""});
    let mut call_done = call_item.clone();
    call_done["status"] = json!("completed");
    call_done["arguments"] = json!("{\"name\":\"todo\"}");
    let turn1 = sse(&[
        json!({"type": "response.created", "response": {"id": "resp_1", "status": "in_progress"}}),
        json!({"type": "response.output_item.added", "output_index": 0,
               "item": {"id": "rs_1", "type": "reasoning", "summary": []}}),
        json!({"type": "response.reasoning_summary_part.added", "item_id": "rs_1", "summary_index": 0,
               "part": {"type": "summary_text", "text": ""}}),
        json!({"type": "response.reasoning_summary_text.delta", "item_id": "rs_1", "delta": "Need the note."}),
        json!({"type": "response.reasoning_summary_part.done", "item_id": "rs_1", "summary_index": 0}),
        json!({"type": "response.output_item.done", "output_index": 0, "item": reasoning_done()}),
        json!({"type": "response.output_item.added", "output_index": 1, "item": call_item}),
        json!({"type": "response.function_call_arguments.delta", "item_id": "fc_1", "delta": "{\"name\":"}),
        json!({"type": "response.function_call_arguments.delta", "item_id": "fc_1", "delta": "\"todo\"}"}),
        json!({"type": "response.function_call_arguments.done", "item_id": "fc_1", "arguments": "{\"name\":\"todo\"}"}),
        json!({"type": "response.output_item.done", "output_index": 1, "item": call_done}),
        completed("resp_1"),
    ]);
    let message_item = |status: &str, text: &str| {
        json!({"id": "msg_2", "type": "message", "status": status, "role": "assistant", "phase": "final_answer",
               "content": [{"type": "output_text", "text": text, "annotations": []}]})
    };
    let turn2 = sse(&[
        json!({"type": "response.created", "response": {"id": "resp_2", "status": "in_progress"}}),
        json!({"type": "response.output_item.added", "output_index": 0, "item": message_item("in_progress", "")}),
        json!({"type": "response.content_part.added", "item_id": "msg_2", "content_index": 0,
               "part": {"type": "output_text", "text": "", "annotations": []}}),
        json!({"type": "response.output_text.delta", "item_id": "msg_2", "delta": "The note says: "}),
        json!({"type": "response.output_text.delta", "item_id": "msg_2", "delta": "buy milk"}),
        json!({"type": "response.output_item.done", "output_index": 0,
               "item": message_item("completed", "The note says: buy milk")}),
        completed("resp_2"),
    ]);
    let server = MockServer::start(vec![turn1, turn2]).await;

    let mut config = LoopConfig::new(model(&format!("{}/v1", server.base_url())), provider());
    config.api_key = Some("sk-test".into());
    config.reasoning = Some(ThinkingLevel::Low);
    config.session_id = Some("sess-1".into());
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
        (
            last.content.clone(),
            last.stop_reason,
            last.response_id.as_deref()
        ),
        (
            vec![ContentBlock::Text(TextContent {
                text: "The note says: buy milk".into(),
                text_signature: Some(r#"{"v":1,"id":"msg_2","phase":"final_answer"}"#.into()),
            })],
            StopReason::Stop,
            Some("resp_2"),
        )
    );

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        (
            requests[1].method.as_str(),
            requests[1].path.as_str(),
            requests[1].header("authorization"),
            requests[1].header("session_id"),
        ),
        (
            "POST",
            "/v1/responses",
            Some("Bearer sk-test"),
            Some("sess-1")
        )
    );
    let expected = json!({
        "model": "gpt-5-mini",
        "input": [
            {"role": "developer", "content": "Be brief."},
            {"role": "user", "content": [{"type": "input_text", "text": "What does my todo note say?"}]},
            reasoning_done(),
            {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "read_note",
             "arguments": "{\"name\":\"todo\"}"},
            {"type": "function_call_output", "call_id": "call_1", "output": "buy milk"}
        ],
        "stream": true,
        "prompt_cache_key": "sess-1",
        "store": false,
        "max_output_tokens": 4096,
        "tools": [{"type": "function", "name": "read_note", "description": "Read a note",
                   "parameters": parameters}],
        "reasoning": {"effort": "low", "summary": "auto"},
        "include": ["reasoning.encrypted_content"]
    });
    assert_eq!(
        serde_json::to_string_pretty(&requests[1].body_json().unwrap()).unwrap(),
        serde_json::to_string_pretty(&expected).unwrap()
    );
}

async fn call_once(server: &MockServer) -> AssistantMessage {
    let options = StreamOptions {
        api_key: Some("sk-test".into()),
        ..StreamOptions::default()
    };
    let model = model(&format!("{}/v1", server.base_url()));
    provider()
        .stream(&model, Context::default(), options)
        .result()
        .await
}

#[tokio::test]
async fn a_response_failed_event_fails_with_its_code_and_message_keeping_the_text_so_far() {
    let server = MockServer::start(vec![sse(&[
        json!({"type": "response.created", "response": {"id": "resp_f", "status": "in_progress"}}),
        json!({"type": "response.output_item.added", "output_index": 0,
               "item": {"id": "msg_f", "type": "message", "role": "assistant", "content": []}}),
        json!({"type": "response.output_text.delta", "item_id": "msg_f", "delta": "Half"}),
        json!({"type": "response.failed", "response": {"id": "resp_f", "status": "failed",
               "error": {"code": "server_error", "message": "The server had an error."}}}),
    ])])
    .await;
    let message = call_once(&server).await;
    let mut expected = AssistantMessage::empty("openai-responses", "openai", "gpt-5-mini");
    expected.content = vec![ContentBlock::text("Half")];
    expected.response_id = Some("resp_f".into());
    expected.stop_reason = StopReason::Error;
    expected.error_message = Some("server_error: The server had an error.".into());
    expected.error_info = Some(ErrorInfo::new(ErrorKind::Server));
    expected.timestamp = message.timestamp;
    assert_eq!(message, expected);
}

#[tokio::test]
async fn http_429_is_rate_limited_with_the_openai_wording_the_hint_and_one_request() {
    let server = MockServer::start(vec![
        MockResponse::json_error(
            429,
            r#"{"error":{"message":"Rate limit reached for gpt-5-mini","type":"requests","code":"rate_limit_exceeded"}}"#,
        )
        .header("retry-after", "3"),
    ])
    .await;
    let message = call_once(&server).await;
    let mut expected = AssistantMessage::empty("openai-responses", "openai", "gpt-5-mini");
    expected.stop_reason = StopReason::Error;
    expected.error_message = Some(
        r#"OpenAI API error (429): {"message":"Rate limit reached for gpt-5-mini","type":"requests","code":"rate_limit_exceeded"}"#
            .into(),
    );
    expected.error_info = Some(ErrorInfo {
        kind: ErrorKind::RateLimited,
        status: Some(429),
        retry_after_ms: Some(3000),
    });
    expected.timestamp = message.timestamp;
    assert_eq!(message, expected);
    assert_eq!(server.requests().len(), 1, "no hidden retry");
}

#[tokio::test]
async fn a_body_that_ends_before_response_completed_is_a_stream_cut() {
    let server = MockServer::start(vec![sse(&[
        json!({"type": "response.created", "response": {"id": "resp_c", "status": "in_progress"}}),
    ])])
    .await;
    let message = call_once(&server).await;
    assert_eq!(
        (
            message.stop_reason,
            message.error_message.as_deref(),
            message.error_info
        ),
        (
            StopReason::Error,
            Some("Stream ended before response.completed"),
            Some(ErrorInfo::new(ErrorKind::StreamCut)),
        )
    );
}

#[tokio::test]
async fn a_missing_key_for_a_remote_server_fails_at_once_with_an_auth_error() {
    let model = model("https://api.openai.com/v1");
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
