//! Pi 1.6's own numbers for its own session (`rpc-compact.new.log`'s run): the context rebuilt
//! from Pi's compaction entry (checkpoint, summary, kept messages) estimates as Pi's
//! `estimateTokens` does, and the checkpoint rho would write for the context before that
//! compaction is the one Pi wrote (timestamp aside).

use rho_host::compaction::{estimate_tokens, system_checkpoint};
use rho_session::SessionFile;
use serde_json::Value;

/// Pi 1.6.0's file, kept once, beside rho-session's tests of the same entries.
const PI16_FILE: &str =
    include_str!("../../../rho-session/tests/data/pi16-session-after-compact.jsonl");

fn open(text: &str) -> (tempfile::TempDir, SessionFile) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    std::fs::write(&path, text).unwrap();
    let (session, _) = SessionFile::open(&path).unwrap();
    (dir, session)
}

#[test]
fn the_context_rebuilt_from_pis_compaction_estimates_as_pis_estimate_tokens_does() {
    let (_dir, session) = open(PI16_FILE);
    let messages = session.context().messages;
    let each: Vec<(&str, u64)> = messages
        .iter()
        .map(|m| (m.role(), estimate_tokens(m)))
        .collect();
    // Pi 1.6's `estimateTokens` over `buildSessionProjection` of this file, run under Node 22.
    // (Pi's live run reported 1333, two more: its in-memory tool objects were not quite what it
    // persisted.)
    assert_eq!(
        each,
        [
            ("system", 1302),
            ("compactionSummary", 18),
            ("user", 4),
            ("assistant", 7)
        ]
    );
}

#[test]
fn the_checkpoint_of_the_context_before_pis_compaction_is_the_one_pi_wrote() {
    let (_dir, session) = open(PI16_FILE);
    let before = session.context_at("58e36ed5").messages;
    let compaction: Value = PI16_FILE
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e["type"] == "compaction")
        .unwrap();
    let written = &compaction["systemMessage"];
    let timestamp = written["timestamp"].as_i64().unwrap();
    assert_eq!(
        system_checkpoint(&before, timestamp).unwrap().to_string(),
        written.to_string()
    );
}
