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

fn done() -> MockResponse {
    MockResponse::sse(&[
        &chat_chunk(json!({"content": "Done."}), Some("stop")),
        "[DONE]",
    ])
}

/// Runs `rho --mode json` against `server`; the exit code and the JSON lines.
async fn run_against(server: &MockServer) -> (Option<i32>, Vec<Value>) {
    let dir = tempfile::tempdir().unwrap();
    run_in(dir.path(), server).await
}

/// Runs `rho --mode json` against `server` with `dir` as its home and working directory.
async fn run_in(dir: &std::path::Path, server: &MockServer) -> (Option<i32>, Vec<Value>) {
    let models = json!({"providers": {"mock": {
        "baseUrl": format!("{}/v1", server.base_url()),
        "api": "openai-completions",
        "apiKey": "sk-test",
        "models": [{"id": "m"}]
    }}});
    std::fs::write(dir.join("models.json"), models.to_string()).unwrap();
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_rho"))
        .current_dir(dir)
        .env_clear()
        .env("RHO_HOME", dir)
        .env("RHO_RETRY_BASE_DELAY_MS", "1")
        .args(["--mode", "json", "--provider", "mock", "--model", "m", "hi"])
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    let lines = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (output.status.code(), lines)
}

fn retry_events(lines: &[Value]) -> Vec<Value> {
    lines
        .iter()
        .filter(|l| l["type"] == "auto_retry_start" || l["type"] == "auto_retry_end")
        .map(|l| json!([l["type"], l["attempt"], l["delayMs"], l["success"]]))
        .collect()
}

/// The error text of the run's last message.
fn last_error(lines: &[Value]) -> &Value {
    let last = lines.iter().rev().find(|l| l["type"] == "message_end");
    &last.unwrap()["message"]["errorMessage"]
}

fn settled_reason(lines: &[Value]) -> Value {
    let last = lines.last().unwrap();
    assert_eq!(last["type"], "agent_settled");
    last["reason"].clone()
}

