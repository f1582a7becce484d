//! The durability promise under SIGKILL: every `message_end` rho printed is already in the
//! session file (entries are appended before their event is emitted), the file reopens after a
//! kill at any point, and `--continue` carries on from it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::Stdio;

use serde_json::{Value, json};

use crate::cli_sessions::{lines, rho, session_files};

/// Six turns: text streamed in many chunks, `bash` calls (one sleeping briefly, so some kills
/// land while a tool runs), a `write`, a `read`, and a final answer.
fn crash_script() -> Value {
    let long_text = "All work and no play makes rho a dull agent. ".repeat(8);
    json!({"turns": [
        [{"type": "text", "text": long_text}, {"type": "tool_call", "name": "bash", "arguments": {"command": "echo one"}}],
        [{"type": "tool_call", "name": "bash", "arguments": {"command": "sleep 0.05; echo two"}},
         {"type": "tool_call", "name": "write", "arguments": {"path": "notes.txt", "content": "three\n"}}],
        [{"type": "text", "text": long_text}, {"type": "tool_call", "name": "read", "arguments": {"path": "notes.txt"}}],
        [{"type": "tool_call", "name": "bash", "arguments": {"command": "sleep 0.05; echo four"}}],
        [{"type": "text", "text": long_text}, {"type": "tool_call", "name": "bash", "arguments": {"command": "echo five"}}],
        [{"type": "text", "text": "Done."}]
    ]})
}

/// The messages of the `message_end` events among `events`.
fn printed_messages(events: &[Value]) -> Vec<Value> {
    events
        .iter()
        .filter(|e| e["type"] == "message_end")
        .map(|e| e["message"].clone())
        .collect()
}

/// The messages of a session file's `message` entries.
fn stored_messages(path: &Path) -> Vec<Value> {
    lines(path)
        .into_iter()
        .filter(|l| l["type"] == "message")
        .map(|l| l["message"].clone())
        .collect()
}

/// Runs the script to the end, returning every line printed.
fn full_run(dir: &Path, script: &Path) -> Vec<Value> {
    let output = rho(dir)
        .args(["--mode", "json", "--faux-script"])
        .arg(script)
        .arg("go")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Starts the run and SIGKILLs it as soon as its `kill_at`-th line (1-based) is printed;
/// returns the lines printed before it died.
fn killed_run(dir: &Path, script: &Path, kill_at: usize) -> Vec<Value> {
    let mut child = rho(dir)
        .args(["--mode", "json", "--faux-script"])
        .arg(script)
        .arg("go")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut printed = Vec::new();
    let mut line = String::new();
    while printed.len() < kill_at && stdout.read_line(&mut line).unwrap() > 0 {
        printed.push(std::mem::take(&mut line));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    // What the process wrote before it died is still in the pipe.
    let mut rest = String::new();
    stdout.read_to_string(&mut rest).unwrap();
    let mut text = printed.concat();
    text.push_str(&rest);
    // A line cut off by the kill is not an event that was printed.
    text.lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

#[test]
fn a_session_killed_at_any_of_50_points_keeps_every_printed_entry_and_continues() {
    let root = tempfile::tempdir().unwrap();
    let script = root.path().join("script.json");
    std::fs::write(&script, crash_script().to_string()).unwrap();
    let resume = root.path().join("resume.json");
    std::fs::write(
        &resume,
        json!({"turns": [[{"type": "text", "text": "Resumed."}]]}).to_string(),
    )
    .unwrap();

    let reference = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(reference.path().join("project")).unwrap();
    let total = full_run(reference.path(), &script).len();
    assert!(
        total > 60,
        "the script prints {total} lines, too few to spread 50 kills over"
    );

    for point in 0..50 {
        // Spread over the whole run: during streaming, during tools, between entries.
        let kill_at = 1 + point * (total - 2) / 49;
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("project")).unwrap();
        let printed = killed_run(dir.path(), &script, kill_at);
        // As in Pi 1.6, the file is written at the first user or assistant message (the
        // system message that opens the session waits for it): killed before it, the run
        // printed no such message either.
        let Some(file) = session_files(dir.path()).pop() else {
            assert!(
                printed_messages(&printed)
                    .iter()
                    .all(|m| m["role"] == "system"),
                "kill at line {kill_at}: messages were printed but no file was written"
            );
            continue;
        };

        let (reopened, warnings) = rho_session::SessionFile::open(&file)
            .unwrap_or_else(|e| panic!("kill at line {kill_at}: the file does not reopen: {e}"));
        drop(reopened);
        assert!(
            warnings
                .iter()
                .all(|w| matches!(w, rho_session::OpenWarning::TornLastLine { .. })),
            "kill at line {kill_at}: {warnings:?}"
        );
        let printed = printed_messages(&printed);
        let stored = stored_messages(&file);
        assert_eq!(
            stored[..printed.len().min(stored.len())],
            printed[..],
            "kill at line {kill_at}: a printed message is missing from the file"
        );
        assert!(
            stored.len() <= printed.len() + 1,
            "kill at line {kill_at}: more stored than one entry ahead of the output"
        );

        let output = rho(dir.path())
            .args(["-p", "--continue", "--faux-script"])
            .arg(&resume)
            .arg("carry on")
            .output()
            .unwrap();
        assert_eq!(
            (
                output.status.code(),
                String::from_utf8(output.stdout).unwrap()
            ),
            (Some(0), "Resumed.\n".to_owned()),
            "kill at line {kill_at}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let after = stored_messages(&file);
        assert_eq!(after[..stored.len()], stored[..]);
        assert_eq!(
            after[stored.len()..]
                .iter()
                .map(|m| m["role"].clone())
                .collect::<Vec<_>>(),
            [json!("user"), json!("assistant")]
        );
    }
}
