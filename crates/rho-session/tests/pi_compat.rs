//! A session file as Pi 0.73.1 writes it (docs/session-format.md), with a compaction on the
//! main line and a branch with a summary.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_ai::AgentMessage;
use rho_session::{ModelRef, SessionContext, SessionFile};
use serde_json::{Value, json};

fn usage() -> Value {
    json!({"input":10,"output":5,"cacheRead":0,"cacheWrite":0,"totalTokens":15,
           "cost":{"input":0.1,"output":0.2,"cacheRead":0,"cacheWrite":0,"total":0.3}})
}

fn assistant(content: Value, stop: &str, ts: i64) -> Value {
    json!({"role":"assistant","content":content,"api":"anthropic-messages","provider":"anthropic",
           "model":"claude-sonnet-4-5","usage":usage(),"stopReason":stop,"timestamp":ts})
}

fn entry(kind: &str, id: &str, parent: Option<&str>, second: u32, fields: Value) -> Value {
    let mut e = json!({"type":kind,"id":id,"parentId":parent,
                       "timestamp":format!("2026-05-07T10:00:{second:02}.000Z")});
    for (k, v) in fields.as_object().unwrap() {
        e[k] = v.clone();
    }
    e
}

fn msg(v: &Value) -> AgentMessage {
    serde_json::from_value(v.clone()).unwrap()
}

struct Fixture {
    lines: Vec<Value>,
    u1: Value,
    a1: Value,
    t1: Value,
    a2: Value,
    u2: Value,
    a3: Value,
    u3: Value,
    a4: Value,
    u4: Value,
    a5: Value,
}

