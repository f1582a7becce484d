#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};

use super::{tree_filter_setting, tree_rows};
use rho_session::SessionFile;
use rho_tui::sessions::{TreeEntryKind, TreeFilter};

fn entry(kind: &str, id: &str, parent: Option<&str>, fields: Value) -> Value {
    let mut e = json!({"type": kind, "id": id, "parentId": parent,
                       "timestamp": "2026-05-07T10:00:00.000Z"});
    for (k, v) in fields.as_object().unwrap() {
        e[k] = v.clone();
    }
    e
}

fn assistant(content: Value) -> Value {
    json!({"role": "assistant", "content": content, "api": "openai-completions",
           "provider": "mock", "model": "a", "stopReason": "stop", "timestamp": 2,
           "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
                     "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}}})
}

/// A Pi v3 file with an entry of every kind the tree tells apart, the last one the leaf.
fn file(dir: &std::path::Path) -> SessionFile {
    let lines = [
        json!({"type": "session", "version": 3, "id": "s", "timestamp": "2026-05-07T10:00:00.000Z",
               "cwd": "/w"}),
        entry(
            "model_change",
            "m1",
            None,
            json!({"provider": "mock", "modelId": "a"}),
        ),
        entry(
            "thinking_level_change",
            "t1",
            Some("m1"),
            json!({"thinkingLevel": "high"}),
        ),
        entry(
            "message",
            "u1",
            Some("t1"),
            json!({"message": {"role": "user", "content": "list files", "timestamp": 1}}),
        ),
        entry(
            "message",
            "a1",
            Some("u1"),
            json!({"message": assistant(json!([
                {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "ls"}}
            ]))}),
        ),
        entry(
            "message",
            "r1",
            Some("a1"),
            json!({"message": {"role": "toolResult",
            "toolCallId": "c1", "toolName": "bash", "content": [{"type": "text", "text": "a"}],
            "isError": false, "timestamp": 3}}),
        ),
        entry(
            "message",
            "a2",
            Some("r1"),
            json!({"message": assistant(json!([{"type": "text", "text": "one file"}]))}),
        ),
        entry(
            "label",
            "l1",
            Some("a2"),
            json!({"targetId": "u1", "label": "start"}),
        ),
        entry(
            "label",
            "l2",
            Some("l1"),
            json!({"targetId": "a2", "label": "old"}),
        ),
        entry("label", "l3", Some("l2"), json!({"targetId": "a2"})),
        entry("session_info", "n1", Some("l3"), json!({"name": "Files"})),
        entry("custom", "x1", Some("n1"), json!({"customType": "ext"})),
    ];
    let path = dir.join("s.jsonl");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, text).unwrap();
    SessionFile::open(&path).unwrap().0
}

#[test]
fn every_entry_has_a_row_with_its_kind_its_text_and_its_latest_label() {
    let dir = tempfile::tempdir().unwrap();
    let rows = tree_rows(&file(dir.path()));
    let seen: Vec<(&str, TreeEntryKind, &str, Option<&str>)> = rows
        .iter()
        .map(|r| {
            (
                r.entry_id.as_str(),
                r.kind,
                r.text.as_str(),
                r.label.as_deref(),
            )
        })
        .collect();
    use TreeEntryKind::{Bookkeeping, Conversation, ToolResult, UserMessage};
    assert_eq!(
        seen,
        [
            ("m1", Bookkeeping, "[model: mock/a]", None),
            ("t1", Bookkeeping, "[thinking: high]", None),
            ("u1", UserMessage, "user: \"list files\"", Some("start")),
            ("a1", Conversation, "assistant: [bash]", None),
            ("r1", ToolResult, "[bash result]", None),
            // Its label was cleared by a later `label` entry without one.
            ("a2", Conversation, "assistant: \"one file\"", None),
            ("l1", Bookkeeping, "[label: start]", None),
            ("l2", Bookkeeping, "[label: old]", None),
            ("l3", Bookkeeping, "[label: (cleared)]", None),
            ("n1", Bookkeeping, "[title: Files]", None),
            ("x1", Bookkeeping, "[custom: ext]", None),
        ]
    );
    assert_eq!(rows[2].parent_id.as_deref(), Some("t1"));
    let current: Vec<&str> = rows
        .iter()
        .filter(|r| r.current)
        .map(|r| r.entry_id.as_str())
        .collect();
    assert_eq!(current, ["x1"]);
    assert!(rows.iter().all(|r| r.on_branch));
}

#[test]
fn the_tree_filter_setting_comes_from_the_project_before_the_global_settings() {
    let home = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    assert_eq!(
        tree_filter_setting(Some(home.path()), cwd.path()),
        TreeFilter::Default
    );
    std::fs::write(
        home.path().join("settings.json"),
        r#"{"treeFilterMode": "user-only"}"#,
    )
    .unwrap();
    assert_eq!(
        tree_filter_setting(Some(home.path()), cwd.path()),
        TreeFilter::UserOnly
    );
    std::fs::create_dir_all(cwd.path().join(".rho")).unwrap();
    std::fs::write(
        cwd.path().join(".rho/settings.json"),
        r#"{"treeFilterMode": "no-tools"}"#,
    )
    .unwrap();
    assert_eq!(
        tree_filter_setting(Some(home.path()), cwd.path()),
        TreeFilter::NoTools
    );
    std::fs::write(
        cwd.path().join(".rho/settings.json"),
        r#"{"treeFilterMode": "sideways"}"#,
    )
    .unwrap();
    assert_eq!(
        tree_filter_setting(Some(home.path()), cwd.path()),
        TreeFilter::Default
    );
}
