//! Pi 1.6's compaction entry: its `usage` and `systemMessage` are read and written back as Pi
//! wrote them, and the context rebuilt from it starts with the checkpoint, then the summary;
//! system messages kept before the compaction are dropped (Pi's `buildContextEntries`).
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
