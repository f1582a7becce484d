//! Session files shared with the real Pi (1.6.0, and 0.73.1, installed by npm): a session rho
//! wrote resumes in `pi --session`, a session Pi wrote resumes in `rho --session`, and each sends
//! the model the earlier messages (asserted on the loopback mock's request bodies). Pi 1.6 and
//! rho each declare their own system prompt in `system` messages; what they send beside the
//! conversation is their own business, so only the user and assistant turns are compared.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};

use rho_testkit::MockServer;
use serde_json::{Value, json};

use crate::cli_sessions::{answer, layout, rho, session_files, user_message};
use crate::peers::{Pi, pi_16, pi_073};

/// Pi's agent dir beside rho's home, with the same models.json and settings.json.
fn pi_agent_dir(dir: &Path) -> PathBuf {
    let agent = dir.join("pi-agent");
    std::fs::create_dir_all(&agent).unwrap();
    for name in ["models.json", "settings.json"] {
        std::fs::copy(dir.join("home").join(name), agent.join(name)).unwrap();
    }
    agent
}

/// `pi -p <args> <prompt>` in `dir/project`, offline, with its agent dir in `dir/pi-agent`.
fn pi(pi: &Pi, dir: &Path, args: &[&str], prompt: &str) -> Output {
    let output = pi
        .command()
        .current_dir(dir.join("project"))
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", dir)
        .env("PI_CODING_AGENT_DIR", dir.join("pi-agent"))
        .env("PI_OFFLINE", "1")
        .env("PI_SKIP_VERSION_CHECK", "1")
        .env("PI_TELEMETRY", "0")
        .arg("-p")
        .args(args)
        .arg(prompt)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "pi {} failed: {}",
        pi.version,
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn rho_p(dir: &Path, args: &[&str], prompt: &str) {
    let output = rho(dir).arg("-p").args(args).arg(prompt).output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "rho failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The user and assistant messages of request `index` (each program sends its own system
/// prompt first, and Pi 1.6 a patch of it where the other program's prompt differs).
fn conversation_sent(server: &MockServer, index: usize) -> Value {
    let body = server.requests()[index].body_json().unwrap();
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages[0]["role"], "system");
    Value::Array(
        messages
            .iter()
            .filter(|m| m["role"] == "user" || m["role"] == "assistant")
            .cloned()
            .collect(),
    )
}

/// Alternating user and assistant texts as chat-completions messages.
fn chat(texts: &[&str]) -> Value {
    Value::Array(
        texts
            .iter()
            .enumerate()
            .map(|(i, text)| match i % 2 {
                0 => user_message(text),
                _ => json!({"role": "assistant", "content": text}),
            })
            .collect(),
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_rho_wrote_resumes_in_pi_1_6_and_then_again_in_rho() {
    if let Some(pi) = pi_16() {
        rho_then_pi(&pi).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_rho_wrote_resumes_in_pi_0_73_and_then_again_in_rho() {
    if let Some(pi) = pi_073() {
        rho_then_pi(&pi).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_pi_1_6_wrote_resumes_in_rho_and_then_again_in_pi() {
    if let Some(pi) = pi_16() {
        pi_then_rho(&pi).await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_pi_0_73_wrote_resumes_in_rho_and_then_again_in_pi() {
    if let Some(pi) = pi_073() {
        pi_then_rho(&pi).await;
    }
}

async fn rho_then_pi(pi_bin: &Pi) {
    let server = MockServer::start(vec![answer("One."), answer("Two."), answer("Three.")]).await;
    let dir = layout(&server);
    pi_agent_dir(dir.path());
    rho_p(dir.path(), &[], "first");
    let file = session_files(dir.path())[0].clone();

    pi(
        pi_bin,
        dir.path(),
        &["--session", file.to_str().unwrap()],
        "second",
    );
    assert_eq!(
        conversation_sent(&server, 1),
        chat(&["first", "One.", "second"])
    );
    rho_p(dir.path(), &["--session", file.to_str().unwrap()], "third");
    assert_eq!(
        conversation_sent(&server, 2),
        chat(&["first", "One.", "second", "Two.", "third"])
    );
}

async fn pi_then_rho(pi_bin: &Pi) {
    let server = MockServer::start(vec![answer("One."), answer("Two."), answer("Three.")]).await;
    let dir = layout(&server);
    let agent = pi_agent_dir(dir.path());
    pi(pi_bin, dir.path(), &[], "first");
    let project = dir.path().join("project").to_string_lossy().into_owned();
    let pi_sessions = agent
        .join("sessions")
        .join(rho_session::encode_cwd(&project));
    let file = std::fs::read_dir(&pi_sessions)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();

    rho_p(dir.path(), &["--session", file.to_str().unwrap()], "second");
    assert_eq!(
        conversation_sent(&server, 1),
        chat(&["first", "One.", "second"])
    );
    if pi_bin.version == "0.73.1" {
        // As Pi 1.6 resumes a 0.73.1 file (session-0.73.1-file-after-1.6.0-resume.jsonl): the
        // system message goes after the old history, at the new prompt.
        let messages: Vec<String> = std::fs::read_to_string(&file)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str::<Value>(line).unwrap())
            .filter(|entry| entry["type"] == "message")
            .map(|entry| entry["message"]["role"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(
            messages,
            ["user", "assistant", "system", "user", "assistant"]
        );
    }
    pi(
        pi_bin,
        dir.path(),
        &["--session", file.to_str().unwrap()],
        "third",
    );
    assert_eq!(
        conversation_sent(&server, 2),
        chat(&["first", "One.", "second", "Two.", "third"])
    );
}
