//! Messages are decoded when first needed: an open reads envelopes only, a context decodes
//! only what it returns, and a message that cannot be decoded is reported, never a panic.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_ai::AgentMessage;
use rho_session::{EntryKind, MessageError, SessionEntry, SessionFile, SkippedMessage};
use serde_json::{Value, json};

use crate::round_trip::{assistant, user};

const HEADER: &str = r#"{"type":"session","version":3,"id":"sid","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#;

fn message_line(id: &str, parent: Option<&str>, message: Value) -> String {
    json!({"type":"message","id":id,"parentId":parent,
           "timestamp":"2026-01-01T00:00:01.000Z","message":message})
    .to_string()
}

fn write_session(dir: &std::path::Path, lines: &[String]) -> std::path::PathBuf {
    let path = dir.join("s.jsonl");
    let mut text = format!("{HEADER}\n");
    for line in lines {
        text.push_str(line);
        text.push('\n');
    }
    std::fs::write(&path, text).unwrap();
    path
}

fn decoded(entries: &[SessionEntry]) -> Vec<bool> {
    entries
        .iter()
        .filter_map(|e| match &e.kind {
            EntryKind::Message(m) => Some(m.is_decoded()),
            _ => None,
        })
        .collect()
}

fn json_of(message: &AgentMessage) -> Value {
    serde_json::to_value(message).unwrap()
}

#[test]
fn an_open_decodes_no_message_and_a_context_only_those_after_the_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = SessionFile::create(dir.path(), "/p", None).unwrap();
    s.append_message(user("one")).unwrap();
    s.append_message(assistant("two")).unwrap();
    let kept = s.append_message(user("three")).unwrap();
    s.append_message(assistant("four")).unwrap();
    s.append(EntryKind::Compaction {
        summary: "S".into(),
        first_kept_entry_id: kept,
        tokens_before: 10,
        details: None,
        usage: None,
        from_hook: None,
        system_message: None,
    })
    .unwrap();
    s.append_message(user("five")).unwrap();
    let path = s.path().unwrap().to_path_buf();
    drop(s);

    let (session, warnings) = SessionFile::open(&path).unwrap();
    assert_eq!(warnings, vec![]);
    assert_eq!(decoded(session.entries()), [false; 5]);
    let context = session.context();
    let roles: Vec<&str> = context.messages.iter().map(AgentMessage::role).collect();
    assert_eq!(roles, ["compactionSummary", "user", "assistant", "user"]);
    assert_eq!(
        context.messages[1..],
        [user("three"), assistant("four"), user("five")]
    );
    assert_eq!(context.skipped, vec![]);
    assert_eq!(decoded(session.entries()), [false, false, true, true, true]);
}

#[test]
fn a_malformed_message_on_a_side_branch_leaves_the_main_branch_whole() {
    let dir = tempfile::tempdir().unwrap();
    let u1 = json_of(&user("one"));
    let a1 = json_of(&assistant("two"));
    let u2 = json_of(&user("three"));
    let broken = json!({"role":"user","content":123,"timestamp":1});
    let path = write_session(
        dir.path(),
        &[
            message_line("aaaaaaa1", None, u1),
            message_line("aaaaaaa2", Some("aaaaaaa1"), a1),
            message_line("bbbbbbb1", Some("aaaaaaa2"), broken.clone()),
            message_line("aaaaaaa3", Some("aaaaaaa2"), u2),
        ],
    );
    let (session, warnings) = SessionFile::open(&path).unwrap();
    assert_eq!(warnings, vec![]);
    assert_eq!(session.entries().len(), 4);
    let context = session.context();
    assert_eq!(
        context.messages,
        vec![user("one"), assistant("two"), user("three")]
    );
    assert_eq!(context.skipped, vec![]);
    // The broken message was never needed, so never decoded.
    assert_eq!(decoded(session.entries()), [true, true, false, true]);

    // Written back untouched, whatever its shape.
    let side = session.entry("bbbbbbb1").unwrap();
    assert_eq!(serde_json::to_value(side).unwrap()["message"], broken);
    assert_eq!(side.kind.as_message(), None);
}

