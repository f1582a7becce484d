//! Writing a session and reading it back.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use rho_ai::{AgentMessage, CustomMessage};
use rho_ai::{AssistantMessage, ContentBlock, StopReason, UserMessage};
use rho_session::{EntryKind, ModelRef, SessionFile};
use serde_json::{Value, json};

pub fn user(text: &str) -> AgentMessage {
    UserMessage {
        content: rho_ai::UserContent::Blocks(vec![ContentBlock::text(text)]),
        timestamp: 1_700_000_000_000,
    }
    .into()
}

pub fn assistant(text: &str) -> AgentMessage {
    let mut a = AssistantMessage::empty("anthropic-messages", "anthropic", "claude-sonnet-4-5");
    a.content = vec![ContentBlock::text(text)];
    a.stop_reason = StopReason::Stop;
    a.timestamp = 1_700_000_000_001;
    a.into()
}

pub fn lines(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_session_reopened_gives_the_same_entries_and_context() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = SessionFile::create(dir.path(), "/home/u/proj", None).unwrap();
    session
        .append_model_change("anthropic", "claude-sonnet-4-5")
        .unwrap();
    session.append_thinking_level_change("high").unwrap();
    session.append_message(user("hello")).unwrap();
    session.append_message(assistant("hi there")).unwrap();
    let bash = AgentMessage::Custom(Arc::new(CustomMessage {
        role: "bashExecution".to_owned(),
        fields: json!({"command": "ls", "output": "a\n", "exitCode": 0, "cancelled": false,
            "truncated": false, "timestamp": 5})
        .as_object()
        .unwrap()
        .clone(),
    }));
    session.append_message(bash.clone()).unwrap();
    session.sync().unwrap();
    let written = session.context();
    let entries = session.entries().to_vec();
    let path = session.path().unwrap().to_path_buf();
    drop(session);

    let (reopened, warnings) = SessionFile::open(&path).unwrap();
    assert_eq!(warnings, vec![]);
    assert_eq!(reopened.entries(), &entries[..]);
    assert_eq!(reopened.context(), written);
    assert_eq!(
        written.messages,
        vec![user("hello"), assistant("hi there"), bash]
    );
    assert_eq!(written.thinking_level, "high");
    assert_eq!(
        written.model,
        Some(ModelRef {
            provider: "anthropic".into(),
            model_id: "claude-sonnet-4-5".into()
        })
    );
}

#[test]
fn lines_are_written_with_pis_field_order_and_a_null_root_parent() {
    let dir = tempfile::tempdir().unwrap();
    let mut session = SessionFile::create(dir.path(), "/home/u/proj", None).unwrap();
    let first = session.append_model_change("openai", "gpt-4o").unwrap();
    let second = session
        .append(EntryKind::Custom {
            custom_type: "ext".into(),
            data: Some(json!({"n": 1})),
        })
        .unwrap();
    session.append_label_change(&first, Some("start")).unwrap();
    let text = std::fs::read_to_string(session.path().unwrap()).unwrap();
    let keys: Vec<Vec<String>> = text
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Map<String, Value>>(l)
                .unwrap()
                .keys()
                .cloned()
                .collect()
        })
        .collect();
    assert_eq!(
        keys,
        vec![
            vec!["type", "version", "id", "timestamp", "cwd"],
            vec!["type", "id", "parentId", "timestamp", "provider", "modelId"],
            vec!["type", "customType", "data", "id", "parentId", "timestamp"],
            vec!["type", "id", "parentId", "timestamp", "targetId", "label"],
        ]
    );
    let values = lines(session.path().unwrap());
    assert_eq!(values[0]["type"], "session");
    assert_eq!(values[0]["version"], 3);
    assert_eq!(values[1]["parentId"], Value::Null);
    assert_eq!(values[2]["parentId"], json!(first));
    assert_eq!(values[3]["parentId"], json!(second));
    assert!(text.ends_with('\n'));
    assert_eq!(first.len(), 8);
    assert!(first.chars().all(|c| c.is_ascii_hexdigit()));
    let ts = values[1]["timestamp"].as_str().unwrap();
    assert_eq!((ts.len(), &ts[10..11], &ts[23..]), (24, "T", "Z"));
}

#[test]
fn unknown_entry_types_and_fields_survive_reopening_and_do_not_reach_the_context() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(
        &path,
        concat!(
            r#"{"type":"session","version":3,"id":"sid","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p","future":1}"#, "\n",
            r#"{"type":"message","id":"aaaaaaaa","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1},"extraField":[1,2]}"#, "\n",
            r#"{"type":"hologram","id":"bbbbbbbb","parentId":"aaaaaaaa","timestamp":"2026-01-01T00:00:02.000Z","beam":{"x":1}}"#, "\n",
        ),
    )
    .unwrap();
    let (session, warnings) = SessionFile::open(&path).unwrap();
    assert_eq!(warnings, vec![]);
    assert_eq!(session.entries().len(), 2);
    assert_eq!(
        session.entries()[0].extra,
        json!({"extraField": [1, 2]}).as_object().unwrap().clone()
    );
    assert_eq!(
        session.entries()[1].kind,
        EntryKind::Unknown {
            entry_type: "hologram".into()
        }
    );
    assert_eq!(
        serde_json::to_value(&session.entries()[1]).unwrap(),
        json!({"type":"hologram","id":"bbbbbbbb","parentId":"aaaaaaaa",
               "timestamp":"2026-01-01T00:00:02.000Z","beam":{"x":1}})
    );
    assert_eq!(
        session.header().extra,
        json!({"future": 1}).as_object().unwrap().clone()
    );
    let context = session.context();
    assert_eq!(context.messages.len(), 1);
    assert_eq!(context.messages[0].role(), "user");
}
