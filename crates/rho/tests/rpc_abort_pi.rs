//! An abort while a tool runs, beside Pi 1.6 itself over RPC: both programs get the same model
//! reply (a `bash` call that sleeps) from their own loopback mock, the client aborts once the
//! tool has started, and both print the same events in the same order, with the same aborted
//! tool result, `agent_settled {aborted: true}` and then the `abort` response.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use rho_testkit::{MockResponse, MockServer};
use serde_json::{Value, json};

use crate::peers::pi_16;

fn sleeping_bash_call() -> MockResponse {
    let call = json!({"id": "c", "model": "m", "choices": [{"index": 0, "delta": {"tool_calls": [{
        "index": 0, "id": "call_1", "type": "function",
        "function": {"name": "bash", "arguments": r#"{"command":"sleep 30"}"#}
    }]}, "finish_reason": null}]});
    let finish = json!({"id": "c", "model": "m", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]});
    MockResponse::sse(&[&call.to_string(), &finish.to_string(), "[DONE]"])
}

fn write_models(dir: &Path, server: &MockServer) {
    let models = json!({"providers": {"mock": {
        "baseUrl": format!("{}/v1", server.base_url()),
        "api": "openai-completions",
        "apiKey": "sk-test",
        "compat": {"supportsDeveloperRole": false, "supportsReasoningEffort": false},
        "models": [{"id": "m"}]
    }}});
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("models.json"), models.to_string()).unwrap();
}

/// Prompts, aborts at the tool's start, and returns what a client relies on of every line up
/// to the abort's response: the type, and for a tool's end its result and error flag, for
/// `agent_settled` whether it was aborted, for a response its command and success.
fn prompt_and_abort(mut program: Command) -> Vec<Value> {
    let mut child = program
        .args([
            "--mode",
            "rpc",
            "--no-session",
            "--provider",
            "mock",
            "--model",
            "m",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, r#"{{"id": "p", "type": "prompt", "message": "go"}}"#).unwrap();
    let mut seen = Vec::new();
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let event: Value = serde_json::from_str(&line.unwrap()).unwrap();
        let kind = event["type"].as_str().unwrap_or_default().to_owned();
        if kind == "tool_execution_start" {
            writeln!(stdin, r#"{{"id": "a", "type": "abort"}}"#).unwrap();
        }
        let essentials = match kind.as_str() {
            "message_update" | "tool_execution_update" => continue,
            "tool_execution_end" => json!([kind, event["result"]["content"], event["isError"]]),
            "agent_settled" => json!([kind, event["aborted"]]),
            "response" => json!([kind, event["command"], event["success"]]),
            _ => json!([kind]),
        };
        seen.push(essentials);
        if kind == "response" && event["id"] == "a" {
            break;
        }
    }
    drop(stdin);
    child.kill().ok();
    child.wait().unwrap();
    seen
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_abort_during_a_tool_gives_the_same_events_as_pi_1_6() {
    let Some(pi) = pi_16() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("project");
    std::fs::create_dir_all(&workspace).unwrap();

    let pi_server = MockServer::start(vec![sleeping_bash_call()]).await;
    let pi_home = dir.path().join("pi-agent");
    write_models(&pi_home, &pi_server);
    let mut pi_command = pi.command();
    pi_command
        .current_dir(&workspace)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", dir.path())
        .env("PI_CODING_AGENT_DIR", &pi_home)
        .env("PI_OFFLINE", "1")
        .env("PI_SKIP_VERSION_CHECK", "1");
    let pi_seen = tokio::task::spawn_blocking(move || prompt_and_abort(pi_command))
        .await
        .unwrap();

    let rho_server = MockServer::start(vec![sleeping_bash_call()]).await;
    let rho_home = dir.path().join("rho-home");
    write_models(&rho_home, &rho_server);
    let mut rho_command = Command::new(env!("CARGO_BIN_EXE_rho"));
    rho_command
        .current_dir(&workspace)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", dir.path())
        .env("RHO_HOME", &rho_home);
    let rho_seen = tokio::task::spawn_blocking(move || prompt_and_abort(rho_command))
        .await
        .unwrap();

    assert!(
        pi_seen.contains(&json!(["agent_settled", true])),
        "{pi_seen:#?}"
    );
    assert_eq!(rho_seen, pi_seen);
}
