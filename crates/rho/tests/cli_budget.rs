//! Budgets on the command line: a run stopped by `--max-turns`, `--max-tokens` or `--max-cost`
//! exits 3 and says `budget` in its last line; a bad budget value is a failure before the model
//! (exit 2).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::{Output, Stdio};

use serde_json::{Value, json};

fn run(dir: &std::path::Path, args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_rho"))
        .current_dir(dir)
        .env_clear()
        .env("RHO_HOME", dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn max_turns_stops_a_model_that_keeps_calling_tools_with_exit_3() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "milk\n").unwrap();
    let script = json!({"turns": [], "fallback": [
        {"type": "tool_call", "name": "read", "arguments": {"path": "notes.txt"}}
    ]});
    std::fs::write(dir.path().join("loop.json"), script.to_string()).unwrap();
    let output = run(
        dir.path(),
        &[
            "--mode",
            "json",
            "--faux-script",
            "loop.json",
            "--max-turns",
            "1",
            "go",
        ],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let last = lines.last().unwrap();
    assert_eq!(
        (&last["type"], &last["reason"], &last["turns"]),
        (&json!("agent_settled"), &json!("budget"), &json!(1))
    );
    let tool_ends = lines
        .iter()
        .filter(|l| l["type"] == "tool_execution_end")
        .count();
    assert_eq!(tool_ends, 1, "the last allowed turn's tools still ran");
    let turn_starts = lines.iter().filter(|l| l["type"] == "turn_start").count();
    assert_eq!(turn_starts, 1, "no second model call");
}

#[test]
fn a_negative_max_cost_is_a_failure_before_the_model() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("s.json"),
        r#"{"turns": [[{"type": "text", "text": "hi"}]]}"#,
    )
    .unwrap();
    let output = run(
        dir.path(),
        &["-p", "--faux-script", "s.json", "--max-cost=-1", "go"],
    );
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr)
            .trim_end()
            .lines()
            .count(),
        1,
        "one clear line"
    );
    assert!(output.stdout.is_empty());
}

#[test]
fn max_tokens_stops_the_prompt_once_its_calls_used_that_many_tokens_with_exit_3() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "milk\n").unwrap();
    // The faux model counts a quarter token per character of the context it is sent: the
    // first call alone uses far more than 10 tokens.
    let script = json!({"turns": [], "fallback": [
        {"type": "tool_call", "name": "read", "arguments": {"path": "notes.txt"}}
    ]});
    std::fs::write(dir.path().join("loop.json"), script.to_string()).unwrap();
    let output = run(
        dir.path(),
        &[
            "--mode",
            "json",
            "--faux-script",
            "loop.json",
            "--max-tokens",
            "10",
            "go",
        ],
    );
    assert_eq!(output.status.code(), Some(3));
    let stdout = String::from_utf8(output.stdout).unwrap();
    let last: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(
        (&last["reason"], &last["turns"]),
        (&json!("budget"), &json!(1))
    );
    assert!(last["usage"]["totalTokens"].as_u64().unwrap() >= 10);
}

#[tokio::test]
async fn max_cost_stops_the_prompt_once_its_calls_cost_that_much_with_exit_3() {
    use rho_testkit::{MockResponse, MockServer};
    let chunk = |delta: Value, finish: Option<&str>| {
        json!({"id": "c", "model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
            .to_string()
    };
    let call = json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function",
        "function": {"name": "read", "arguments": "{\"path\":\"notes.txt\"}"}}]});
    let usage = json!({"id": "c", "model": "m", "choices": [],
        "usage": {"prompt_tokens": 1000, "completion_tokens": 10, "total_tokens": 1010}})
    .to_string();
    let reply = || {
        MockResponse::sse(&[
            &chunk(call.clone(), None),
            &chunk(json!({}), Some("tool_calls")),
            &usage,
            "[DONE]",
        ])
    };
    let server = MockServer::start(vec![reply(), reply()]).await;
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "milk\n").unwrap();
    // $1,000 per million input tokens: the first call's 1,000 tokens cost $1.
    let models = json!({"providers": {"mock": {
        "baseUrl": format!("{}/v1", server.base_url()),
        "api": "openai-completions",
        "apiKey": "sk-test",
        "models": [{"id": "m", "cost": {"input": 1000, "output": 0, "cacheRead": 0, "cacheWrite": 0}}]
    }}});
    std::fs::write(dir.path().join("models.json"), models.to_string()).unwrap();
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_rho"))
        .current_dir(dir.path())
        .env_clear()
        .env("RHO_HOME", dir.path())
        .args([
            "--mode",
            "json",
            "--provider",
            "mock",
            "--model",
            "m",
            "--max-cost",
            "0.5",
            "go",
        ])
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    let last: Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(
        (&last["reason"], &last["turns"]),
        (&json!("budget"), &json!(1))
    );
    assert_eq!(last["usage"]["cost"]["total"].as_f64(), Some(1.0));
    assert_eq!(server.requests().len(), 1);
}