#[tokio::test]
async fn a_stream_cut_mid_reply_is_retried_once_then_succeeds() {
    let cut = MockResponse::sse(&[&chat_chunk(json!({"content": "Do"}), None)]).then_drop();
    let server = MockServer::start(vec![cut, done()]).await;
    let (code, lines) = run_against(&server).await;
    assert_eq!(code, Some(0));
    assert_eq!(
        retry_events(&lines),
        vec![
            json!(["auto_retry_start", 1, 1, null]),
            json!(["auto_retry_end", 1, null, true]),
        ]
    );
    assert_eq!(settled_reason(&lines), "completed");
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn a_garbled_stream_is_retried_once_then_succeeds() {
    let garbled = MockResponse::new(200)
        .header("content-type", "text/event-stream")
        .chunk(rho_testkit::Chunk::text("data: {not json at all\n\n"));
    let server = MockServer::start(vec![garbled, done()]).await;
    let (code, lines) = run_against(&server).await;
    assert_eq!(code, Some(0));
    assert_eq!(retry_events(&lines).len(), 2);
    assert_eq!(settled_reason(&lines), "completed");
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn a_rate_limit_retry_after_hint_longer_than_the_backoff_sets_the_delay() {
    let limited = MockResponse::json_error(
        429,
        r#"{"error": {"message": "Rate limit reached", "type": "rate_limit_exceeded"}}"#,
    )
    .header("retry-after-ms", "40");
    let server = MockServer::start(vec![limited, done()]).await;
    let (code, lines) = run_against(&server).await;
    assert_eq!(code, Some(0));
    assert_eq!(
        retry_events(&lines)[0],
        json!(["auto_retry_start", 1, 40, null])
    );
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn four_overloaded_answers_exhaust_three_retries_and_exit_1() {
    let overloaded = r#"{"error": {"message": "Overloaded", "type": "overloaded_error"}}"#;
    let server = MockServer::start(
        (0..4)
            .map(|_| MockResponse::json_error(529, overloaded))
            .collect(),
    )
    .await;
    let (code, lines) = run_against(&server).await;
    assert_eq!(code, Some(1));
    assert_eq!(
        retry_events(&lines),
        vec![
            json!(["auto_retry_start", 1, 1, null]),
            json!(["auto_retry_start", 2, 2, null]),
            json!(["auto_retry_start", 3, 4, null]),
            json!(["auto_retry_end", 3, null, false]),
        ]
    );
    assert_eq!(settled_reason(&lines), "error");
    assert_eq!(server.requests().len(), 4);
}

#[tokio::test]
async fn a_bad_request_is_not_retried_and_exits_1() {
    let bad =
        r#"{"error": {"message": "Unknown parameter: 'foo'", "type": "invalid_request_error"}}"#;
    let server = MockServer::start(vec![MockResponse::json_error(400, bad), done()]).await;
    let (code, lines) = run_against(&server).await;
    assert_eq!(code, Some(1));
    assert_eq!(retry_events(&lines), Vec::<Value>::new());
    assert_eq!(settled_reason(&lines), "error");
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn a_retry_after_past_the_cap_fails_at_once_instead_of_sleeping_a_day() {
    let limited = MockResponse::json_error(429, r#"{"error": {"message": "come back tomorrow"}}"#)
        .header("retry-after", "86400");
    let server = MockServer::start(vec![limited, done()]).await;
    let (code, lines) = run_against(&server).await;
    assert_eq!(code, Some(1));
    assert_eq!(retry_events(&lines), Vec::<Value>::new());
    assert_eq!(server.requests().len(), 1);
    assert_eq!(
        last_error(&lines),
        "Server requested 86400s retry delay (max: 60s). 429 come back tomorrow"
    );
    assert_eq!(settled_reason(&lines), "error");
}

#[tokio::test]
async fn the_cap_set_in_settings_fails_a_shorter_retry_after_than_the_default_would() {
    let limited = MockResponse::json_error(429, r#"{"error": {"message": "slow down"}}"#)
        .header("retry-after", "2");
    let server = MockServer::start(vec![limited, done()]).await;
    let dir = tempfile::tempdir().unwrap();
    let settings = json!({"retry": {"provider": {"maxRetryDelayMs": 1000}}});
    std::fs::write(dir.path().join("settings.json"), settings.to_string()).unwrap();
    let (code, lines) = run_in(dir.path(), &server).await;
    assert_eq!(code, Some(1));
    assert_eq!(retry_events(&lines), Vec::<Value>::new());
    assert_eq!(server.requests().len(), 1);
    assert_eq!(
        last_error(&lines),
        "Server requested 2s retry delay (max: 1s). 429 slow down"
    );
}

#[tokio::test]
async fn the_backoff_is_clamped_to_max_agent_delay_ms_from_settings() {
    let overloaded = r#"{"error": {"message": "Overloaded", "type": "overloaded_error"}}"#;
    let mut answers: Vec<MockResponse> = (0..3)
        .map(|_| MockResponse::json_error(529, overloaded))
        .collect();
    answers.push(done());
    let server = MockServer::start(answers).await;
    let dir = tempfile::tempdir().unwrap();
    let settings = json!({"retry": {"maxAgentDelayMs": 2}});
    std::fs::write(dir.path().join("settings.json"), settings.to_string()).unwrap();
    let (code, lines) = run_in(dir.path(), &server).await;
    assert_eq!(code, Some(0));
    // Base 1 ms (RHO_RETRY_BASE_DELAY_MS): 1, 2, then 4 clamped to 2.
    assert_eq!(
        retry_events(&lines),
        vec![
            json!(["auto_retry_start", 1, 1, null]),
            json!(["auto_retry_start", 2, 2, null]),
            json!(["auto_retry_start", 3, 2, null]),
            json!(["auto_retry_end", 3, null, true]),
        ]
    );
}

#[tokio::test]
async fn a_retried_attempt_is_announced_as_pi_1_6_does_and_left_out_of_the_context_by_a_context_edit()
 {
    let overloaded = r#"{"error": {"message": "Overloaded", "type": "overloaded_error"}}"#;
    let server = MockServer::start(vec![MockResponse::json_error(529, overloaded), done()]).await;
    let dir = tempfile::tempdir().unwrap();
    let (code, lines) = run_in(dir.path(), &server).await;
    assert_eq!(code, Some(0));
    // Pi 1.6's order (json-retry.new.jsonl): the failed run ends saying a retry follows, the
    // retry is announced, the failed reply's context edit is appended, then the next run.
    let kinds: Vec<String> = lines[1..]
        .iter()
        .map(|l| match l["type"].as_str().unwrap() {
            "agent_end" => format!("agent_end:{}", l["willRetry"]),
            "entry_appended" => format!("entry_appended:{}", l["entry"]["type"].as_str().unwrap()),
            other => other.to_owned(),
        })
        .filter(|k| k != "message_update")
        .collect();
    let at = kinds.iter().position(|k| k == "agent_end:true").unwrap();
    assert_eq!(
        kinds[at - 2..at + 4],
        [
            "message_end",
            "turn_end",
            "agent_end:true",
            "auto_retry_start",
            "entry_appended:context_edit",
            "agent_start"
        ]
    );
    assert_eq!(
        kinds[kinds.len() - 2..],
        ["agent_end:false", "agent_settled"]
    );
    let appended = lines
        .iter()
        .find(|l| l["type"] == "entry_appended")
        .unwrap();
    assert_eq!(appended["entry"]["replacement"], Value::Null);
    // The file keeps the failed reply and the edit naming it; the retry did not send it.
    let sessions = dir.path().join("sessions");
    let project = std::fs::read_dir(&sessions)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let file = std::fs::read_dir(project)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let entries: Vec<Value> = std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let failed = entries
        .iter()
        .find(|e| e["message"]["stopReason"] == "error")
        .unwrap();
    assert_eq!(appended["entry"]["targetId"], failed["id"]);
    assert!(entries.iter().any(|e| e == &appended["entry"]));
    let retried: Value = server.requests()[1].body_json().unwrap();
    let roles: Vec<&str> = retried["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["system", "user"]);
}
