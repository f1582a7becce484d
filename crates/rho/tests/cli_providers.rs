//! The command line over real HTTP: a models.json provider in `RHO_HOME`, a loopback server
//! speaking the provider's wire format, and a real `rho` process in between.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Stdio;

use rho_testkit::{MockResponse, MockServer};
use serde_json::{Value, json};

fn chat_chunk(delta: Value, finish: Option<&str>) -> String {
    json!({"id": "chatcmpl-1", "model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}).to_string()
}

/// Runs `rho` against `server` with a models.json naming it; returns (exit code, stdout lines, stderr).
async fn run_rho(
    server: &MockServer,
    api: &str,
    base_suffix: &str,
    extra: &[&str],
) -> (Option<i32>, Vec<Value>, String) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "remember the milk\n").unwrap();
    let models = json!({"providers": {"mock": {
        "baseUrl": format!("{}{}", server.base_url(), base_suffix),
        "api": api,
        "apiKey": "sk-test-secret-123",
        "models": [{"id": "m"}]
    }}});
    std::fs::write(dir.path().join("models.json"), models.to_string()).unwrap();
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_rho"))
        .current_dir(dir.path())
        .env_clear()
        .env("RHO_HOME", dir.path())
        .env("RHO_RETRY_BASE_DELAY_MS", "1")
        .args(["--mode", "json", "--provider", "mock", "--model", "m"])
        .args(extra)
        .arg("read notes.txt")
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let lines = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (
        output.status.code(),
        lines,
        String::from_utf8(output.stderr).unwrap(),
    )
}

#[tokio::test]
async fn a_chat_completions_run_sends_the_tool_result_back_and_never_leaks_the_key() {
    let server = MockServer::start(vec![
        MockResponse::sse(&[
            &chat_chunk(json!({"role": "assistant", "content": "Reading."}), None),
            &chat_chunk(json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "read", "arguments": "{\"path\":"}}]}), None),
            &chat_chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": "\"notes.txt\"}"}}]}), Some("tool_calls")),
            "[DONE]",
        ]),
        MockResponse::sse(&[&chat_chunk(json!({"content": "Buy milk."}), Some("stop")), "[DONE]"]),
    ])
    .await;
    let (code, lines, stderr) = run_rho(&server, "openai-completions", "/v1", &[]).await;
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(lines.last().unwrap()["type"], "agent_settled");
    assert_eq!(lines.last().unwrap()["reason"], "completed");

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].path, "/v1/chat/completions");
    assert_eq!(
        requests[0].header("authorization"),
        Some("Bearer sk-test-secret-123")
    );
    let second = requests[1].body_json().unwrap();
    let messages = second["messages"].as_array().unwrap();
    let tail = &messages[messages.len() - 2..];
    assert_eq!(tail[0]["tool_calls"][0]["id"], "call_1");
    assert_eq!(
        tail[0]["tool_calls"][0]["function"]["arguments"],
        "{\"path\":\"notes.txt\"}"
    );
    assert_eq!(
        tail[1],
        json!({"role": "tool", "content": "remember the milk\n", "tool_call_id": "call_1"})
    );
    let all_output = format!("{lines:?}{stderr}");
    assert!(
        !all_output.contains("sk-test-secret-123"),
        "the key leaked into output"
    );
}

#[tokio::test]
async fn an_anthropic_run_over_http_completes_and_replays_the_tool_use() {
    let event = |value: Value| value.to_string();
    let start = event(
        json!({"type": "message_start", "message": {"id": "msg_1", "usage": {"input_tokens": 10, "output_tokens": 1}}}),
    );
    let server = MockServer::start(vec![
        MockResponse::sse(&[
            &start,
            &event(json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {}}})),
            &event(json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": "{\"path\": \"notes.txt\"}"}})),
            &event(json!({"type": "content_block_stop", "index": 0})),
            &event(json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 7}})),
            &event(json!({"type": "message_stop"})),
        ]),
        MockResponse::sse(&[
            &start,
            &event(json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})),
            &event(json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Buy milk."}})),
            &event(json!({"type": "content_block_stop", "index": 0})),
            &event(json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 3}})),
            &event(json!({"type": "message_stop"})),
        ]),
    ])
    .await;
    let (code, lines, stderr) = run_rho(&server, "anthropic-messages", "", &[]).await;
    assert_eq!(code, Some(0), "{stderr}");
    let settled = lines.last().unwrap();
    assert_eq!(
        (settled["reason"].as_str(), settled["turns"].as_u64()),
        (Some("completed"), Some(2))
    );
    let requests = server.requests();
    assert_eq!(requests[0].path, "/v1/messages");
    assert_eq!(requests[0].header("x-api-key"), Some("sk-test-secret-123"));
    let second = requests[1].body_json().unwrap();
    let messages = second["messages"].as_array().unwrap();
    let last = &messages[messages.len() - 1];
    assert_eq!(last["role"], "user");
    assert_eq!(last["content"][0]["type"], "tool_result");
    assert_eq!(last["content"][0]["tool_use_id"], "toolu_1");
    assert_eq!(last["content"][0]["content"], "remember the milk\n");
}

#[tokio::test]
async fn an_overloaded_provider_is_retried_only_visibly_and_ends_the_run_with_exit_1() {
    let body = r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
    let server = MockServer::start(vec![MockResponse::json_error(529, body); 4]).await;
    let (code, lines, _) = run_rho(&server, "anthropic-messages", "", &[]).await;
    assert_eq!(code, Some(1));
    let retries = lines
        .iter()
        .filter(|l| l["type"] == "auto_retry_start")
        .count();
    assert_eq!(retries, 3);
    assert_eq!(
        server.requests().len(),
        1 + retries,
        "no hidden retries: one request per visible attempt"
    );
    let failed = lines
        .iter()
        .find(|l| l["type"] == "message_end" && l["message"]["role"] == "assistant")
        .unwrap();
    assert_eq!(failed["message"]["stopReason"], "error");
    assert_eq!(failed["message"]["errorMessage"], format!("529 {body}"));
    assert_eq!(lines.last().unwrap()["reason"], "error");
}

/// The same 529 body on each API gives Pi 1.6's `errorMessage` for that API (observed with Pi
/// 1.6.0 on the mock: gaps §1.9): Anthropic's SDK text, Chat Completions' `<status>: <error>`,
/// Responses' `<provider> API error (<status>): <error>`.
#[tokio::test]
async fn a_529_is_worded_as_pi_16_words_it_on_each_api() {
    let body = r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
    let error = r#"{"type":"overloaded_error","message":"Overloaded"}"#;
    let cases = [
        ("anthropic-messages", "", format!("529 {body}")),
        ("openai-completions", "/v1", format!("529: {error}")),
        (
            "openai-responses",
            "/v1",
            format!("mock API error (529): {error}"),
        ),
    ];
    for (api, suffix, expected) in cases {
        let server = MockServer::start(vec![MockResponse::json_error(529, body); 4]).await;
        let (code, lines, _) = run_rho(&server, api, suffix, &[]).await;
        assert_eq!(code, Some(1), "{api}");
        let texts: Vec<&Value> = lines
            .iter()
            .filter(|l| l["type"] == "message_end" && l["message"]["role"] == "assistant")
            .map(|l| &l["message"]["errorMessage"])
            .collect();
        assert_eq!(texts, vec![&Value::String(expected); 4], "{api}");
    }
}
