//! Compaction over real HTTP and real session files: a provider's context-overflow answer is
//! compacted and retried once, a context past the threshold is compacted after the run, the
//! session file keeps everything, and `--continue` resumes the compacted view.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Stdio;

use rho_testkit::{MockResponse, MockServer};
use serde_json::{Value, json};

const OVERFLOW: &str = r#"{"error": {"message": "This model's maximum context length is 128000 tokens.", "type": "invalid_request_error", "code": "context_length_exceeded"}}"#;
const SUMMARY: &str = "## Goal\nGreet the user.";

fn reply(text: &str, prompt_tokens: u64) -> MockResponse {
    let chunk = |delta: Value, finish: Option<&str>| {
        json!({"id": "c", "model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
            .to_string()
    };
    let usage = json!({"id": "c", "model": "m", "choices": [],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 5, "total_tokens": prompt_tokens + 5}})
    .to_string();
    MockResponse::sse(&[
        &chunk(json!({"content": text}), None),
        &chunk(json!({}), Some("stop")),
        &usage,
        "[DONE]",
    ])
}

fn write_models(dir: &Path, server: &MockServer, context_window: u64) {
    let models = json!({"providers": {"mock": {
        "baseUrl": format!("{}/v1", server.base_url()),
        "api": "openai-completions",
        "apiKey": "sk-test",
        "models": [{"id": "m", "contextWindow": context_window}]
    }}});
    std::fs::write(dir.join("models.json"), models.to_string()).unwrap();
    // Keep only the last user turn verbatim, so the turns before it are summarised.
    let settings = json!({"compaction": {"keepRecentTokens": 2}});
    std::fs::write(dir.join("settings.json"), settings.to_string()).unwrap();
}

async fn rho(dir: &Path, args: &[&str]) -> (Option<i32>, Vec<Value>, String) {
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_rho"))
        .current_dir(dir)
        .env_clear()
        .env("RHO_HOME", dir)
        .args(["--mode", "json", "--provider", "mock", "--model", "m"])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    let lines = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    (output.status.code(), lines, stderr)
}

/// The types of the lines whose type is one of `wanted`, in order.
fn kinds_of<'a>(lines: &'a [Value], wanted: &[&str]) -> Vec<&'a str> {
    lines
        .iter()
        .filter_map(|l| l["type"].as_str())
        .filter(|kind| wanted.contains(kind))
        .collect()
}

fn of_type<'a>(lines: &'a [Value], kind: &str) -> Vec<&'a Value> {
    lines.iter().filter(|l| l["type"] == kind).collect()
}

/// The `(role, text)` of each message the model was sent (system prompt left out).
fn sent(request: &rho_testkit::RecordedRequest) -> Vec<(String, String)> {
    let body = request.body_json().unwrap();
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] != "system")
        .map(|m| {
            let text = match &m["content"] {
                Value::String(text) => text.clone(),
                Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect(),
                _ => String::new(),
            };
            (m["role"].as_str().unwrap().to_owned(), text)
        })
        .collect()
}

fn summary_message(summary: &str) -> (String, String) {
    (
        "user".to_owned(),
        format!(
            "The conversation history before this point was compacted into the following summary:\n\n<summary>\n{summary}\n</summary>"
        ),
    )
}

