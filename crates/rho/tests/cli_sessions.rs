//! Sessions on disk end to end: a run writes `RHO_HOME/sessions/<cwd>/…jsonl`, and
//! `--continue`, `--session`, `--fork` and `--resume` bring it back — checked in what the model
//! receives (the loopback mock's request bodies) and in the files.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use rho_testkit::{MockResponse, MockServer};
use serde_json::{Value, json};

/// One streamed chat-completions answer.
pub(crate) fn answer(text: &str) -> MockResponse {
    let chunk = json!({"id": "c", "model": "m", "choices": [{"index": 0, "delta": {"content": text}, "finish_reason": "stop"}]});
    MockResponse::sse(&[&chunk.to_string(), "[DONE]"])
}

/// `home/` (RHO_HOME: a models.json provider `mock` with model `a`, the default in
/// settings.json) and `project/`, the cwd of every run.
pub(crate) fn layout(server: &MockServer) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(dir.path().join("project")).unwrap();
    let models = json!({"providers": {"mock": {
        "baseUrl": format!("{}/v1", server.base_url()),
        "api": "openai-completions",
        "apiKey": "sk-test",
        "models": [{"id": "a"}]
    }}});
    std::fs::write(home.join("models.json"), models.to_string()).unwrap();
    let settings = json!({"defaultProvider": "mock", "defaultModel": "a"});
    std::fs::write(home.join("settings.json"), settings.to_string()).unwrap();
    dir
}

/// rho in `dir/project` with `RHO_HOME=dir/home` and nothing else from the environment.
pub(crate) fn rho(dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_rho"));
    command
        .current_dir(dir.join("project"))
        .env_clear()
        .env("RHO_HOME", dir.join("home"))
        .stdin(Stdio::null());
    command
}

/// `rho -p <args> <prompt>`, run to the end.
fn run(dir: &Path, args: &[&str], prompt: &str) -> Output {
    rho(dir).arg("-p").args(args).arg(prompt).output().unwrap()
}

