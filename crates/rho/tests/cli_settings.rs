//! settings.json end to end: `RHO_HOME/settings.json` under the project's `.rho/settings.json`
//! under the flags, seen in what rho sends and how it ends.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Stdio;

use rho_testkit::{MockResponse, MockServer};
use serde_json::{Value, json};

fn answer(text: &str) -> MockResponse {
    let chunk = json!({"id": "c", "model": "m", "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": "stop"}]});
    MockResponse::sse(&[&chunk.to_string(), "[DONE]"])
}

/// RHO_HOME (`home/`, with a models.json provider `mock` of models `a`, `b` and `c`) and a
/// project directory (`project/`), each with an optional settings.json.
fn layout(server: &MockServer, global: Option<Value>, project: Option<Value>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let project_dir = dir.path().join("project/.rho");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&project_dir).unwrap();
    let models = json!({"providers": {"mock": {
        "baseUrl": format!("{}/v1", server.base_url()),
        "api": "openai-completions",
        "apiKey": "sk-test",
        "models": [{"id": "a"}, {"id": "b"}, {"id": "c"}]
    }}});
    std::fs::write(home.join("models.json"), models.to_string()).unwrap();
    if let Some(global) = global {
        std::fs::write(home.join("settings.json"), global.to_string()).unwrap();
    }
    if let Some(project) = project {
        std::fs::write(project_dir.join("settings.json"), project.to_string()).unwrap();
    }
    // The project is trusted in the store, so its settings apply.
    let project = std::fs::canonicalize(dir.path().join("project")).unwrap();
    let trust = json!({ project.to_str().unwrap(): true });
    std::fs::write(home.join("trust.json"), trust.to_string()).unwrap();
    dir
}

