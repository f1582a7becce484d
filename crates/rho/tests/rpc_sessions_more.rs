//! RPC sessions on disk, continued: names, export, `new_session` and its lock, `--no-session`,
//! images, and a session resumed by flag.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use rho_testkit::MockServer;
use serde_json::{Value, json};

use crate::cli_sessions::{answer, layout, lines, rho, session_files, transcript};
use crate::rpc_sessions::driver::{Rpc, failure, ok};

fn session_file(rpc: &mut Rpc) -> PathBuf {
    PathBuf::from(rpc.state()["sessionFile"].as_str().unwrap())
}

#[tokio::test(flavor = "multi_thread")]
async fn set_session_name_announces_the_name_answers_and_writes_a_session_info_entry() {
    let server = MockServer::start(vec![answer("A.")]).await;
    let dir = layout(&server);
    let mut rpc = Rpc::start(dir.path(), &[]);
    // Named before the file exists: written after the start entries.
    rpc.send(json!({"id": "n1", "type": "set_session_name", "name": "  early  "}));
    assert_eq!(
        rpc.next(),
        json!({"type": "session_info_changed", "name": "early"})
    );
    assert_eq!(rpc.next(), ok("n1", "set_session_name", None));
    rpc.prompt("p", "one");
    rpc.send(json!({"id": "n2", "type": "set_session_name", "name": "work"}));
    assert_eq!(
        rpc.next(),
        json!({"type": "session_info_changed", "name": "work"})
    );
    assert_eq!(rpc.next(), ok("n2", "set_session_name", None));
    assert_eq!(rpc.state()["sessionName"], "work");
    assert_eq!(
        rpc.call(json!({"id": "n3", "type": "set_session_name", "name": " "})),
        failure("n3", "set_session_name", "Session name cannot be empty")
    );
    let file = session_file(&mut rpc);
    rpc.finish();
    let names: Vec<(String, Value)> = lines(&file)
        .iter()
        .map(|l| (l["type"].as_str().unwrap().to_owned(), l["name"].clone()))
        .filter(|(kind, _)| kind != "message")
        .collect();
    assert_eq!(
        names,
        [
            ("session".to_owned(), Value::Null),
            ("model_change".to_owned(), Value::Null),
            ("thinking_level_change".to_owned(), Value::Null),
            ("session_info".to_owned(), json!("early")),
            ("session_info".to_owned(), json!("work")),
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn export_html_writes_a_page_of_the_written_session_and_answers_its_path() {
    let server = MockServer::start(vec![answer("The answer.")]).await;
    let dir = layout(&server);
    let mut rpc = Rpc::start(dir.path(), &[]);
    assert_eq!(
        rpc.call(json!({"id": "e0", "type": "export_html"})),
        failure(
            "e0",
            "export_html",
            "Nothing to export yet - start a conversation first"
        )
    );
    rpc.prompt("p", "The question");
    assert_eq!(
        rpc.call(json!({"id": "e", "type": "export_html", "outputPath": "out.html"})),
        ok("e", "export_html", Some(json!({"path": "out.html"})))
    );
    let file = session_file(&mut rpc);
    let default = rpc.call(json!({"id": "d", "type": "export_html"}));
    let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
    let default_name = format!("rho-session-{stem}.html");
    assert_eq!(
        default,
        ok("d", "export_html", Some(json!({"path": default_name})))
    );
    rpc.finish();
    let page = std::fs::read_to_string(dir.path().join("project/out.html")).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"), "{page}");
    assert!(page.contains("The question") && page.contains("The answer."));
    assert!(dir.path().join("project").join(default_name).is_file());
}

#[tokio::test(flavor = "multi_thread")]
async fn new_session_releases_the_old_files_lock_and_names_its_parent() {
    let server = MockServer::start(vec![answer("A."), answer("B."), answer("C.")]).await;
    let dir = layout(&server);
    let mut rpc = Rpc::start(dir.path(), &[]);
    rpc.prompt("p", "one");
    let old = session_file(&mut rpc);
    let other_process = |dir: &std::path::Path| {
        rho(dir)
            .args(["-p", "--session"])
            .arg(&old)
            .arg("again")
            .output()
            .unwrap()
    };
    assert_eq!(other_process(dir.path()).status.code(), Some(2), "held");

    let parent = old.to_string_lossy().into_owned();
    assert_eq!(
        rpc.call(json!({"id": "n", "type": "new_session", "parentSession": parent})),
        ok("n", "new_session", Some(json!({"cancelled": false})))
    );
    let output = other_process(dir.path());
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(rpc.state()["messageCount"], 0);
    rpc.prompt("p2", "fresh");
    let new = session_file(&mut rpc);
    rpc.finish();
    assert_ne!(new, old);
    assert_eq!(lines(&new)[0]["parentSession"], json!(parent));
    assert_eq!(
        transcript(&new),
        ["system: ", "user: fresh", "assistant: C."]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_session_file_get_state_has_none_and_file_commands_give_pis_errors() {
    let server = MockServer::start(vec![answer("A.")]).await;
    let dir = layout(&server);
    let mut rpc = Rpc::start(dir.path(), &["--no-session"]);
    rpc.prompt("p", "one");
    let state = rpc.state();
    assert_eq!(state.get("sessionFile"), None);
    assert_eq!(state["messageCount"], 3);
    assert_eq!(
        rpc.call(json!({"id": "e", "type": "export_html"})),
        failure(
            "e",
            "export_html",
            "Cannot export in-memory session to HTML"
        )
    );
    assert_eq!(
        rpc.call(json!({"id": "c", "type": "clone"})),
        failure(
            "c",
            "clone",
            "Cannot clone session: no current entry selected"
        )
    );
    assert_eq!(
        rpc.call(json!({"id": "f", "type": "fork", "entryId": "abcd1234"})),
        failure("f", "fork", "Invalid entry ID for forking")
    );
    assert_eq!(
        rpc.call(json!({"id": "g", "type": "get_fork_messages"})),
        ok("g", "get_fork_messages", Some(json!({"messages": []})))
    );
    rpc.call(json!({"id": "n", "type": "set_session_name", "name": "memo"}));
    assert_eq!(rpc.state()["sessionName"], "memo");
    rpc.finish();
    assert!(!dir.path().join("home/sessions").exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_prompt_with_an_image_keeps_the_image_in_the_user_message_on_disk() {
    let server = MockServer::start(vec![answer("A red dot.")]).await;
    let dir = layout(&server);
    let mut rpc = Rpc::start(dir.path(), &[]);
    let image = json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"});
    let accepted = rpc
        .call(json!({"id": "p", "type": "prompt", "message": "What is this?", "images": [image]}));
    assert_eq!(
        accepted,
        ok("p", "prompt", Some(json!({"disposition": "started"})))
    );
    rpc.until(|line| line["type"] == "agent_settled");
    let file = session_file(&mut rpc);
    rpc.finish();
    let user = lines(&file)
        .into_iter()
        .find(|l| l["type"] == "message" && l["message"]["role"] == "user")
        .unwrap();
    assert_eq!(
        user["message"]["content"],
        json!([{"type": "text", "text": "What is this?"}, image])
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn continue_resumes_the_latest_session_in_rpc_mode() {
    let server = MockServer::start(vec![answer("Four.")]).await;
    let dir = layout(&server);
    let first = rho(dir.path())
        .args(["-p", "What is 2+2?"])
        .output()
        .unwrap();
    assert_eq!(first.status.code(), Some(0));
    let mut rpc = Rpc::start(dir.path(), &["--continue"]);
    let state = rpc.state();
    assert_eq!(
        state["sessionFile"],
        json!(session_files(dir.path())[0].to_string_lossy())
    );
    assert_eq!(state["messageCount"], 3);
    assert_eq!(
        rpc.call(json!({"id": "t", "type": "get_last_assistant_text"})),
        ok(
            "t",
            "get_last_assistant_text",
            Some(json!({"text": "Four."}))
        )
    );
    rpc.finish();
}

#[tokio::test(flavor = "multi_thread")]
async fn model_and_thinking_changes_are_recorded_and_a_resumed_session_restores_them() {
    let server = MockServer::start(vec![answer("A."), answer("B.")]).await;
    let dir = layout(&server);
    let models = json!({"providers": {"mock": {
        "baseUrl": format!("{}/v1", server.base_url()),
        "api": "openai-completions",
        "apiKey": "sk-test",
        "models": [{"id": "a"}, {"id": "b", "reasoning": true}]
    }}});
    std::fs::write(dir.path().join("home/models.json"), models.to_string()).unwrap();
    let mut rpc = Rpc::start(dir.path(), &[]);
    rpc.prompt("p", "one");
    let set = rpc.call(json!({"id": "m", "type": "set_model", "provider": "mock", "modelId": "b"}));
    assert_eq!(set["success"], true, "{set}");
    rpc.call(json!({"id": "t", "type": "set_thinking_level", "level": "high"}));
    // Unchanged: nothing more is recorded.
    rpc.call(json!({"id": "t2", "type": "set_thinking_level", "level": "high"}));
    let file = session_file(&mut rpc);
    rpc.finish();
    let changes: Vec<Value> = lines(&file)
        .iter()
        .filter(|l| l["type"] != "message" && l["type"] != "session")
        .map(|l| match l["type"].as_str().unwrap() {
            "model_change" => json!(["model", l["provider"], l["modelId"]]),
            kind => json!([kind, l["thinkingLevel"]]),
        })
        .collect();
    assert_eq!(
        changes,
        [
            json!(["model", "mock", "a"]),
            json!(["thinking_level_change", "off"]),
            json!(["model", "mock", "b"]),
            // As Pi: a reasoning model after one without starts at the default level.
            json!(["thinking_level_change", "medium"]),
            json!(["thinking_level_change", "high"]),
        ]
    );

    let mut resumed = Rpc::start(dir.path(), &["--continue"]);
    let state = resumed.state();
    assert_eq!(
        (&state["model"]["id"], &state["thinkingLevel"]),
        (&json!("b"), &json!("high"))
    );
    resumed.prompt("p2", "two");
    resumed.finish();
    assert_eq!(
        server.requests()[1].body_json().unwrap()["model"],
        json!("b")
    );
    assert_eq!(
        lines(&file).len(),
        11,
        "resuming adds only the new exchange (the system message is already declared)"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn switch_session_refuses_a_file_in_use_a_non_session_file_and_a_gone_directory() {
    let server = MockServer::start(vec![answer("A.")]).await;
    let dir = layout(&server);
    let first = rho(dir.path()).args(["-p", "one"]).output().unwrap();
    assert_eq!(first.status.code(), Some(0));
    let existing = session_files(dir.path())[0].clone();
    let mut holder = Rpc::start(dir.path(), &["--continue"]);
    assert_eq!(holder.state()["messageCount"], 3);

    let mut rpc = Rpc::start(dir.path(), &["--no-session"]);
    let path = existing.to_string_lossy().into_owned();
    assert_eq!(
        rpc.call(json!({"id": "1", "type": "switch_session", "sessionPath": path})),
        failure(
            "1",
            "switch_session",
            &format!("session file {path} is in use by another rho process")
        )
    );
    holder.finish();

    let notes = dir.path().join("project/notes.jsonl");
    std::fs::write(&notes, "{\"hello\":1}\n").unwrap();
    assert_eq!(
        rpc.call(json!({"id": "2", "type": "switch_session", "sessionPath": "notes.jsonl"})),
        failure(
            "2",
            "switch_session",
            &format!(
                "{} is not a session file (its first line is not a session header)",
                notes.display()
            )
        )
    );

    let mut header = lines(&existing);
    header[0]["cwd"] = json!("/nonexistent/rho-gone");
    let moved = dir.path().join("project/moved.jsonl");
    let text: Vec<String> = header.iter().map(Value::to_string).collect();
    std::fs::write(&moved, text.join("\n") + "\n").unwrap();
    let project = dir.path().join("project");
    assert_eq!(
        rpc.call(json!({"id": "3", "type": "switch_session", "sessionPath": "moved.jsonl"})),
        failure(
            "3",
            "switch_session",
            &format!(
                "Stored session working directory does not exist: /nonexistent/rho-gone\nSession file: {}\nCurrent working directory: {}",
                moved.display(),
                project.display()
            )
        )
    );
    assert_eq!(
        rpc.state().get("sessionFile"),
        None,
        "still the old session"
    );
    rpc.finish();
}
