//! The model process `rho-llama`, which rho starts for local models: its line protocol spoken
//! directly (a call streams its events, a cancel ends a call `aborted`, a bad line is skipped,
//! the end of input ends the process), rho's report when the process cannot start or dies
//! mid-call, and that rho itself does not link llama.cpp.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Output, Stdio};
use std::time::{Duration, Instant};

use rho_ai::{Message, UserContent, UserMessage};
use rho_local::wire::{Call, Reply, Request};
use rho_local::{CONTEXT_WINDOW, local_model};
use serde_json::Value;

/// The installed model, shared with `cli_local` (installing it again is a no-op).
fn installed_model() -> PathBuf {
    let home = Path::new(env!("CARGO_TARGET_TMPDIR")).join("rho-cli-local-home");
    std::fs::create_dir_all(&home).unwrap();
    let install = Command::new(env!("CARGO_BIN_EXE_rho"))
        .env("RHO_HOME", &home)
        .args(["model", "install"])
        .output()
        .unwrap();
    assert_eq!(install.status.code(), Some(0), "{install:?}");
    rho_local::model_path(&home)
}

fn call(id: u64, model: &Path, prompt: &str, max_tokens: u64) -> String {
    let user = UserMessage {
        content: UserContent::Text(prompt.to_owned()),
        timestamp: 0,
    };
    let request = Request::Call(Box::new(Call {
        id,
        model: local_model(model),
        system_prompt: Some("You are a helpful assistant.".to_owned()),
        messages: vec![Message::User(user.into())],
        tools: Vec::new(),
        context_window: CONTEXT_WINDOW,
        max_tokens,
        temperature: None,
    }));
    format!("{}\n", serde_json::to_string(&request).unwrap())
}

struct ModelProcess {
    child: Child,
    replies: BufReader<ChildStdout>,
}

