//! Pi's own `RpcClient` (from the npm package `@mariozechner/pi-coding-agent@0.73.1`) drives
//! `rho --mode rpc` through `tests/rpc_client/drive.mjs`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::process::Command;

use serde_json::{Value, json};

/// Where the shared peers script (and CI) installs Pi:
/// `$PEER_HOME/pi-coding-agent` (default `~/.cache/rho-peers/pi-coding-agent`).
fn pi_package_dir() -> PathBuf {
    let peers = std::env::var_os("PEER_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").expect("HOME is set")).join(".cache/rho-peers")
        });
    peers.join("pi-coding-agent/node_modules/@mariozechner/pi-coding-agent")
}

fn node_is_installed() -> bool {
    Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success())
}

#[test]
fn pis_rpc_client_drives_rho_through_a_tool_call_and_reads_state_messages_and_stats() {
    let node = node_is_installed()
        .then_some(())
        .ok_or_else(|| "node is not installed".to_owned());
    if rho_testkit::prerequisite::require("Pi's RpcClient needs Node", node).is_none() {
        return;
    }
    let package = pi_package_dir();
    assert!(
        package.join("package.json").is_file(),
        "Pi is not installed at {}; install it with: mkdir -p \"${{PEER_HOME:-$HOME/.cache/rho-peers}}/pi-coding-agent\" && cd \"${{PEER_HOME:-$HOME/.cache/rho-peers}}/pi-coding-agent\" && npm install --no-audit --no-fund @mariozechner/pi-coding-agent@0.73.1",
        package.display()
    );
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.json");
    let turns = json!({"turns": [
        [{"type": "text", "text": "Asking bash."}, {"type": "tool_call", "name": "bash", "arguments": {"command": "echo hi"}}],
        [{"type": "text", "text": "Bash said hi."}]
    ]});
    std::fs::write(&script, turns.to_string()).unwrap();
    let driver = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/rpc_client/drive.mjs");
    let output = Command::new("node")
        .arg(&driver)
        .env("RHO_BIN", env!("CARGO_BIN_EXE_rho"))
        .env("RHO_FAUX_SCRIPT", &script)
        .env("RHO_CWD", dir.path())
        .env("RHO_HOME", dir.path().join(".rho-home"))
        .env("PI_PACKAGE_DIR", &package)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "drive.mjs failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let message =
        |role: &str, stop: Option<&str>, tool: Option<&str>, error: Option<bool>, text: &str| {
            let mut m = json!({"role": role, "text": text});
            if let Some(stop) = stop {
                m["stopReason"] = json!(stop);
            }
            if let Some(tool) = tool {
                m["toolName"] = json!(tool);
            }
            if let Some(error) = error {
                m["isError"] = json!(error);
            }
            m
        };
    assert_eq!(
        report,
        json!({
            "eventTypes": [
                "agent_start", "turn_start", "message_start", "message_end",
                "message_start", "message_end", "message_start", "message_end",
                "tool_execution_start", "tool_execution_end",
                "message_start", "message_end", "turn_end", "turn_start",
                "message_start", "message_end", "turn_end", "agent_end"
            ],
            "messages": [
                message("system", None, None, None, ""),
                message("user", None, None, None, "Say hi with bash"),
                message("assistant", Some("toolUse"), None, None, "Asking bash."),
                message("toolResult", None, Some("bash"), Some(false), "hi\n"),
                message("assistant", Some("stop"), None, None, "Bash said hi."),
            ],
            "state": {
                "model": "faux/faux-1", "thinkingLevel": "off", "isStreaming": false,
                "messageCount": 5, "pendingMessageCount": 0,
                "steeringMode": "one-at-a-time", "followUpMode": "one-at-a-time"
            },
            "lastAssistantText": "Bash said hi.",
            "stats": {
                "userMessages": 1, "assistantMessages": 2, "toolCalls": 1, "toolResults": 1,
                "totalMessages": 5, "sessionIdMatches": true
            },
            "unknownCommand": {
                "id": "u1", "type": "response", "command": "no_such_command", "success": false,
                "error": "Unknown command: no_such_command"
            }
        })
    );
}
