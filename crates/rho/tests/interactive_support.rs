//! What the `tmux` tests against the loopback mock provider share: the mock's streamed answers,
//! the mock server on a runtime of its own, a `RHO_HOME` naming it, starting and leaving `rho` in
//! the pane, and reading request bodies and session files back.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::Instant;

use rho_testkit::{MockResponse, MockServer};
use serde_json::{Value, json};

use crate::interactive_tmux::{DEADLINE, Tmux, last_line};

/// One streamed Chat Completions chunk carrying `delta`.
pub(crate) fn chunk(delta: Value, finish: Option<&str>) -> String {
    json!({"id": "c", "model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
        .to_string()
}

/// A streamed answer of `text`.
pub(crate) fn answer(text: &str) -> MockResponse {
    MockResponse::sse(&[&chunk(json!({"content": text}), Some("stop")), "[DONE]"])
}

/// A streamed answer calling tool `name` with `arguments`, as call `id`.
pub(crate) fn tool_call(id: &str, name: &str, arguments: Value) -> MockResponse {
    let call = json!({"tool_calls": [{"index": 0, "id": id, "type": "function",
        "function": {"name": name, "arguments": arguments.to_string()}}]});
    MockResponse::sse(&[
        &chunk(call, None),
        &chunk(json!({}), Some("tool_calls")),
        "[DONE]",
    ])
}

/// The mock server on a runtime of its own, so the test's blocking polls never stall it.
pub(crate) struct Mock {
    pub(crate) server: MockServer,
    _runtime: tokio::runtime::Runtime,
}

impl Mock {
    /// A server answering `script` in order.
    pub(crate) fn start(script: Vec<MockResponse>) -> Mock {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let server = runtime.block_on(MockServer::start(script));
        Mock {
            server,
            _runtime: runtime,
        }
    }

    /// The bodies of the requests so far.
    pub(crate) fn bodies(&self) -> Vec<Value> {
        self.server
            .requests()
            .iter()
            .map(|r| r.body_json().unwrap())
            .collect()
    }

    /// Waits until `n` requests arrived (the model's answer may still be streaming).
    pub(crate) fn wait_requests(&self, n: usize) -> Vec<Value> {
        let start = Instant::now();
        while self.server.requests().len() < n {
            assert!(start.elapsed() < DEADLINE, "only {:?}", self.bodies());
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        self.bodies()
    }
}

/// `RHO_HOME` (the tmux shell's `HOME` and cwd) with a `mock` provider serving `models` (a JSON
/// array), and `rules` as the project's `.rho/rules.toml`.
pub(crate) fn project(mock: &Mock, models: Value, rules: Option<&str>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let providers = json!({"providers": {"mock": {
        "baseUrl": format!("{}/v1", mock.server.base_url()),
        "api": "openai-completions",
        "apiKey": "sk-test",
        "models": models
    }}});
    std::fs::write(dir.path().join("models.json"), providers.to_string()).unwrap();
    if let Some(rules) = rules {
        std::fs::create_dir_all(dir.path().join(".rho")).unwrap();
        std::fs::write(dir.path().join(".rho/rules.toml"), rules).unwrap();
        // The project is trusted (in RHO_HOME's store), so its rules apply.
        let project = std::fs::canonicalize(dir.path()).unwrap();
        let trust = json!({ project.to_str().unwrap(): true });
        std::fs::write(dir.path().join("trust.json"), trust.to_string()).unwrap();
    }
    dir
}

/// Runs `rho <args>` at the shell prompt of `tmux`.
pub(crate) fn launch(tmux: &Tmux, args: &str) {
    wait_shell(tmux, "the shell prompt");
    let rho = env!("CARGO_BIN_EXE_rho");
    tmux.type_text(&format!("{rho} {args}"));
    tmux.keys(&["Enter"]);
}

/// Starts `rho --model mock/a <flags>` in the shell of `tmux`.
pub(crate) fn start_rho(tmux: &Tmux, flags: &str) {
    launch(tmux, &format!("--model mock/a {flags}"));
}

/// A pane in `dir` running `rho --model mock/a <flags>`, its footer drawn.
pub(crate) fn open_rho(dir: &Path, flags: &str) -> Tmux {
    let tmux = Tmux::start(dir);
    start_rho(&tmux, flags);
    tmux.wait_for("the footer", |s| s.contains("ctx ?/"));
    tmux
}

/// Waits for the shell's prompt on the last line (rho not running).
pub(crate) fn wait_shell(tmux: &Tmux, what: &str) -> String {
    tmux.wait_for(what, |s| last_line(s).starts_with("PROMPT$"))
}

/// Leaves rho with Ctrl+C twice.
pub(crate) fn quit(tmux: &Tmux) {
    tmux.keys(&["C-c", "C-c"]);
    wait_shell(tmux, "the shell");
}

/// Types `text` into the editor and sends it.
pub(crate) fn send(tmux: &Tmux, text: &str) {
    tmux.type_text(text);
    tmux.keys(&["Enter"]);
}

/// One exchange: `prompt` sent, `reply` on screen.
pub(crate) fn exchange(tmux: &Tmux, prompt: &str, reply: &str) {
    send(tmux, prompt);
    tmux.wait_for(reply, |s| s.contains(reply));
}

/// A message's text: a string, or its blocks' texts joined.
pub(crate) fn message_text(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    }
}

/// The text of each message in a request, as `role: text` (blocks joined).
pub(crate) fn transcript(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] != "system")
        .map(|m| {
            let text = message_text(&m["content"]);
            format!("{}: {text}", m["role"].as_str().unwrap_or(""))
        })
        .collect()
}

/// The texts of a request's user messages.
pub(crate) fn user_texts(body: &Value) -> Vec<String> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .map(|m| message_text(&m["content"]))
        .collect()
}

/// Every `.jsonl` file under `dir`, sorted by path (session files start with their time).
pub(crate) fn jsonl_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "jsonl") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The only session file under `dir`.
pub(crate) fn only_jsonl(dir: &Path) -> PathBuf {
    let mut found = jsonl_files(dir);
    assert_eq!(found.len(), 1, "{found:?}");
    found.remove(0)
}

/// A session file's entries, one JSON value a line.
pub(crate) fn entries(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .collect()
}