#[test]
fn a_malformed_message_on_the_path_is_skipped_and_reported_with_its_entry_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_session(
        dir.path(),
        &[
            message_line("aaaaaaa1", None, json_of(&user("one"))),
            message_line(
                "aaaaaaa2",
                Some("aaaaaaa1"),
                json!({"role":"assistant","content":"not blocks"}),
            ),
            message_line("aaaaaaa3", Some("aaaaaaa2"), json!({"role":7})),
            message_line("aaaaaaa4", Some("aaaaaaa3"), json_of(&user("two"))),
        ],
    );
    let (session, warnings) = SessionFile::open(&path).unwrap();
    assert_eq!(warnings, vec![]);
    let context = session.context();
    assert_eq!(context.messages, vec![user("one"), user("two")]);
    // The malformed assistant message names no model.
    assert_eq!(context.model, None);
    let EntryKind::Message(bad) = &session.entry("aaaaaaa2").unwrap().kind else {
        panic!("a message entry")
    };
    let reason = match bad.get() {
        Err(MessageError::Malformed { role, reason }) if role == "assistant" => reason.clone(),
        other => panic!("expected a malformed assistant message, got {other:?}"),
    };
    assert_eq!(
        context.skipped,
        vec![
            SkippedMessage {
                entry_id: "aaaaaaa2".into(),
                line: Some(3),
                error: MessageError::Malformed {
                    role: "assistant".into(),
                    reason: reason.clone(),
                },
            },
            SkippedMessage {
                entry_id: "aaaaaaa3".into(),
                line: Some(4),
                error: MessageError::NoRole,
            },
        ]
    );
    assert_eq!(
        context.skipped[1].to_string(),
        "skipped the message of entry aaaaaaa3 on line 4: message has no string \"role\""
    );
    assert_eq!(
        context.skipped[0].to_string(),
        format!(
            "skipped the message of entry aaaaaaa2 on line 3: malformed assistant message: {reason}"
        )
    );
}

#[test]
fn a_message_is_written_back_byte_for_byte_with_fields_rho_does_not_know() {
    let dir = tempfile::tempdir().unwrap();
    let line = r#"{"type":"message","id":"aaaaaaa1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1,"future":{"a":[1,2]}}}"#;
    let path = write_session(dir.path(), &[line.to_owned()]);
    let (session, _) = SessionFile::open(&path).unwrap();
    let entry = &session.entries()[0];
    let EntryKind::Message(message) = &entry.kind else {
        panic!("a message entry")
    };
    assert_eq!(
        message.raw(),
        Some(r#"{"role":"user","content":"hi","timestamp":1,"future":{"a":[1,2]}}"#)
    );
    assert_eq!(
        String::from_utf8(entry.to_line().unwrap()).unwrap(),
        format!("{line}\n")
    );
    assert_eq!(message.get().unwrap().role(), "user");
    // Decoding does not change what is written.
    assert_eq!(
        String::from_utf8(entry.to_line().unwrap()).unwrap(),
        format!("{line}\n")
    );
}

#[test]
fn a_long_uncompacted_path_decodes_every_message_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = SessionFile::create(dir.path(), "/p", None).unwrap();
    let expected: Vec<AgentMessage> = (0..1200)
        .map(|i| {
            if i % 2 == 0 {
                user(&format!("question {i}"))
            } else {
                assistant(&format!("answer {i}"))
            }
        })
        .collect();
    for m in &expected {
        s.append_message(m.clone()).unwrap();
    }
    let path = s.path().unwrap().to_path_buf();
    drop(s);
    let (session, _) = SessionFile::open(&path).unwrap();
    let context = session.context();
    assert_eq!(context.messages, expected);
    assert_eq!(context.skipped, vec![]);
    assert!(decoded(session.entries()).iter().all(|&d| d));
    // A second rebuild reuses the decoded messages and gives the same context.
    assert_eq!(session.context(), context);
}
