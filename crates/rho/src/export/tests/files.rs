//! `export_session_file`: what it reads, where it writes, and how it fails.

use std::path::Path;

use super::header;
use crate::export::{export_session_file, render_html};

/// A session file as Pi writes it: a compaction, kept messages after it, and a name.
const SESSION: &str = r#"{"type":"session","version":3,"id":"0191-abc","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/home/u/project"}
{"type":"message","id":"e1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"old question"}],"timestamp":1767225600000}}
{"type":"message","id":"e2","parentId":"e1","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"kept question"}],"timestamp":1767225601000}}
{"type":"compaction","id":"e3","parentId":"e2","timestamp":"2026-01-01T00:00:02.000Z","summary":"We talked.","firstKeptEntryId":"e2","tokensBefore":5000}
{"type":"session_info","id":"e4","parentId":"e3","timestamp":"2026-01-01T00:00:03.000Z","name":"My <session>"}
"#;

#[test]
fn export_writes_the_default_name_into_cwd() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s1.jsonl"), SESSION).unwrap();

    let path = export_session_file(Path::new("s1.jsonl"), None, dir.path()).unwrap();

    assert_eq!(path, dir.path().join("rho-session-s1.html"));
    let html = std::fs::read_to_string(&path).unwrap();
    let context = rho_session::SessionFile::open(&dir.path().join("s1.jsonl"))
        .unwrap()
        .0
        .context();
    assert_eq!(
        html,
        render_html(&header(), Some("My <session>"), &context.messages)
    );
    assert!(html.contains("<title>My &lt;session&gt;</title>"));
    assert!(html.contains("Compacted from 5,000 tokens"));
    assert!(html.contains("kept question"));
    // The page shows the context: what compaction replaced appears only as its summary.
    assert!(!html.contains("old question"));
}

#[test]
fn export_writes_a_relative_output_path_under_cwd() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("s1.jsonl");
    std::fs::write(&input, SESSION).unwrap();

    let path = export_session_file(&input, Some(Path::new("out.html")), dir.path()).unwrap();

    assert_eq!(path, dir.path().join("out.html"));
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .starts_with("<!DOCTYPE html>")
    );
}

#[test]
fn exporting_a_missing_file_says_file_not_found() {
    let dir = tempfile::tempdir().unwrap();
    let error = export_session_file(Path::new("nope.jsonl"), None, dir.path()).unwrap_err();
    assert_eq!(error.to_string(), "File not found: nope.jsonl");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn exporting_a_file_that_is_not_a_session_fails_and_leaves_it_alone() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("notes.txt");
    std::fs::write(&input, "just some notes\n").unwrap();

    let error = export_session_file(&input, None, dir.path()).unwrap_err();

    assert!(matches!(
        error.downcast_ref::<rho_session::SessionError>(),
        Some(rho_session::SessionError::NotASessionFile { .. })
    ));
    assert_eq!(
        std::fs::read_to_string(&input).unwrap(),
        "just some notes\n"
    );
    assert!(!dir.path().join("rho-session-notes.txt.html").exists());
}

#[test]
fn an_unwritable_output_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s1.jsonl"), SESSION).unwrap();
    let error = export_session_file(
        Path::new("s1.jsonl"),
        Some(Path::new("no/such/dir/out.html")),
        dir.path(),
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "cannot write {}",
            dir.path().join("no/such/dir/out.html").display()
        )
    );
}