async fn run_rho(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_rho"))
        .current_dir(dir.join("project"))
        .env_clear()
        .env("RHO_HOME", dir.join("home"))
        .args(["-p", "--mode", "json"])
        .args(args)
        .arg("hi")
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    (
        output.status.code(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

/// The `model` of every request the server received.
fn models_asked(server: &MockServer) -> Vec<String> {
    server
        .requests()
        .iter()
        .map(|request| {
            request.body_json().unwrap()["model"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

#[tokio::test]
async fn the_default_model_comes_from_the_project_over_the_global_settings_and_the_flag_wins() {
    let server = MockServer::start(vec![answer("1"), answer("2"), answer("3")]).await;
    let global = json!({"defaultProvider": "mock", "defaultModel": "a"});
    let dir = layout(&server, Some(global.clone()), None);
    assert_eq!(run_rho(dir.path(), &[]).await, (Some(0), String::new()));
    let project = json!({"defaultModel": "b"});
    let dir = layout(&server, Some(global.clone()), Some(project));
    assert_eq!(run_rho(dir.path(), &[]).await, (Some(0), String::new()));
    assert_eq!(
        run_rho(dir.path(), &["--model", "mock/c"]).await,
        (Some(0), String::new())
    );
    assert_eq!(models_asked(&server), ["a", "b", "c"]);
}

#[tokio::test]
async fn models_picks_the_first_scoped_model_and_warns_about_patterns_matching_nothing() {
    let server = MockServer::start(vec![answer("1"), answer("2")]).await;
    let dir = layout(&server, None, None);
    let (code, stderr) = run_rho(
        dir.path(),
        &["--models", "nothing-like-it*, mock/c ,mock/a"],
    )
    .await;
    assert_eq!(code, Some(0));
    assert_eq!(
        stderr,
        "Warning: No models match pattern \"nothing-like-it*\"\n"
    );
    // The saved default model wins when it is in scope.
    let global =
        json!({"defaultProvider": "mock", "defaultModel": "a", "enabledModels": ["mock/*"]});
    let dir = layout(&server, Some(global), None);
    assert_eq!(run_rho(dir.path(), &[]).await, (Some(0), String::new()));
    assert_eq!(models_asked(&server), ["c", "a"]);
}

#[tokio::test]
async fn retry_settings_decide_how_often_a_failing_call_is_retried() {
    let failure = || MockResponse::json_error(500, r#"{"error": {"message": "boom"}}"#);
    let server = MockServer::start(vec![failure(), failure(), answer("ok")]).await;
    let global = json!({"defaultProvider": "mock", "defaultModel": "a",
        "retry": {"maxRetries": 0, "baseDelayMs": 1}});
    let dir = layout(
        &server,
        Some(global),
        Some(json!({"retry": {"maxRetries": 1}})),
    );
    let (code, _) = run_rho(dir.path(), &[]).await;
    // One retry (project) at a 1 ms base delay (global), then the run ends in the error.
    assert_eq!(code, Some(1));
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn budget_settings_apply_unless_a_flag_overrides_them() {
    let tool_call = json!({"id": "c", "model": "m", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "nothing", "arguments": "{}"}}]}, "finish_reason": "tool_calls"}]});
    let call = || MockResponse::sse(&[&tool_call.to_string(), "[DONE]"]);
    let server = MockServer::start(vec![call(), call(), answer("done")]).await;
    let global = json!({"defaultProvider": "mock", "defaultModel": "a", "budget": {"maxTurns": 1}});
    let dir = layout(&server, Some(global), None);
    assert_eq!(run_rho(dir.path(), &[]).await.0, Some(3));
    assert_eq!(run_rho(dir.path(), &["--max-turns", "5"]).await.0, Some(0));
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn a_broken_settings_file_exits_2_with_one_line_naming_the_file_and_the_problem() {
    let server = MockServer::start(vec![]).await;
    let dir = layout(&server, None, None);
    let global = dir.path().join("home/settings.json");
    std::fs::write(&global, "{\"defaultModel\": ").unwrap();
    assert_eq!(
        run_rho(dir.path(), &[]).await,
        (
            Some(2),
            format!(
                "Error: settings file {} is not valid JSON: EOF while parsing a value at line 1 column 17\n",
                global.display()
            )
        )
    );
    std::fs::remove_file(&global).unwrap();
    let project = dir.path().join("project/.rho/settings.json");
    std::fs::write(&project, r#"{"permission": "everything"}"#).unwrap();
    assert_eq!(
        run_rho(dir.path(), &[]).await,
        (
            Some(2),
            format!(
                "Error: settings file {}: permission: unknown variant `everything`, expected one of `read-only`, `workspace-write`, `full`\n",
                project.display()
            )
        )
    );
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn stream_idle_timeout_ms_bounds_how_long_a_silent_response_may_stall() {
    let stall = MockResponse::new(200)
        .header("content-type", "text/event-stream")
        .pause(std::time::Duration::from_secs(60));
    let server = MockServer::start(vec![stall]).await;
    let global = json!({"defaultProvider": "mock", "defaultModel": "a",
        "retry": {"enabled": false}, "streamIdleTimeoutMs": 300});
    let dir = layout(&server, Some(global), None);
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_rho"))
        .current_dir(dir.path().join("project"))
        .env_clear()
        .env("RHO_HOME", dir.path().join("home"))
        .args(["-p", "hi"])
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        "No data received for 0.3 seconds\n"
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn default_thinking_level_applies_unless_thinking_is_given() {
    let server = MockServer::start(vec![answer("1"), answer("2")]).await;
    let global =
        json!({"defaultProvider": "mock", "defaultModel": "r", "defaultThinkingLevel": "low"});
    let dir = layout(&server, Some(global), None);
    let models = json!({"providers": {"mock": {
        "baseUrl": format!("{}/v1", server.base_url()),
        "api": "openai-completions",
        "apiKey": "sk-test",
        "models": [{"id": "r", "reasoning": true}]
    }}});
    std::fs::write(dir.path().join("home/models.json"), models.to_string()).unwrap();
    assert_eq!(run_rho(dir.path(), &[]).await.0, Some(0));
    assert_eq!(
        run_rho(dir.path(), &["--thinking", "high"]).await.0,
        Some(0)
    );
    let efforts: Vec<Value> = server
        .requests()
        .iter()
        .map(|request| request.body_json().unwrap()["reasoning_effort"].clone())
        .collect();
    assert_eq!(efforts, [json!("low"), json!("high")]);
}
