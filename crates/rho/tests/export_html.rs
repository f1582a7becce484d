//! `rho --export <session.jsonl> [out.html]` end to end (pi-reference §7.2): the page is
//! written, its path printed, and failures exit 1 with one line.
//!
//! The renderer itself is tested in `src/export/tests/`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::{Command, Output, Stdio};

/// A session as Pi writes it: one question and its answer, with a name.
const SESSION: &str = r#"{"type":"session","version":3,"id":"0191-abc","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}
{"type":"message","id":"e1","parentId":null,"timestamp":"2026-01-01T00:00:00.000Z","message":{"role":"user","content":[{"type":"text","text":"What is </script><script>alert(1)</script>?"}],"timestamp":1767225600000}}
{"type":"message","id":"e2","parentId":"e1","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"An attempt at injection."}],"api":"faux","provider":"faux","model":"m1","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1767225601000}}
{"type":"session_info","id":"e3","parentId":"e2","timestamp":"2026-01-01T00:00:02.000Z","name":"Injection talk"}
"#;

fn rho_export(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rho"))
        .current_dir(dir)
        .env_clear()
        .env("RHO_HOME", dir)
        .env("HOME", dir)
        .arg("--export")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

#[test]
fn export_writes_the_page_next_to_the_cwd_and_prints_its_path() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s1.jsonl"), SESSION).unwrap();

    let output = rho_export(dir.path(), &["s1.jsonl"]);

    let page = dir.path().join("rho-session-s1.html");
    assert_eq!(
        (output.status.code(), stdout(&output), stderr(&output)),
        (
            Some(0),
            format!("Exported to: {}\n", page.display()),
            String::new()
        )
    );
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<title>Injection talk</title>"));
    assert!(html.contains("What is &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;?"));
    assert!(html.contains("An attempt at injection."));
    assert!(!html.contains("<script"));
}

#[test]
fn export_writes_to_the_output_path_given() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s1.jsonl"), SESSION).unwrap();

    let output = rho_export(dir.path(), &["s1.jsonl", "page.html"]);

    let page = dir.path().join("page.html");
    assert_eq!(
        (output.status.code(), stdout(&output)),
        (Some(0), format!("Exported to: {}\n", page.display()))
    );
    assert!(
        std::fs::read_to_string(&page)
            .unwrap()
            .contains("Injection talk")
    );
}

#[test]
fn exporting_a_missing_file_exits_1_with_file_not_found() {
    let dir = tempfile::tempdir().unwrap();

    let output = rho_export(dir.path(), &["nope.jsonl"]);

    assert_eq!(
        (output.status.code(), stdout(&output), stderr(&output)),
        (
            Some(1),
            String::new(),
            "Error: File not found: nope.jsonl\n".to_owned()
        )
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}
