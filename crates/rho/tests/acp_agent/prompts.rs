//! Prompts: what a run streams, edits as diffs, permissions, cancel, content, hostile input.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::schema::{
    ContentBlock, EmbeddedResource, EmbeddedResourceResource, ImageContent, PermissionOptionKind,
    ResourceLink, SessionUpdate, StopReason, TextContent, TextResourceContents, ToolCallContent,
    ToolCallStatus, ToolKind,
};
use serde_json::{Value, json};

use super::client::{Answers, Raw, call, first_end, labels, message_text, run, text, workspace};

#[test]
fn a_prompt_with_two_reads_streams_calls_their_ends_and_the_answer_then_end_turn() {
    let ws = workspace(json!([
        [call("read", json!({"path": "a.txt"})), call("bash", json!({"command": "ls"}))],
        [{"type": "thinking", "text": "two files"}, {"type": "text", "text": "Both read."}]
    ]));
    std::fs::write(ws.project.join("a.txt"), "alpha\n").unwrap();
    let (updates, asked, stop) = run(&ws, text("look"), Answers::default(), false);
    assert_eq!(stop, StopReason::EndTurn);
    assert!(asked.is_empty());
    let labels = labels(&updates);
    assert_eq!(
        labels
            .iter()
            .filter(|l| !l.starts_with("usage"))
            .cloned()
            .collect::<Vec<_>>(),
        [
            "call Read",
            "call Execute",
            "update Completed",
            "update Completed",
            "thought",
            "message"
        ],
        "{labels:?}"
    );
    // Each reply's usage: the context it filled, the window, the cost.
    let usages: Vec<(u64, u64)> = updates
        .iter()
        .filter_map(|u| match u {
            SessionUpdate::UsageUpdate(usage) => Some((usage.used, usage.size)),
            _ => None,
        })
        .collect();
    assert_eq!(usages.len(), 2, "{usages:?}");
    assert!(usages.iter().all(|(used, size)| *used > 0 && *size > 0));
    let SessionUpdate::ToolCall(read) = &updates
        .iter()
        .find(|u| matches!(u, SessionUpdate::ToolCall(_)))
        .unwrap()
    else {
        unreachable!()
    };
    assert_eq!(read.title, "Read a.txt");
    assert_eq!(read.kind, ToolKind::Read);
    assert_eq!(read.status, ToolCallStatus::InProgress);
    assert_eq!(read.locations[0].path, ws.project.join("a.txt"));
    assert_eq!(read.raw_input, Some(json!({"path": "a.txt"})));
    assert_eq!(message_text(&updates), "Both read.");
    // The session is on disk as in the other modes.
    let sessions = std::fs::read_dir(ws.home.join("sessions")).unwrap().count();
    assert_eq!(sessions, 1);
}

#[test]
fn an_edit_arrives_as_a_diff_and_the_file_is_changed() {
    let ws = workspace(json!([
        [call("edit", json!({"path": "a.txt", "edits": [{"oldText": "alpha", "newText": "beta"}]}))],
        [{"type": "text", "text": "Edited."}]
    ]));
    std::fs::write(ws.project.join("a.txt"), "alpha\n").unwrap();
    let (updates, _, stop) = run(&ws, text("edit it"), Answers::default(), false);
    assert_eq!(stop, StopReason::EndTurn);
    let end = first_end(&updates);
    let content = end.fields.content.unwrap();
    let ToolCallContent::Diff(diff) = &content[0] else {
        panic!("{content:?}")
    };
    assert_eq!(diff.path, ws.project.join("a.txt"));
    assert_eq!(
        (diff.old_text.as_deref(), diff.new_text.as_str()),
        (Some("alpha"), "beta")
    );
    assert_eq!(
        std::fs::read_to_string(ws.project.join("a.txt")).unwrap(),
        "beta\n"
    );
}

