//! Pi 1.6's compaction and branch-summary entries: their `usage` (and the compaction's
//! `systemMessage`) are read and written back as Pi wrote them, and the context rebuilt from a
//! compaction starts with the checkpoint, then the summary; system messages kept before the
//! compaction are dropped (Pi's `buildContextEntries`).
//! The file is Pi 1.6.0's own, from `rpc-compact.new.log`'s run.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_session::SessionFile;
use serde_json::Value;

const PI16_FILE: &str = include_str!("data/pi16-session-after-compact.jsonl");

fn open(text: &str) -> (tempfile::TempDir, SessionFile) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, text).unwrap();
    let (session, _) = SessionFile::open(&path).unwrap();
    (dir, session)
}

fn line_of(text: &str, entry_type: &str) -> Value {
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| v["type"] == entry_type)
        .unwrap()
}

#[test]
fn pi_16s_compaction_entry_is_written_back_byte_for_byte() {
    let (_dir, session) = open(PI16_FILE);
    let entry = session.entry("ee6732cc").unwrap();
    let line = PI16_FILE
        .lines()
        .find(|l| l.contains(r#""type":"compaction""#))
        .unwrap();
    assert_eq!(serde_json::to_string(entry).unwrap(), line);
}

#[test]
fn the_context_after_a_compaction_starts_with_its_checkpoint_then_the_summary() {
    let (_dir, session) = open(PI16_FILE);
    let context = session.context();
    let roles: Vec<&str> = context.messages.iter().map(|m| m.role()).collect();
    assert_eq!(roles, ["system", "compactionSummary", "user", "assistant"]);
    let compaction = line_of(PI16_FILE, "compaction");
    assert_eq!(
        serde_json::to_value(&context.messages[0]).unwrap(),
        compaction["systemMessage"]
    );
}

#[test]
fn system_messages_kept_before_the_compaction_leave_the_context() {
    // The same file with everything from the first system message kept.
    let text = PI16_FILE.replace(
        r#""firstKeptEntryId":"d677d281""#,
        r#""firstKeptEntryId":"07b60216""#,
    );
    let (_dir, session) = open(&text);
    let roles: Vec<String> = session
        .context()
        .messages
        .iter()
        .map(|m| m.role().to_owned())
        .collect();
    assert_eq!(
        roles,
        [
            "system",
            "compactionSummary",
            "user",
            "assistant",
            "user",
            "assistant"
        ]
    );
}

#[test]
fn pi_16s_branch_summary_keeps_its_usage() {
    let line = r#"{"type":"branch_summary","id":"b1","parentId":"0ab8d817","timestamp":"2026-12-03T14:53:09.000Z","fromId":"58e36ed5","summary":"Left.","details":{"readFiles":[],"modifiedFiles":[]},"usage":{"input":5,"output":2,"cacheRead":0,"cacheWrite":0,"reasoning":0,"totalTokens":7,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0,"totalFromProvider":false}},"fromHook":false}"#;
    let text = format!("{PI16_FILE}{line}\n");
    let (_dir, session) = open(&text);
    assert_eq!(
        serde_json::to_string(session.entry("b1").unwrap()).unwrap(),
        line
    );
}
