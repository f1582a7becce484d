//! Budgets on the command line: a run stopped by `--max-turns` exits 3 and says `budget` in its
//! last line; a bad budget value is a failure before the model (exit 2).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::{Output, Stdio};

use serde_json::{Value, json};

fn run(dir: &std::path::Path, args: &[&str]) -> Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_rho"))
        .current_dir(dir)
        .env_clear()
        .env("RHO_HOME", dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

#[test]
fn max_turns_stops_a_model_that_keeps_calling_tools_with_exit_3() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), "milk\n").unwrap();
    let script = json!({"turns": [], "fallback": [
        {"type": "tool_call", "name": "read", "arguments": {"path": "notes.txt"}}
    ]});
    std::fs::write(dir.path().join("loop.json"), script.to_string()).unwrap();
    let output = run(
        dir.path(),
        &[
            "--mode",
            "json",
            "--faux-script",
            "loop.json",
            "--max-turns",
            "1",
            "go",
        ],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(3), "{stderr}");
    let stdout = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let last = lines.last().unwrap();
    assert_eq!(
        (&last["type"], &last["reason"], &last["turns"]),
        (&json!("agent_settled"), &json!("budget"), &json!(1))
    );
    let tool_ends = lines
        .iter()
        .filter(|l| l["type"] == "tool_execution_end")
        .count();
    assert_eq!(tool_ends, 1, "the last allowed turn's tools still ran");
    let turn_starts = lines.iter().filter(|l| l["type"] == "turn_start").count();
    assert_eq!(turn_starts, 1, "no second model call");
}

#[test]
fn a_negative_max_cost_is_a_failure_before_the_model() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("s.json"),
        r#"{"turns": [[{"type": "text", "text": "hi"}]]}"#,
    )
    .unwrap();
    let output = run(
        dir.path(),
        &["-p", "--faux-script", "s.json", "--max-cost=-1", "go"],
    );
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&output.stderr)
            .trim_end()
            .lines()
            .count(),
        1,
        "one clear line"
    );
    assert!(output.stdout.is_empty());
}
