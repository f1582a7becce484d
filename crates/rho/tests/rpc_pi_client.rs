//! Pi's own `RpcClient` — 1.6.0's (`@earendil-works/pi-coding-agent`), the one Pi users run
//! now, and 0.73.1's — drives `rho --mode rpc` through `tests/rpc_client/drive.mjs`: every
//! method of the 1.6 client.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::process::Command;

use serde_json::{Value, json};

use crate::peers::{Pi, pi_16, pi_073};

#[test]
fn pi_1_6s_rpc_client_drives_rho_through_a_tool_call_and_its_new_methods() {
    let Some(pi) = pi_16() else {
        return;
    };
    let report = drive(&pi);
    assert_eq!(report["disposition"], json!("started"));
    assert_common(&report);
    assert_eq!(report["levels"], json!(["off"]));
    assert_eq!(report["cleared"], json!({"steering": [], "followUp": []}));
    assert_eq!(
        report["entryTypes"],
        json!([
            "model_change",
            "thinking_level_change",
            "message:system",
            "message:user",
            "message:assistant",
            "message:toolResult",
            "message:assistant"
        ])
    );
    assert_eq!(report["leafIsLast"], true);
    assert_eq!(report["treeDepth"], 7);
    assert_eq!(report["treeLeaf"], true);
    // Every other method of the 1.6 client, through rho.
    assert_eq!(
        report["methods"],
        json!({
            "steer": "queued",
            "followUp": "queued",
            "clearedQueued": {"steering": ["later"], "followUp": ["after that"]},
            "models": ["faux/faux-1"],
            "setModel": "faux-1",
            "cycleModel": null,
            "cycleThinkingLevel": null,
            "bash": ["from-bash\n", 0, false],
            // `/mcp`, as Pi's built-in MCP extension lists it.
            "commands": 1,
            "forkTexts": ["Say hi with bash"],
            "exported": true,
            "fork": ["Say hi with bash", false],
            "clone": false,
            "newSession": false,
            "switchSession": false,
            "backOnFirst": true,
            "name": "driven",
            "compact": ["## Goal\nSay hi with bash.", "number", "string"]
        })
    );
}

#[test]
fn pi_0_73s_rpc_client_still_drives_rho() {
    let Some(pi) = pi_073() else {
        return;
    };
    let report = drive(&pi);
    assert_eq!(report["disposition"], Value::Null);
    assert_common(&report);
}

/// Runs `drive.mjs` with `pi`'s RpcClient against rho on a scripted bash call.
fn drive(pi: &Pi) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.json");
    let turns = json!({"turns": [
        [{"type": "text", "text": "Asking bash."}, {"type": "tool_call", "name": "bash", "arguments": {"command": "echo hi"}}],
        [{"type": "text", "text": "Bash said hi."}],
        [{"type": "text", "text": "## Goal\nSay hi with bash."}]
    ]});
    std::fs::write(&script, turns.to_string()).unwrap();
    let driver = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/rpc_client/drive.mjs");
    let output = Command::new(&pi.node)
        .arg(&driver)
        .env("RHO_BIN", env!("CARGO_BIN_EXE_rho"))
        .env("RHO_FAUX_SCRIPT", &script)
        .env("RHO_CWD", dir.path())
        .env("RHO_HOME", dir.path().join(".rho-home"))
        .env("PI_PACKAGE_DIR", &pi.package)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "drive.mjs failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// What both clients see the same way: the events, the transcript, state, stats and the
/// unknown command's answer.
fn assert_common(report: &Value) {
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
    let common: Value = [
        "eventTypes",
        "messages",
        "state",
        "lastAssistantText",
        "stats",
        "unknownCommand",
    ]
    .iter()
    .map(|key| ((*key).to_owned(), report[*key].clone()))
    .collect::<serde_json::Map<_, _>>()
    .into();
    assert_eq!(
        common,
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