#[test]
fn the_gates_question_is_a_permission_request_answered_once_always_and_rejected() {
    let ws = workspace(json!([
        [call("bash", json!({"command": "echo once"}))],
        [call("bash", json!({"command": "echo always"}))],
        [call("bash", json!({"command": "echo always"}))],
        [call("bash", json!({"command": "echo rejected"}))],
        [{"type": "text", "text": "ok"}]
    ]));
    std::fs::write(
        ws.home.join("rules.toml"),
        "[[rule]]\ndecision = \"ask\"\nprefix = \"echo\"\n",
    )
    .unwrap();
    let answers: Answers = Arc::new(Mutex::new(vec![
        PermissionOptionKind::AllowOnce,
        PermissionOptionKind::AllowAlways,
        PermissionOptionKind::RejectOnce,
    ]));
    let (updates, asked, stop) = run(&ws, text("go"), answers, false);
    assert_eq!(stop, StopReason::EndTurn);
    // "always" answered the second `echo always` without a question.
    assert_eq!(asked.len(), 3);
    assert_eq!(
        asked[0].tool_call.fields.title.as_deref(),
        Some("Run `echo once`?")
    );
    let statuses: Vec<String> = labels(&updates)
        .into_iter()
        .filter(|l| l.starts_with("update"))
        .collect();
    assert_eq!(
        statuses,
        [
            "update Completed",
            "update Completed",
            "update Completed",
            "update Failed"
        ]
    );
    let rules = std::fs::read_to_string(ws.home.join("rules.toml")).unwrap();
    assert!(rules.contains("echo always"), "{rules}");
}

#[test]
fn a_cancel_mid_tool_stops_the_run_and_answers_cancelled() {
    let ws = workspace(json!([
        [call("bash", json!({"command": "echo $$ > shell.pid; echo started; sleep 30"}))],
        [{"type": "text", "text": "never"}]
    ]));
    let pid = ws.project.join("shell.pid");
    let started = std::time::Instant::now();
    let (updates, _, stop) = run(&ws, text("wait"), Answers::default(), true);
    assert_eq!(stop, StopReason::Cancelled);
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    assert!(!message_text(&updates).contains("never"));
    // The shell ran, and its process group is gone with the run.
    assert!(pid.exists());
    assert!(crate::mcp_runs::harness::process_gone(&pid));
}

#[test]
fn every_kind_of_content_reaches_the_model() {
    let ws = workspace(json!([[{"type": "text", "text": "seen"}]]));
    let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGBgAAAABQABh6FO1AAAAABJRU5ErkJggg==";
    let prompt = vec![
        ContentBlock::Text(TextContent::new("look at these")),
        ContentBlock::Image(ImageContent::new(png, "image/png")),
        ContentBlock::ResourceLink(ResourceLink::new("notes", "file:///tmp/notes.md")),
        ContentBlock::Resource(EmbeddedResource::new(
            EmbeddedResourceResource::TextResourceContents(TextResourceContents::new(
                "fn main() {}",
                "file:///src/main.rs",
            )),
        )),
    ];
    let (_, _, stop) = run(&ws, prompt, Answers::default(), false);
    assert_eq!(stop, StopReason::EndTurn);
    let session = std::fs::read_dir(ws.home.join("sessions"))
        .unwrap()
        .flatten()
        .flat_map(|d| std::fs::read_dir(d.path()).unwrap().flatten())
        .map(|e| e.path())
        .find(|p: &PathBuf| p.extension().is_some_and(|e| e == "jsonl"))
        .unwrap();
    let user = std::fs::read_to_string(&session)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e["message"]["role"] == "user")
        .unwrap();
    let content = &user["message"]["content"];
    assert_eq!(
        content[0]["text"],
        "look at these\n\n[notes](file:///tmp/notes.md)\n\n<resource uri=\"file:///src/main.rs\">\nfn main() {}\n</resource>"
    );
    assert_eq!(content[1]["type"], "image");
    assert_eq!(content[1]["mimeType"], "image/png");
}