fn fixture() -> Fixture {
    let u1 =
        json!({"role":"user","content":[{"type":"text","text":"List the files"}],"timestamp":1});
    let a1 = assistant(
        json!([{"type":"thinking","thinking":"ls it","thinkingSignature":"sig"},
        {"type":"toolCall","id":"toolu_1","name":"bash","arguments":{"command":"ls"}}]),
        "toolUse",
        2,
    );
    let t1 = json!({"role":"toolResult","toolCallId":"toolu_1","toolName":"bash",
        "content":[{"type":"text","text":"a.txt\nb.txt"}],"details":{"exit":0},"isError":false,"timestamp":3});
    let a2 = assistant(
        json!([{"type":"text","text":"There are two files."}]),
        "stop",
        4,
    );
    let u2 = json!({"role":"user","content":"Read a.txt","timestamp":5});
    let a3 = assistant(json!([{"type":"text","text":"It says hi."}]), "stop", 6);
    let u3 = json!({"role":"user","content":[{"type":"text","text":"Thanks"}],"timestamp":7});
    let a4 = assistant(json!([{"type":"text","text":"You're welcome."}]), "stop", 8);
    let u4 =
        json!({"role":"user","content":[{"type":"text","text":"Try another way"}],"timestamp":9});
    let mut a5 = assistant(json!([{"type":"text","text":"Another way."}]), "stop", 10);
    a5["provider"] = json!("openai");
    a5["model"] = json!("gpt-4o");
    let lines = vec![
        json!({"type":"session","version":3,"id":"0196a1b2-0000-7000-8000-000000000001",
               "timestamp":"2026-05-07T10:00:00.000Z","cwd":"/home/u/proj"}),
        entry(
            "model_change",
            "e1000001",
            None,
            1,
            json!({"provider":"anthropic","modelId":"claude-sonnet-4-5"}),
        ),
        entry(
            "thinking_level_change",
            "e1000002",
            Some("e1000001"),
            1,
            json!({"thinkingLevel":"medium"}),
        ),
        entry(
            "message",
            "a1b2c3d4",
            Some("e1000002"),
            2,
            json!({"message":u1}),
        ),
        entry(
            "message",
            "a1b2c3d5",
            Some("a1b2c3d4"),
            3,
            json!({"message":a1}),
        ),
        entry(
            "message",
            "a1b2c3d6",
            Some("a1b2c3d5"),
            4,
            json!({"message":t1}),
        ),
        entry(
            "message",
            "a1b2c3d7",
            Some("a1b2c3d6"),
            5,
            json!({"message":a2}),
        ),
        entry(
            "message",
            "a1b2c3d8",
            Some("a1b2c3d7"),
            6,
            json!({"message":u2}),
        ),
        entry(
            "message",
            "a1b2c3d9",
            Some("a1b2c3d8"),
            7,
            json!({"message":a3}),
        ),
        entry(
            "compaction",
            "c0c0c0c0",
            Some("a1b2c3d9"),
            8,
            json!({"summary":"## Goal\nList files",
            "firstKeptEntryId":"a1b2c3d8","tokensBefore":1234,
            "details":{"readFiles":["a.txt"],"modifiedFiles":[]}}),
        ),
        entry(
            "message",
            "a1b2c3da",
            Some("c0c0c0c0"),
            9,
            json!({"message":u3}),
        ),
        json!({"type":"custom_message","customType":"note","content":"remember this","display":true,
               "id":"cm000001","parentId":"a1b2c3da","timestamp":"2026-05-07T10:00:10.000Z"}),
        entry(
            "message",
            "a1b2c3db",
            Some("cm000001"),
            11,
            json!({"message":a4}),
        ),
        entry(
            "label",
            "1abe1000",
            Some("a1b2c3db"),
            12,
            json!({"targetId":"a1b2c3d7","label":"fork here"}),
        ),
        entry(
            "branch_summary",
            "b5000001",
            Some("a1b2c3d7"),
            13,
            json!({"fromId":"a1b2c3d7","summary":"Tried reading a.txt.","details":{"readFiles":[],"modifiedFiles":[]}}),
        ),
        entry(
            "message",
            "a1b2c3dc",
            Some("b5000001"),
            14,
            json!({"message":u4}),
        ),
        entry(
            "model_change",
            "e1000003",
            Some("a1b2c3dc"),
            15,
            json!({"provider":"openai","modelId":"gpt-4o"}),
        ),
        entry(
            "message",
            "a1b2c3dd",
            Some("e1000003"),
            16,
            json!({"message":a5}),
        ),
        entry(
            "session_info",
            "5e550001",
            Some("a1b2c3dd"),
            17,
            json!({"name":"  Files  "}),
        ),
    ];
    Fixture {
        lines,
        u1,
        a1,
        t1,
        a2,
        u2,
        a3,
        u3,
        a4,
        u4,
        a5,
    }
}

fn write(dir: &std::path::Path, lines: &[Value]) -> std::path::PathBuf {
    let path = dir.join("2026-05-07T10-00-00-000Z_0196a1b2-0000-7000-8000-000000000001.jsonl");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_pi_session_rebuilds_the_branch_at_the_last_entry() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture();
    let path = write(dir.path(), &f.lines);
    let (session, warnings) = SessionFile::open(&path).unwrap();
    assert_eq!(warnings, vec![]);
    assert_eq!(session.entries().len(), f.lines.len() - 1);
    assert_eq!(session.leaf_id(), Some("5e550001"));
    assert_eq!(session.session_name().as_deref(), Some("Files"));
    assert_eq!(session.label("a1b2c3d7").as_deref(), Some("fork here"));
    let branch_summary = json!({"role":"branchSummary","summary":"Tried reading a.txt.",
        "fromId":"a1b2c3d7","timestamp":1_778_148_013_000_i64});
    assert_eq!(
        session.context(),
        SessionContext {
            messages: vec![
                msg(&f.u1),
                msg(&f.a1),
                msg(&f.t1),
                msg(&f.a2),
                msg(&branch_summary),
                msg(&f.u4),
                msg(&f.a5)
            ],
            thinking_level: "medium".into(),
            model: Some(ModelRef {
                provider: "openai".into(),
                model_id: "gpt-4o".into()
            }),
            skipped: vec![],
        }
    );
}

