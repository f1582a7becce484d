//! Visible retries over real HTTP: the provider makes no hidden retries, so two 529 answers
//! before a success show as two `auto_retry_start` events and exactly three requests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Stdio;

use rho_testkit::{MockResponse, MockServer};
use serde_json::{Value, json};

fn chat_chunk(delta: Value, finish: Option<&str>) -> String {
    json!({"id": "chatcmpl-1", "model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}).to_string()
}

#[tokio::test]
async fn two_overloaded_answers_then_success_show_two_visible_retries_and_three_requests() {
    let overloaded = r#"{"error": {"message": "Overloaded", "type": "overloaded_error"}}"#;
    let server = MockServer::start(vec![
        MockResponse::json_error(529, overloaded),
        MockResponse::json_error(529, overloaded),
        MockResponse::sse(&[
            &chat_chunk(json!({"content": "Done."}), Some("stop")),
            "[DONE]",
        ]),
    ])
    .await;
    let dir = tempfile::tempdir().unwrap();
    let models = json!({"providers": {"mock": {
        "baseUrl": format!("{}/v1", server.base_url()),
        "api": "openai-completions",
        "apiKey": "sk-test",
        "models": [{"id": "m"}]
    }}});
    std::fs::write(dir.path().join("models.json"), models.to_string()).unwrap();
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_rho"))
        .current_dir(dir.path())
        .env_clear()
        .env("RHO_HOME", dir.path())
        .env("RHO_RETRY_BASE_DELAY_MS", "1")
        .args(["--mode", "json", "--provider", "mock", "--model", "m", "hi"])
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let lines: Vec<Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let retries: Vec<Value> = lines
        .iter()
        .filter(|l| l["type"] == "auto_retry_start" || l["type"] == "auto_retry_end")
        .map(|l| json!([l["type"], l["attempt"], l["delayMs"], l["success"]]))
        .collect();
    assert_eq!(
        retries,
        vec![
            json!(["auto_retry_start", 1, 1, null]),
            json!(["auto_retry_start", 2, 2, null]),
            json!(["auto_retry_end", 2, null, true]),
        ]
    );
    let last = lines.last().unwrap();
    assert_eq!(
        (&last["type"], &last["reason"]),
        (&json!("agent_settled"), &json!("completed"))
    );
    assert_eq!(server.requests().len(), 3);
}