#[test]
fn malformed_and_out_of_order_messages_are_answered_and_the_agent_serves_on() {
    let ws = workspace(json!([[{"type": "text", "text": "still here"}]]));
    let mut raw = Raw::start(&ws);
    let hostile: [(&str, Option<u64>); 20] = [
        (
            r#"{"jsonrpc":"2.0","id":1,"method":"session/prompt","params":{"sessionId":"x","prompt":[]}}"#,
            Some(1),
        ),
        ("not json at all", None),
        ("{", None),
        ("[]", None),
        ("42", None),
        (
            r#"{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/"}}"#,
            Some(2),
        ),
        // Not a JSON-RPC 2.0 request: answered with a null id, as JSON-RPC says.
        (r#"{"jsonrpc":"1.0","id":3,"method":"initialize"}"#, None),
        (
            r#"{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"nope"}}"#,
            None,
        ),
        (
            r#"{"jsonrpc":"2.0","id":4,"result":{"unasked":true}}"#,
            None,
        ),
        (
            r#"{"jsonrpc":"2.0","id":5,"method":"no/such/method","params":{}}"#,
            Some(5),
        ),
        (
            r#"{"jsonrpc":"2.0","id":6,"method":"initialize","params":"wrong"}"#,
            None,
        ),
        (
            r#"{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"one"}}"#,
            Some(7),
        ),
        (r#"{"jsonrpc":"2.0","id":null,"method":"initialize"}"#, None),
        ("\u{1}\u{2}", None),
        (
            r#"{"jsonrpc":"2.0","id":8,"method":"session/load","params":{}}"#,
            Some(8),
        ),
        (
            r#"{"jsonrpc":"2.0","id":9,"method":"session/set_mode","params":{"sessionId":"x","modeId":"y"}}"#,
            Some(9),
        ),
        (r#"{"id":10}"#, None),
        (
            r#"{"jsonrpc":"2.0","id":{"nested":[1]},"method":"x"}"#,
            None,
        ),
        (
            r#"{"jsonrpc":"2.0","id":11,"method":"authenticate","params":{"methodId":"none"}}"#,
            Some(11),
        ),
        (
            r#"{"jsonrpc":"2.0","id":12,"method":"session/prompt","params":{"sessionId":"x"}}"#,
            Some(12),
        ),
    ];
    for (line, _) in &hostile {
        raw.send(line);
    }
    for id in hostile.iter().filter_map(|(_, id)| *id) {
        let answer = raw.answer(json!(id));
        assert!(answer.get("error").is_some(), "{answer}");
    }
    raw.send(r#"{"jsonrpc":"2.0","id":20,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}"#);
    assert_eq!(raw.answer(json!(20))["result"]["protocolVersion"], 1);
    let new = json!({"jsonrpc": "2.0", "id": 21, "method": "session/new",
        "params": {"cwd": ws.project, "mcpServers": []}});
    raw.send(&new.to_string());
    let session = raw.answer(json!(21))["result"]["sessionId"].clone();
    let prompt = json!({"jsonrpc": "2.0", "id": 22, "method": "session/prompt",
        "params": {"sessionId": session, "prompt": [{"type": "text", "text": "hi"}]}});
    raw.send(&prompt.to_string());
    assert_eq!(raw.answer(json!(22))["result"]["stopReason"], "end_turn");
    drop(raw.stdin.take());
    assert_eq!(raw.child.wait().unwrap().code(), Some(0));
}

#[test]
fn the_commands_are_offered_and_compact_runs_instead_of_a_prompt() {
    let ws = workspace(json!([]));
    let prompts = ws.home.join("prompts");
    std::fs::create_dir_all(&prompts).unwrap();
    std::fs::write(
        prompts.join("review.md"),
        "---\ndescription: Review the change\n---\nReview $ARGUMENTS\n",
    )
    .unwrap();
    let (updates, _, stop) = run(
        &ws,
        text("/compact keep the API"),
        Answers::default(),
        false,
    );
    assert_eq!(stop, StopReason::EndTurn);
    let offered: Vec<(String, String)> = updates
        .iter()
        .find_map(|u| match u {
            SessionUpdate::AvailableCommandsUpdate(update) => Some(
                update
                    .available_commands
                    .iter()
                    .map(|c| (c.name.clone(), c.description.clone()))
                    .collect(),
            ),
            _ => None,
        })
        .unwrap();
    assert_eq!(offered[0].0, "compact");
    assert_eq!(
        offered[1],
        ("review".to_owned(), "Review the change".to_owned())
    );
    // Nothing to compact in a new session: said, and no model call (the script is empty).
    assert_eq!(
        message_text(&updates),
        "Not compacted: Nothing to compact (session too small)"
    );
}
