#![allow(clippy::unwrap_used)]
//! Pi 1.6's `context_edit` entries: a failed attempt stays in the file but leaves the context;
//! a replacement swaps a message's content; the entry reads and writes as Pi writes it.

use rho_ai::{AgentMessage, AssistantMessage, ContentBlock, StopReason, UserMessage};
use rho_session::SessionFile;

fn failed_reply() -> AgentMessage {
    let mut reply = AssistantMessage::empty("openai-completions", "p", "m");
    reply.stop_reason = StopReason::Error;
    reply.error_message = Some("529: overloaded".into());
    reply.into()
}

fn roles(file: &SessionFile) -> Vec<String> {
    file.context()
        .messages
        .iter()
        .map(|m| m.role().to_owned())
        .collect()
}

#[test]
fn an_omitted_reply_stays_in_the_file_and_leaves_the_context_also_after_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let mut file = SessionFile::create_at(&path, "/w").unwrap();
    file.append_message(UserMessage::text("hi").into()).unwrap();
    let failed = file.append_message(failed_reply()).unwrap();
    let edits = file.omit_last_reply().unwrap();
    assert_eq!(edits.len(), 1);
    assert_eq!(roles(&file), ["user"]);
    let mut ok = AssistantMessage::empty("openai-completions", "p", "m");
    ok.stop_reason = StopReason::Stop;
    ok.content.push(ContentBlock::text("Recovered."));
    file.append_message(ok.into()).unwrap();
    file.sync().unwrap();
    drop(file);

    let text = std::fs::read_to_string(&path).unwrap();
    let edit_line = text.lines().find(|l| l.contains("context_edit")).unwrap();
    let edit: serde_json::Value = serde_json::from_str(edit_line).unwrap();
    let keys: Vec<&str> = edit
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "type",
            "id",
            "parentId",
            "timestamp",
            "targetId",
            "replacement"
        ]
    );
    assert_eq!(edit["targetId"], failed.as_str());
    assert_eq!(edit["replacement"], serde_json::Value::Null);

    let (reopened, _) = SessionFile::open(&path).unwrap();
    assert_eq!(roles(&reopened), ["user", "assistant"]);
    assert_eq!(
        reopened.entries().len(),
        4,
        "the failed reply is still in the file"
    );
}

#[test]
fn a_replacement_swaps_the_content_and_a_string_becomes_a_text_block_for_an_assistant() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-12-03T10:00:00.000Z","cwd":"/w"}"#;
    let lines = [
        header,
        r#"{"type":"message","id":"a1","parentId":null,"timestamp":"2026-12-03T10:00:01.000Z","message":{"role":"user","content":"long text","timestamp":1}}"#,
        r#"{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-12-03T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"old"}],"api":"x","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":2}}"#,
        r#"{"type":"context_edit","id":"e1","parentId":"a2","timestamp":"2026-12-03T10:00:03.000Z","targetId":"a2","replacement":{"content":"first"}}"#,
        r#"{"type":"context_edit","id":"e2","parentId":"e1","timestamp":"2026-12-03T10:00:04.000Z","targetId":"a2","replacement":{"content":"new"}}"#,
        r#"{"type":"context_edit","id":"e3","parentId":"e2","timestamp":"2026-12-03T10:00:05.000Z","targetId":"a1","replacement":{"content":"short"}}"#,
    ];
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let (file, warnings) = SessionFile::open(&path).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    let context = file.context();
    let user = context.messages[0].as_user().unwrap();
    assert_eq!(user.text_content(), "short");
    let assistant = context.messages[1].as_assistant().unwrap();
    assert_eq!(assistant.content, vec![ContentBlock::text("new")]);
    // Written back as read.
    let written: Vec<String> = file
        .entries()
        .iter()
        .map(|e| serde_json::to_string(e).unwrap())
        .collect();
    assert_eq!(written[2], lines[3]);
}
