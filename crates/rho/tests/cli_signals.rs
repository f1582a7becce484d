//! SIGTERM, SIGINT and SIGHUP end a run cleanly: the run is aborted, `agent_settled` says
//! `aborted`, and the exit code names the signal (contract §3).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use serde_json::{Value, json};

/// Starts a run whose tool blocks (a command that sleeps), waits for `tool_execution_start`,
/// sends `signal`, and returns the exit code and the events. (A FIFO no longer blocks a tool:
/// the file tools refuse it at once.)
fn interrupt_blocked_tool(signal: &str) -> (Option<i32>, Vec<Value>) {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.json");
    let turns = json!({"turns": [
        [{"type": "tool_call", "name": "bash", "arguments": {"command": "sleep 60"}}],
        [{"type": "text", "text": "never reached"}]
    ]});
    std::fs::write(&script, turns.to_string()).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_rho"))
        // rho's home inside the target directory, not the user's `~/.rho`.
        .env(
            "RHO_HOME",
            concat!(env!("CARGO_TARGET_TMPDIR"), "/rho-home"),
        )
        .current_dir(dir.path())
        .args(["--mode", "json", "--faux-script"])
        .arg(&script)
        .arg("sleep")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut events = Vec::new();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    for line in lines.by_ref() {
        let event: Value = serde_json::from_str(&line.unwrap()).unwrap();
        let started = event["type"] == "tool_execution_start";
        events.push(event);
        if started {
            let kill = Command::new("kill")
                .args([signal, &child.id().to_string()])
                .status()
                .unwrap();
            assert!(kill.success());
            break;
        }
    }
    for line in lines {
        events.push(serde_json::from_str(&line.unwrap()).unwrap());
    }
    (child.wait().unwrap().code(), events)
}

#[test]
fn sigterm_aborts_the_running_tool_and_exits_143() {
    let (code, events) = interrupt_blocked_tool("-TERM");
    assert_eq!(code, Some(143));
    let result = events
        .iter()
        .find(|e| e["type"] == "tool_execution_end")
        .expect("the aborted tool still ends");
    assert_eq!(result["isError"], true);
    assert_eq!(result["result"]["content"][0]["text"], "Command aborted");
    let settled = events.last().unwrap();
    assert_eq!(settled["type"], "agent_settled");
    assert_eq!(settled["reason"], "aborted");
}

#[test]
fn sigint_exits_130_and_sighup_exits_129() {
    assert_eq!(interrupt_blocked_tool("-INT").0, Some(130));
    assert_eq!(interrupt_blocked_tool("-HUP").0, Some(129));
}
