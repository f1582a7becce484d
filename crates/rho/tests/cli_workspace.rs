//! The workspace end to end: the system prompt (context files, skills) in the request the model
//! receives, `/skill:` expansion of a prompt, and the gate refusing a path outside the project.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Stdio;

use rho_testkit::{MockResponse, MockServer};
use serde_json::{Value, json};

fn answer(text: &str) -> MockResponse {
    let chunk = json!({"id": "c", "model": "m", "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": "stop"}]});
    MockResponse::sse(&[&chunk.to_string(), "[DONE]"])
}

/// RHO_HOME (`home/`, with a models.json provider `mock`) and a project (`project/`) with an
/// AGENTS.md and a project skill `deploy`.
fn layout(server: &MockServer) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let skill = dir.path().join("project/.rho/skills/deploy");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&skill).unwrap();
    let models = json!({"providers": {"mock": {
        "baseUrl": format!("{}/v1", server.base_url()),
        "api": "openai-completions",
        "apiKey": "sk-test",
        "models": [{"id": "a"}]
    }}});
    std::fs::write(home.join("models.json"), models.to_string()).unwrap();
    std::fs::write(
        dir.path().join("project/AGENTS.md"),
        "Always run the tests.\n",
    )
    .unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: deploy\ndescription: Ships the build.\n---\nRun make deploy.\n",
    )
    .unwrap();
    dir
}

async fn run_rho(dir: &Path, args: &[&str]) -> std::process::Output {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_rho"))
        .current_dir(dir.join("project"))
        .env_clear()
        .env("RHO_HOME", dir.join("home"))
        .args(["-p", "--approve", "--model", "mock/a"])
        .args(args)
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap()
}

/// The request's messages: the system prompt and the user's text.
fn system_and_user(server: &MockServer) -> (String, String) {
    let body: Value = server.requests()[0].body_json().unwrap();
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages[0]["role"], "system");
    let user = messages.last().unwrap();
    let text = match &user["content"] {
        Value::String(text) => text.clone(),
        blocks => blocks[0]["text"].as_str().unwrap().to_owned(),
    };
    (messages[0]["content"].as_str().unwrap().to_owned(), text)
}

#[tokio::test]
async fn the_model_receives_rhos_system_prompt_with_context_files_and_skills() {
    let server = MockServer::start(vec![answer("ok")]).await;
    let dir = layout(&server);
    let output = run_rho(dir.path(), &["hi"]).await;
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let (system, user) = system_and_user(&server);
    let project = dir.path().join("project").canonicalize().unwrap();
    assert!(
        system
            .starts_with("You are a coding assistant running inside rho, a coding agent harness."),
        "{system}"
    );
    assert!(!system.contains("<docs>"), "{system}");
    assert!(
        system.contains(&format!(
            "<project_context>\nProject-specific instructions and guidelines:\n\n<project_instructions path=\"{}\">\nAlways run the tests.\n\n</project_instructions>\n</project_context>",
            project.join("AGENTS.md").display()
        )),
        "{system}"
    );
    assert!(
        system.ends_with(&format!("<cwd>\n{}\n</cwd>", project.display())),
        "{system}"
    );
    assert!(system.contains("<name>deploy</name>"), "{system}");
    assert!(
        system.contains("<description>Ships the build.</description>"),
        "{system}"
    );
    assert_eq!(user, "hi");
}

#[tokio::test]
async fn a_skill_command_expands_before_the_model_sees_it_and_no_context_files_drops_agents_md() {
    let server = MockServer::start(vec![answer("ok")]).await;
    let dir = layout(&server);
    let output = run_rho(dir.path(), &["-nc", "/skill:deploy now"]).await;
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let (system, user) = system_and_user(&server);
    assert!(!system.contains("Always run the tests."), "{system}");
    assert!(user.starts_with("<skill name=\"deploy\""), "{user}");
    assert!(user.contains("Run make deploy."), "{user}");
    assert!(user.ends_with("</skill>\n\nnow"), "{user}");
}

#[tokio::test]
async fn the_gate_refuses_a_read_outside_the_project_and_the_run_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "classified").unwrap();
    let target = outside.path().join("secret.txt");
    let script = json!({"turns": [
        [{"type": "tool_call", "name": "read", "arguments": {"path": target}}],
        [{"type": "text", "text": "Could not read it."}]
    ]});
    let script_path = dir.path().join("script.json");
    std::fs::write(&script_path, script.to_string()).unwrap();
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_rho"))
        .current_dir(dir.path())
        .env_clear()
        .env("RHO_HOME", dir.path().join("home"))
        .args(["--mode", "json", "--faux-script"])
        .arg(&script_path)
        .arg("read it")
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    let result: Value = stdout
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .find(|event| event["type"] == "message_end" && event["message"]["role"] == "toolResult")
        .unwrap();
    let message = &result["message"];
    assert_eq!(message["isError"], true);
    assert!(message.get("durationMs").is_none(), "{message}");
    let text = message["content"][0]["text"].as_str().unwrap();
    let root = dir.path().canonicalize().unwrap();
    assert!(
        text.starts_with(&format!(
            "Path {} is outside the allowed directories: {}",
            target.canonicalize().unwrap().display(),
            root.display()
        )),
        "{text}"
    );
    assert!(!stdout.contains("classified"));
    assert!(stdout.lines().last().unwrap().contains("\"agent_settled\""));
}