fn session_entry_types(dir: &Path) -> Vec<String> {
    let sessions = dir.join("sessions");
    let cwd_dir = std::fs::read_dir(&sessions)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let file = std::fs::read_dir(cwd_dir)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

#[tokio::test]
async fn an_overflow_is_compacted_retried_once_and_the_compacted_view_resumes() {
    let server = MockServer::start(vec![
        reply("one", 10),
        MockResponse::json_error(400, OVERFLOW),
        reply(SUMMARY, 10),
        reply("done", 10),
        reply("resumed", 10),
    ])
    .await;
    let dir = tempfile::tempdir().unwrap();
    write_models(dir.path(), &server, 128_000);

    let (code, _, stderr) = rho(dir.path(), &["first"]).await;
    assert_eq!(code, Some(0), "{stderr}");
    let (code, lines, stderr) = rho(dir.path(), &["--continue", "second"]).await;

    assert_eq!(code, Some(0), "{stderr}\n{lines:#?}");
    let compaction: Vec<Value> = lines
        .iter()
        .filter(|l| l["type"] == "compaction_start" || l["type"] == "compaction_end")
        .map(|l| {
            json!([
                l["type"],
                l["reason"],
                l["willRetry"],
                l["result"]["summary"]
            ])
        })
        .collect();
    // The summary keeps the last user message verbatim and summarises the turn before it.
    assert_eq!(
        compaction,
        vec![
            json!(["compaction_start", "overflow", null, null]),
            json!(["compaction_end", "overflow", true, SUMMARY]),
        ]
    );
    assert_eq!(of_type(&lines, "agent_start").len(), 2);
    assert_eq!(lines.last().unwrap()["reason"], "completed");
    let requests = server.requests();
    assert_eq!(requests.len(), 4);
    assert!(requests[2].body_text().contains("[User]: first"));
    let retried = sent(&requests[3]);
    assert_eq!(
        retried,
        vec![
            summary_message(SUMMARY),
            ("user".to_owned(), "second".to_owned())
        ]
    );
    // Everything stays in the file, the failed reply included; the compaction is one entry.
    assert_eq!(
        session_entry_types(dir.path()),
        vec![
            "session",
            "model_change",
            "thinking_level_change",
            "message",
            "message",
            "message",
            "message",
            "message",
            "compaction",
            "message",
        ]
    );

    let (code, _, stderr) = rho(dir.path(), &["--continue", "third"]).await;
    assert_eq!(code, Some(0), "{stderr}");
    let resumed = sent(&server.requests()[4]);
    assert_eq!(
        resumed,
        vec![
            summary_message(SUMMARY),
            ("user".to_owned(), "second".to_owned()),
            ("assistant".to_owned(), "done".to_owned()),
            ("user".to_owned(), "third".to_owned()),
        ]
    );
}

#[tokio::test]
async fn a_second_overflow_after_compacting_ends_the_prompt_with_exit_1() {
    let server = MockServer::start(vec![
        reply("one", 10),
        MockResponse::json_error(400, OVERFLOW),
        reply(SUMMARY, 10),
        MockResponse::json_error(400, OVERFLOW),
    ])
    .await;
    let dir = tempfile::tempdir().unwrap();
    write_models(dir.path(), &server, 128_000);
    rho(dir.path(), &["first"]).await;

    let (code, lines, _) = rho(dir.path(), &["--continue", "second"]).await;

    assert_eq!(code, Some(1));
    let ends = of_type(&lines, "compaction_end");
    assert_eq!(
        ends.last().unwrap()["errorMessage"],
        "Context overflow recovery failed after one compact-and-retry attempt. Try reducing context or switching to a larger-context model."
    );
    assert_eq!(lines.last().unwrap()["reason"], "error");
    assert_eq!(server.requests().len(), 4);
}

#[tokio::test]
async fn a_context_past_the_threshold_is_compacted_after_the_run_and_the_next_request_shrinks() {
    // The window leaves 1,000 tokens beyond the 16,384 reserved: a reply reporting 17,000
    // prompt tokens passes the threshold without overflowing the window.
    let server = MockServer::start(vec![
        reply("one", 100),
        reply("two", 17_000),
        reply(SUMMARY, 100),
        reply("three", 100),
    ])
    .await;
    let dir = tempfile::tempdir().unwrap();
    write_models(dir.path(), &server, 17_384);
    rho(dir.path(), &["first"]).await;

    let (code, lines, stderr) = rho(dir.path(), &["--continue", "second"]).await;

    assert_eq!(code, Some(0), "{stderr}");
    let end = of_type(&lines, "compaction_end")[0];
    assert_eq!(
        (&end["reason"], &end["willRetry"]),
        (&json!("threshold"), &json!(false))
    );
    assert_eq!(of_type(&lines, "agent_start").len(), 1);
    let (_, _, stderr) = rho(dir.path(), &["--continue", "third"]).await;
    let requests = server.requests();
    assert_eq!(requests.len(), 4, "{stderr}");
    assert_eq!(
        sent(&requests[3]),
        vec![
            summary_message(SUMMARY),
            ("user".to_owned(), "second".to_owned()),
            ("assistant".to_owned(), "two".to_owned()),
            ("user".to_owned(), "third".to_owned()),
        ]
    );
}

/// A reply calling `bash` with `command`, reporting `prompt_tokens`.
fn bash_call(command: &str, prompt_tokens: u64) -> MockResponse {
    let call = json!({"id": "c", "model": "m", "choices": [{"index": 0, "delta": {"tool_calls": [{
        "index": 0, "id": "call_1", "type": "function",
        "function": {"name": "bash", "arguments": json!({"command": command}).to_string()}
    }]}, "finish_reason": null}]});
    let finish = json!({"id": "c", "model": "m", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]});
    let usage = json!({"id": "c", "model": "m", "choices": [],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 5, "total_tokens": prompt_tokens + 5}});
    MockResponse::sse(&[
        &call.to_string(),
        &finish.to_string(),
        &usage.to_string(),
        "[DONE]",
    ])
}