impl ModelProcess {
    fn start() -> ModelProcess {
        let mut child = Command::new(env!("CARGO_BIN_EXE_rho-llama"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let replies = BufReader::new(child.stdout.take().unwrap());
        ModelProcess { child, replies }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.flush().unwrap();
    }

    /// The next reply, as the typed reply and as raw JSON.
    fn reply(&mut self) -> (Reply, Value) {
        let mut line = String::new();
        assert_ne!(
            self.replies.read_line(&mut line).unwrap(),
            0,
            "output ended"
        );
        (
            serde_json::from_str(&line).unwrap(),
            serde_json::from_str(&line).unwrap(),
        )
    }

    /// Closes the input; the process's exit status and stderr.
    fn finish(mut self) -> (Option<i32>, String) {
        drop(self.child.stdin.take());
        let deadline = Instant::now() + Duration::from_secs(60);
        while self.child.try_wait().unwrap().is_none() {
            assert!(
                Instant::now() < deadline,
                "rho-llama did not exit at the end of its input"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let output = self.child.wait_with_output().unwrap();
        (
            output.status.code(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        )
    }
}

#[test]
fn the_model_process_streams_a_call_skips_a_bad_line_and_aborts_a_cancelled_call() {
    let model = installed_model();
    let mut process = ModelProcess::start();

    process.send("this is not a request\n");
    process.send(&call(7, &model, "Say hello.", 24));
    let mut types = Vec::new();
    let last = loop {
        let (reply, raw) = process.reply();
        assert_eq!(reply.id, 7);
        types.push(raw["event"]["type"].as_str().unwrap().to_owned());
        if reply.event.terminal_message().is_some() {
            break raw;
        }
    };
    assert_eq!(types.first().map(String::as_str), Some("start"));
    assert_eq!(types.get(1).map(String::as_str), Some("text_start"));
    assert!(types.contains(&"text_delta".to_owned()), "{types:?}");
    assert_eq!(types.last().map(String::as_str), Some("done"));
    let message = &last["event"]["message"];
    assert!(["stop", "length"].contains(&message["stopReason"].as_str().unwrap()));
    assert!(message["usage"]["input"].as_u64().unwrap() > 0);
    assert!(!message["content"][0]["text"].as_str().unwrap().is_empty());

    // A long answer, cancelled once it streams.
    process.send(&call(
        8,
        &model,
        "Count from 1 to 300, one number per line.",
        400,
    ));
    loop {
        let (reply, raw) = process.reply();
        assert_eq!(reply.id, 8);
        if raw["event"]["type"] == "text_delta" {
            break;
        }
    }
    process.send(&format!(
        "{}\n",
        serde_json::to_string(&Request::Cancel { id: 8 }).unwrap()
    ));
    let terminal = loop {
        let (reply, raw) = process.reply();
        if reply.event.terminal_message().is_some() {
            break raw;
        }
    };
    assert_eq!(terminal["event"]["type"], "error");
    assert_eq!(terminal["event"]["reason"], "aborted");
    assert_eq!(
        terminal["event"]["error"]["errorMessage"],
        "Request was aborted"
    );
    assert_eq!(terminal["errorInfo"]["kind"], "aborted");

    let (status, stderr) = process.finish();
    assert_eq!(status, Some(0), "{stderr}");
    assert!(
        stderr.contains("rho-llama: skipped a line that is not a request"),
        "{stderr}"
    );
}

#[test]
fn a_call_on_a_missing_model_file_ends_in_one_classified_error() {
    let mut process = ModelProcess::start();
    process.send(&call(1, Path::new("/nonexistent/model.gguf"), "hi", 8));
    let (reply, raw) = process.reply();
    assert_eq!(reply.id, 1);
    assert_eq!(raw["event"]["type"], "error");
    assert_eq!(raw["errorInfo"]["kind"], "not_found");
    assert_eq!(process.finish().0, Some(0));
}

#[test]
fn arguments_are_refused() {
    let output = Command::new(env!("CARGO_BIN_EXE_rho-llama"))
        .arg("--help")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("rho --model local/<file>"));
}

/// rho with `RHO_LLAMA` naming `runner`, on a model file with a valid GGUF header.
fn rho_with_runner(runner: &Path) -> Output {
    let home = tempfile::tempdir().unwrap();
    let model = home.path().join("tiny.gguf");
    let mut header = b"GGUF".to_vec();
    header.extend(3u32.to_le_bytes());
    header.extend([0u8; 16]);
    std::fs::write(&model, header).unwrap();
    Command::new(env!("CARGO_BIN_EXE_rho"))
        .current_dir(home.path())
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("RHO_HOME", home.path())
        .env("HOME", home.path())
        .env("RHO_LLAMA", runner)
        .args(["--no-session", "--model"])
        .arg(format!("local/{}", model.display()))
        .args(["-p", "hi"])
        .output()
        .unwrap()
}

#[test]
fn a_model_process_that_dies_ends_the_run_with_an_error_naming_it_and_its_last_words() {
    let dir = tempfile::tempdir().unwrap();
    let runner = dir.path().join("dying-llama");
    std::fs::write(
        &runner,
        "#!/bin/sh\nread line\necho 'GGML_ASSERT(n_tokens > 0) failed' >&2\nexit 134\n",
    )
    .unwrap();
    std::fs::set_permissions(&runner, std::fs::Permissions::from_mode(0o755)).unwrap();
    let output = rho_with_runner(&runner);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let expected = format!(
        "the local model process {} ended (exit status: 134): GGML_ASSERT(n_tokens > 0) failed",
        runner.display()
    );
    assert!(stderr.contains(&expected), "{stderr}");
}

#[test]
fn a_model_process_that_cannot_start_is_named() {
    let output = rho_with_runner(Path::new("/nonexistent/rho-llama"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("cannot start the local model process /nonexistent/rho-llama"),
        "{stderr}"
    );
}

#[test]
fn rho_itself_does_not_link_llama_cpp() {
    let contains_ggml = |path: &str| {
        let bytes = std::fs::read(path).unwrap();
        bytes.windows(5).any(|w| w == b"ggml_")
    };
    assert!(contains_ggml(env!("CARGO_BIN_EXE_rho-llama")));
    assert!(!contains_ggml(env!("CARGO_BIN_EXE_rho")));
}