#[test]
fn a_pi_session_applies_the_compaction_on_the_main_line() {
    let dir = tempfile::tempdir().unwrap();
    let f = fixture();
    let path = write(dir.path(), &f.lines);
    let (session, _) = SessionFile::open(&path).unwrap();
    let summary = json!({"role":"compactionSummary","summary":"## Goal\nList files",
        "tokensBefore":1234,"timestamp":1_778_148_008_000_i64});
    let custom = json!({"role":"custom","customType":"note","content":"remember this",
        "display":true,"timestamp":1_778_148_010_000_i64});
    assert_eq!(
        session.context_at("a1b2c3db"),
        SessionContext {
            messages: vec![
                msg(&summary),
                msg(&f.u2),
                msg(&f.a3),
                msg(&f.u3),
                msg(&custom),
                msg(&f.a4)
            ],
            thinking_level: "medium".into(),
            model: Some(ModelRef {
                provider: "anthropic".into(),
                model_id: "claude-sonnet-4-5".into()
            }),
            skipped: vec![],
        }
    );
    // The messages serialize back exactly as Pi wrote them.
    let written: Vec<Value> = session
        .context_at("a1b2c3db")
        .messages
        .iter()
        .map(|m| serde_json::to_value(m).unwrap())
        .collect();
    assert_eq!(written, vec![summary, f.u2, f.a3, f.u3, custom, f.a4]);
}

#[test]
fn a_pi_session_lists_its_user_messages_as_fork_points() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), &fixture().lines);
    let (session, _) = SessionFile::open(&path).unwrap();
    let points: Vec<(String, String)> = session
        .fork_messages()
        .into_iter()
        .map(|m| (m.entry_id, m.text))
        .collect();
    let expected = [
        ("a1b2c3d4", "List the files"),
        ("a1b2c3d8", "Read a.txt"),
        ("a1b2c3da", "Thanks"),
        ("a1b2c3dc", "Try another way"),
    ];
    assert_eq!(
        points,
        expected.map(|(a, b)| (a.to_owned(), b.to_owned())).to_vec()
    );
}

#[test]
fn a_version_1_session_is_migrated_to_a_chained_tree() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.jsonl");
    std::fs::write(&path, concat!(
        r#"{"type":"session","id":"old","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}"#, "\n",
        r#"{"type":"message","timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"one","timestamp":1}}"#, "\n",
        r#"{"type":"message","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"hookMessage","customType":"x","content":"hook","display":true,"timestamp":2}}"#, "\n",
        r#"{"type":"compaction","timestamp":"2025-01-01T00:00:03.000Z","summary":"S","firstKeptEntryIndex":2,"tokensBefore":9}"#, "\n",
    )).unwrap();
    let (session, warnings) = SessionFile::open(&path).unwrap();
    assert_eq!(
        warnings,
        vec![rho_session::OpenWarning::Migrated { from_version: 1 }]
    );
    let e = session.entries();
    assert_eq!(
        (
            e[0].parent_id.clone(),
            e[1].parent_id.clone(),
            e[2].parent_id.clone()
        ),
        (None, Some(e[0].id.clone()), Some(e[1].id.clone()))
    );
    let on_disk: Vec<Value> = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(on_disk[0]["version"], 3);
    assert_eq!(on_disk[2]["message"]["role"], "custom");
    assert_eq!(on_disk[3]["firstKeptEntryId"], json!(e[1].id));
    assert_eq!(on_disk[3].get("firstKeptEntryIndex"), None);
    let roles: Vec<String> = session
        .context()
        .messages
        .iter()
        .map(|m| m.role().to_owned())
        .collect();
    assert_eq!(roles, ["compactionSummary", "custom"]);
}
