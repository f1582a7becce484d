//! RPC sessions on disk: `rho --mode rpc` writes its session file as `-p` does, and the session
//! commands move between files — checked in the files, the responses and what the model
//! receives (the loopback mock's request bodies).
#![allow(clippy::unwrap_used, clippy::expect_used)]

pub mod driver;

use std::path::PathBuf;

use rho_testkit::MockServer;
use serde_json::{Value, json};

use self::driver::{Rpc, failure, ok};
use crate::cli_sessions::{answer, layout, lines, rho, session_files, transcript, user_message};

fn types(path: &std::path::Path) -> Vec<String> {
    lines(path)
        .iter()
        .map(|l| l["type"].as_str().unwrap().to_owned())
        .collect()
}

fn request_messages(server: &MockServer, index: usize) -> Value {
    server.requests()[index].body_json().unwrap()["messages"].clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_first_prompt_writes_the_file_get_state_named_and_a_user_command_is_recorded() {
    let server = MockServer::start(vec![answer("Hello.")]).await;
    let dir = layout(&server);
    let mut rpc = Rpc::start(dir.path(), &[]);
    let before = rpc.state();
    let file = PathBuf::from(before["sessionFile"].as_str().unwrap());
    assert!(!file.exists(), "nothing is written before the first prompt");
    assert_eq!(before.get("sessionName"), None);

    rpc.send(json!({"id": "p", "type": "prompt", "message": "Hi"}));
    // The user message is written as soon as it ends, before the model answers.
    // The system message that opens the session comes first (Pi 1.6).
    let (end, _) = rpc.until(|line| line["type"] == "message_end");
    assert_eq!(end["message"]["role"], "system");
    let (end, _) = rpc.until(|line| line["type"] == "message_end");
    assert_eq!(end["message"]["role"], "user");
    assert_eq!(transcript(&file), ["system: ", "user: Hi"]);
    rpc.until(|line| line["type"] == "agent_settled");
    assert_eq!(
        rpc.call(json!({"id": "b", "type": "bash", "command": "echo out"}))["success"],
        true
    );
    assert_eq!(session_files(dir.path()), vec![file.clone()]);
    let after = rpc.state();
    assert_eq!(after["sessionFile"], before["sessionFile"]);
    assert_eq!(after["sessionId"], before["sessionId"]);
    rpc.finish();

    let written = lines(&file);
    assert_eq!(
        types(&file),
        [
            "session",
            "model_change",
            "thinking_level_change",
            "message",
            "message",
            "message",
            "message"
        ]
    );
    assert_eq!(written[0]["id"], before["sessionId"]);
    assert_eq!(written[1]["provider"], "mock");
    assert_eq!(written[1]["modelId"], "a");
    assert_eq!(
        transcript(&file)[..3],
        [
            "system: ".to_owned(),
            "user: Hi".to_owned(),
            "assistant: Hello.".to_owned()
        ]
    );
    let bash = &written[6]["message"];
    assert_eq!(
        (
            &bash["role"],
            &bash["command"],
            &bash["output"],
            &bash["exitCode"]
        ),
        (
            &json!("bashExecution"),
            &json!("echo out"),
            &json!("out\n"),
            &json!(0)
        )
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn switch_session_restores_the_files_transcript_and_the_next_prompt_sends_it() {
    let server = MockServer::start(vec![answer("Four."), answer("Eight.")]).await;
    let dir = layout(&server);
    let first = rho(dir.path())
        .args(["-p", "What is 2+2?"])
        .output()
        .unwrap();
    assert_eq!(first.status.code(), Some(0));
    let old = session_files(dir.path())[0].clone();

    let mut rpc = Rpc::start(dir.path(), &[]);
    let path = old.to_string_lossy().into_owned();
    assert_eq!(
        rpc.call(json!({"id": "s", "type": "switch_session", "sessionPath": path})),
        ok("s", "switch_session", Some(json!({"cancelled": false})))
    );
    assert_eq!(rpc.state()["sessionFile"], json!(path));
    let messages = rpc.call(json!({"id": "m", "type": "get_messages"}))["data"]["messages"].clone();
    let roles: Vec<&Value> = messages
        .as_array()
        .unwrap()
        .iter()
        .map(|m| &m["role"])
        .collect();
    assert_eq!(
        roles,
        [&json!("system"), &json!("user"), &json!("assistant")]
    );

    rpc.prompt("p", "And doubled?");
    rpc.finish();
    let system = request_messages(&server, 0)[0].clone();
    assert_eq!(
        request_messages(&server, 1),
        json!([
            system,
            user_message("What is 2+2?"),
            {"role": "assistant", "content": "Four."},
            user_message("And doubled?")
        ])
    );
    assert_eq!(
        transcript(&old),
        [
            "system: ",
            "user: What is 2+2?",
            "assistant: Four.",
            "user: And doubled?",
            "assistant: Eight."
        ]
    );
    assert_eq!(session_files(dir.path()), [old], "no second file");
}

#[tokio::test(flavor = "multi_thread")]
async fn fork_starts_a_file_holding_what_came_before_that_message_and_answers_its_text() {
    let server = MockServer::start(vec![answer("A."), answer("B."), answer("C.")]).await;
    let dir = layout(&server);
    let mut rpc = Rpc::start(dir.path(), &[]);
    rpc.prompt("p1", "one");
    rpc.prompt("p2", "two");
    let old = PathBuf::from(rpc.state()["sessionFile"].as_str().unwrap());
    let user_ids: Vec<Value> = lines(&old)
        .iter()
        .filter(|l| l["type"] == "message" && l["message"]["role"] == "user")
        .map(|l| l["id"].clone())
        .collect();
    assert_eq!(
        rpc.call(json!({"id": "g", "type": "get_fork_messages"})),
        ok(
            "g",
            "get_fork_messages",
            Some(json!({"messages": [
                {"entryId": user_ids[0], "text": "one"},
                {"entryId": user_ids[1], "text": "two"}
            ]}))
        )
    );
    assert_eq!(
        rpc.call(json!({"id": "bad", "type": "fork", "entryId": "nope"})),
        failure("bad", "fork", "Invalid entry ID for forking")
    );
    assert_eq!(
        rpc.call(json!({"id": "f", "type": "fork", "entryId": user_ids[1]})),
        ok(
            "f",
            "fork",
            Some(json!({"text": "two", "cancelled": false}))
        )
    );
    let forked = PathBuf::from(rpc.state()["sessionFile"].as_str().unwrap());
    assert_ne!(forked, old);
    assert_eq!(
        transcript(&forked),
        ["system: ", "user: one", "assistant: A."]
    );
    assert_eq!(
        lines(&forked)[0]["parentSession"],
        json!(old.to_string_lossy())
    );

    rpc.prompt("p3", "three");
    rpc.finish();
    let system = request_messages(&server, 0)[0].clone();
    assert_eq!(
        request_messages(&server, 2),
        json!([
            system,
            user_message("one"),
            {"role": "assistant", "content": "A."},
            user_message("three")
        ])
    );
    assert_eq!(transcript(&old).len(), 5, "the source is unchanged");
}

#[tokio::test(flavor = "multi_thread")]
async fn clone_copies_the_whole_branch_into_a_new_file() {
    let server = MockServer::start(vec![answer("A.")]).await;
    let dir = layout(&server);
    let mut rpc = Rpc::start(dir.path(), &[]);
    assert_eq!(
        rpc.call(json!({"id": "c0", "type": "clone"})),
        failure(
            "c0",
            "clone",
            "Cannot clone session: no current entry selected"
        )
    );
    rpc.prompt("p", "one");
    let old = PathBuf::from(rpc.state()["sessionFile"].as_str().unwrap());
    assert_eq!(
        rpc.call(json!({"id": "c", "type": "clone"})),
        ok("c", "clone", Some(json!({"cancelled": false})))
    );
    let state = rpc.state();
    let cloned = PathBuf::from(state["sessionFile"].as_str().unwrap());
    assert_ne!(cloned, old);
    assert_eq!(state["messageCount"], 3);
    rpc.finish();
    assert_eq!(transcript(&cloned), transcript(&old));
    assert_eq!(types(&cloned), types(&old));
}