/// A session with one exchange, and a mock whose next reply calls bash with `command`
/// reporting `prompt_tokens`, then answers a summary and "done"; the long second prompt (so the
/// cut falls at its turn's start and one summary call covers the first exchange).
async fn one_exchange_then_a_bash_call(
    command: &str,
    prompt_tokens: u64,
) -> (tempfile::TempDir, MockServer, String) {
    let server = MockServer::start(vec![
        reply("one", 100),
        bash_call(command, prompt_tokens),
        reply(SUMMARY, 100),
        reply("done", 100),
    ])
    .await;
    let dir = tempfile::tempdir().unwrap();
    write_models(dir.path(), &server, 17_384);
    let settings = json!({"compaction": {"keepRecentTokens": 20}});
    std::fs::write(dir.path().join("settings.json"), settings.to_string()).unwrap();
    rho(dir.path(), &["first"]).await;
    (dir, server, format!("second {}", "y".repeat(400)))
}

#[tokio::test]
async fn a_context_past_the_threshold_mid_run_is_compacted_before_the_next_model_call() {
    // Pi 1.6 (0.84.4's mid-run compaction): the turn whose reply reports 17,000 prompt tokens
    // ends, the context is compacted, and the run goes on from the compacted view.
    let (dir, server, second) = one_exchange_then_a_bash_call("echo hi", 17_000).await;
    let (code, lines, stderr) = rho(dir.path(), &["--continue", &second]).await;

    let all: Vec<_> = server.requests().iter().map(sent).collect();
    assert_eq!(code, Some(0), "{stderr}\n{all:#?}");
    let kinds = kinds_of(
        &lines,
        &[
            "turn_start",
            "turn_end",
            "compaction_start",
            "compaction_end",
            "agent_end",
        ],
    );
    assert_eq!(
        kinds,
        [
            "turn_start",
            "turn_end",
            "compaction_start",
            "compaction_end",
            "turn_start",
            "turn_end",
            "agent_end"
        ]
    );
    let end = of_type(&lines, "compaction_end")[0];
    assert_eq!(
        (&end["reason"], &end["willRetry"], &end["result"]["summary"]),
        (&json!("threshold"), &json!(false), &json!(SUMMARY))
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 4, "{stderr}");
    // The call after the summary sends the summary, then the kept turn with its tool result.
    assert_eq!(
        sent(&requests[3]),
        vec![
            summary_message(SUMMARY),
            ("user".to_owned(), second),
            ("assistant".to_owned(), String::new()),
            ("tool".to_owned(), "hi\n".to_owned()),
        ]
    );
    let types = session_entry_types(dir.path());
    assert_eq!(types.iter().filter(|t| *t == "compaction").count(), 1);
}

#[tokio::test]
async fn tool_results_that_push_the_context_past_the_threshold_are_compacted_before_the_next_call()
{
    // The reply reports little (100 prompt tokens); its bash result adds about 2,000 tokens
    // (8,000 characters), past the 1,000 tokens the window leaves: Pi 1.6 counts the results
    // the turn just made.
    let (dir, server, second) =
        one_exchange_then_a_bash_call("head -c 8000 /dev/zero | tr '\\0' a", 100).await;
    let (code, lines, stderr) = rho(dir.path(), &["--continue", &second]).await;

    assert_eq!(code, Some(0), "{stderr}");
    let kinds = kinds_of(
        &lines,
        &[
            "turn_start",
            "turn_end",
            "compaction_start",
            "compaction_end",
        ],
    );
    assert_eq!(
        kinds,
        [
            "turn_start",
            "turn_end",
            "compaction_start",
            "compaction_end",
            "turn_start",
            "turn_end"
        ]
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 4, "{stderr}");
    assert_eq!(sent(&requests[3])[0], summary_message(SUMMARY));
}