fn assert_ok(output: &Output) {
    assert_eq!(
        output.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// The session files of the project directory, oldest first (names start with the time).
pub(crate) fn session_files(dir: &Path) -> Vec<PathBuf> {
    let project = dir.join("project").to_string_lossy().into_owned();
    let sessions = dir
        .join("home/sessions")
        .join(rho_session::encode_cwd(&project));
    // Session files only: a kill while a file is first written may leave its hidden temporary.
    let mut files: Vec<PathBuf> = std::fs::read_dir(sessions)
        .map(|read| read.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|x| x == "jsonl"));
    files.sort();
    files
}

/// Every line of a session file, parsed.
pub(crate) fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// The `message` entries' messages of a session file, as `role: text` lines.
pub(crate) fn transcript(path: &Path) -> Vec<String> {
    lines(path)
        .iter()
        .filter(|l| l["type"] == "message")
        .map(|l| {
            let m = &l["message"];
            format!(
                "{}: {}",
                m["role"].as_str().unwrap(),
                m["content"][0]["text"].as_str().unwrap_or("")
            )
        })
        .collect()
}

fn request_messages(server: &MockServer, index: usize) -> Value {
    server.requests()[index].body_json().unwrap()["messages"].clone()
}

/// A prompt as chat completions carries it.
pub(crate) fn user_message(text: &str) -> Value {
    json!({"role": "user", "content": [{"type": "text", "text": text}]})
}

/// What the model receives after one exchange and a new question, behind the system prompt
/// of `first_request`.
fn conversation(system: &Value, turns: &[(&str, &str)], question: &str) -> Value {
    let mut messages = vec![system.clone()];
    for (user, assistant) in turns {
        messages.push(user_message(user));
        messages.push(json!({"role": "assistant", "content": assistant}));
    }
    messages.push(user_message(question));
    Value::Array(messages)
}

#[tokio::test(flavor = "multi_thread")]
async fn continue_sends_the_first_exchange_with_the_second_question_and_appends_to_the_same_file() {
    let server = MockServer::start(vec![answer("Four."), answer("Eight.")]).await;
    let dir = layout(&server);
    assert_ok(&run(dir.path(), &[], "What is 2+2?"));
    assert_ok(&run(dir.path(), &["--continue"], "And doubled?"));

    let system = request_messages(&server, 0)[0].clone();
    assert_eq!(system["role"], "system");
    assert_eq!(
        request_messages(&server, 1),
        conversation(&system, &[("What is 2+2?", "Four.")], "And doubled?")
    );
    let files = session_files(dir.path());
    assert_eq!(files.len(), 1);
    let types: Vec<Value> = lines(&files[0]).iter().map(|l| l["type"].clone()).collect();
    assert_eq!(
        types,
        json!([
            "session",
            "model_change",
            "thinking_level_change",
            "message",
            "message",
            "message",
            "message",
            "message"
        ])
        .as_array()
        .unwrap()
        .clone()
    );
    assert_eq!(
        transcript(&files[0]),
        [
            "system: ",
            "user: What is 2+2?",
            "assistant: Four.",
            "user: And doubled?",
            "assistant: Eight."
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn continue_without_a_session_starts_a_new_one() {
    let server = MockServer::start(vec![answer("Hi.")]).await;
    let dir = layout(&server);
    assert_ok(&run(dir.path(), &["-c"], "Hello"));
    let system = request_messages(&server, 0)[0].clone();
    assert_eq!(
        request_messages(&server, 0),
        conversation(&system, &[], "Hello")
    );
    assert_eq!(session_files(dir.path()).len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn session_with_an_id_prefix_resumes_that_session_not_the_newest() {
    let server = MockServer::start(vec![answer("One."), answer("Two."), answer("Three.")]).await;
    let dir = layout(&server);
    assert_ok(&run(dir.path(), &[], "first"));
    assert_ok(&run(dir.path(), &[], "second"));
    let files = session_files(dir.path());
    let first_id = lines(&files[0])[0]["id"].as_str().unwrap().to_owned();
    // UUIDv7s made a moment apart share their first characters (the time); this prefix
    // reaches into the random part.
    assert_ok(&run(dir.path(), &["--session", &first_id[..24]], "again"));

    let system = request_messages(&server, 0)[0].clone();
    assert_eq!(
        request_messages(&server, 2),
        conversation(&system, &[("first", "One.")], "again")
    );
    assert_eq!(
        transcript(&files[0]),
        [
            "system: ",
            "user: first",
            "assistant: One.",
            "user: again",
            "assistant: Three."
        ]
    );
    assert_eq!(session_files(dir.path()).len(), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn fork_copies_a_session_into_a_new_file_that_names_its_parent() {
    let server = MockServer::start(vec![answer("One."), answer("Two.")]).await;
    let dir = layout(&server);
    assert_ok(&run(dir.path(), &[], "first"));
    let source = session_files(dir.path())[0].clone();
    let before = std::fs::read_to_string(&source).unwrap();
    assert_ok(&run(
        dir.path(),
        &["--fork", source.to_str().unwrap()],
        "branch",
    ));

    let system = request_messages(&server, 0)[0].clone();
    assert_eq!(
        request_messages(&server, 1),
        conversation(&system, &[("first", "One.")], "branch")
    );
    assert_eq!(
        std::fs::read_to_string(&source).unwrap(),
        before,
        "the source is untouched"
    );
    let files = session_files(dir.path());
    assert_eq!(files.len(), 2);
    let fork = files.iter().find(|f| **f != source).unwrap();
    let header = &lines(fork)[0];
    assert_eq!(header["parentSession"], source.to_str().unwrap());
    assert_ne!(header["id"], lines(&source)[0]["id"]);
    assert_eq!(
        transcript(fork),
        [
            "system: ",
            "user: first",
            "assistant: One.",
            "user: branch",
            "assistant: Two."
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn resume_lists_the_sessions_newest_first_and_exits_0() {
    let server = MockServer::start(vec![answer("One."), answer("Two."), answer("Three.")]).await;
    let dir = layout(&server);
    assert_ok(&run(dir.path(), &[], "first\nquestion"));
    assert_ok(&run(dir.path(), &[], "second"));
    assert_ok(&run(dir.path(), &["-c"], "third"));
    let output = run(dir.path(), &["--resume"], "ignored");
    assert_ok(&output);
    let files = session_files(dir.path());
    let row = |path: &Path, count: usize, first: &str| {
        let info = rho_session::session_info(path).unwrap();
        format!(
            "{:<36}  {:<24}  {count:>8}  {first}\n",
            info.id,
            rho_session::time::iso_timestamp(info.modified)
        )
    };
    let expected = format!(
        "{:<36}  {:<24}  {:>8}  FIRST MESSAGE\n{}{}",
        "ID",
        "DATE",
        "MESSAGES",
        // The system message that opens each session counts, as in Pi 1.6.
        row(&files[1], 5, "second"),
        row(&files[0], 3, "first question"),
    );
    assert_eq!(String::from_utf8(output.stdout).unwrap(), expected);
    assert_eq!(server.requests().len(), 3, "--resume calls no model");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_that_is_not_found_exits_2_with_one_line_before_any_model_call() {
    let server = MockServer::start(vec![]).await;
    let dir = layout(&server);
    let output = run(dir.path(), &["--session", "0123abcd"], "hi");
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        "Error: No session found matching '0123abcd'\n"
    );
    assert!(output.stdout.is_empty());
    assert!(session_files(dir.path()).is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn no_session_writes_nothing_and_json_mode_announces_the_files_header() {
    let server = MockServer::start(vec![answer("One."), answer("Two.")]).await;
    let dir = layout(&server);
    assert_ok(&run(dir.path(), &["--no-session"], "hi"));
    assert!(!dir.path().join("home/sessions").exists());

    let output = rho(dir.path())
        .args(["--mode", "json", "hi"])
        .output()
        .unwrap();
    assert_ok(&output);
    let first_line: Value = serde_json::from_str(
        String::from_utf8(output.stdout)
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    let file = &session_files(dir.path())[0];
    assert_eq!(first_line, lines(file)[0]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_torn_last_line_is_reported_once_and_cut_off_before_the_session_continues() {
    let server = MockServer::start(vec![answer("One."), answer("Two.")]).await;
    let dir = layout(&server);
    assert_ok(&run(dir.path(), &[], "first"));
    let file = session_files(dir.path())[0].clone();
    let intact = std::fs::read_to_string(&file).unwrap();
    let line_count = intact.lines().count();
    let torn = r#"{"type":"message","id":"0badf00d","parentId":"#;
    std::fs::write(&file, format!("{intact}{torn}")).unwrap();

    let output = run(dir.path(), &["-c"], "second");
    assert_ok(&output);
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        format!(
            "Warning: {}: line {} was cut off by an interrupted write; removed its {} bytes\n",
            file.display(),
            line_count + 1,
            torn.len()
        )
    );
    let after = std::fs::read_to_string(&file).unwrap();
    assert!(after.starts_with(&intact));
    assert_eq!(
        transcript(&file),
        [
            "system: ",
            "user: first",
            "assistant: One.",
            "user: second",
            "assistant: Two."
        ]
    );
}

#[test]
fn a_second_rho_on_a_session_in_use_refuses_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("project")).unwrap();
    let script = dir.path().join("script.json");
    let turns = json!({"turns": [
        [{"type": "tool_call", "name": "bash", "arguments": {"command": "sleep 30"}}],
        [{"type": "text", "text": "Slept."}]
    ]});
    std::fs::write(&script, turns.to_string()).unwrap();
    let mut first = rho(dir.path())
        .args(["--mode", "json", "--faux-script"])
        .arg(&script)
        .arg("sleep")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(first.stdout.take().unwrap()).lines();
    // The tool is running, so the session file is open and locked.
    for line in stdout.by_ref() {
        let event: Value = serde_json::from_str(&line.unwrap()).unwrap();
        if event["type"] == "tool_execution_start" {
            break;
        }
    }
    let file = session_files(dir.path())[0].clone();
    let second = rho(dir.path())
        .args(["-p", "-c", "--faux-script"])
        .arg(&script)
        .arg("me too")
        .output()
        .unwrap();
    // Nothing of the refused run reached the file.
    let while_running = transcript(&file);
    // SIGTERM ends the run cleanly, the `sleep` (in its own process group) included.
    let term = Command::new("kill")
        .args(["-TERM", &first.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    assert_eq!(first.wait().unwrap().code(), Some(143));
    assert_eq!(second.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(second.stderr).unwrap(),
        format!(
            "Error: session file {} is in use by another rho process\n",
            file.display()
        )
    );
    assert_eq!(while_running, ["system: ", "user: sleep", "assistant: "]);
}

#[tokio::test(flavor = "multi_thread")]
async fn session_id_creates_that_session_named_by_name_and_a_second_run_resumes_it() {
    let server = MockServer::start(vec![answer("One."), answer("Two.")]).await;
    let dir = layout(&server);
    let first = run(
        dir.path(),
        &["--session-id", "abc-123", "--name", "Release prep"],
        "first",
    );
    assert_ok(&first);
    // Pi 1.6's words when the id is new (json-session-id-name.new.stderr).
    assert_eq!(
        String::from_utf8_lossy(&first.stderr),
        "Warning: No project session found with id 'abc-123'; creating a new session with that id.\n"
    );
    let files = session_files(dir.path());
    assert_eq!(files.len(), 1);
    assert!(
        files[0].to_string_lossy().ends_with("_abc-123.jsonl"),
        "{}",
        files[0].display()
    );
    let entries = lines(&files[0]);
    assert_eq!(entries[0]["id"], "abc-123");
    // The name is the first entry, before the start entries (as Pi 1.6 writes it).
    assert_eq!(
        (&entries[1]["type"], &entries[1]["name"]),
        (&json!("session_info"), &json!("Release prep"))
    );
    assert_eq!(entries[2]["type"], "model_change");

    let second = run(dir.path(), &["--session-id", "abc-123"], "second");
    assert_ok(&second);
    assert_eq!(String::from_utf8_lossy(&second.stderr), "");
    assert_eq!(session_files(dir.path()), files);
    let system = request_messages(&server, 0)[0].clone();
    assert_eq!(
        request_messages(&server, 1),
        conversation(&system, &[("first", "One.")], "second")
    );
}
