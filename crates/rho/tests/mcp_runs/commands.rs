//! The commands, through the rho binary: `rho mcp add|list|remove` (Pi 1.6's options, words and
//! exit codes), `/mcp` in `-p`, and in RPC (`get_commands`, a `handled` prompt, notices and
//! elicitation as Pi's `extension_ui_request`s).

use std::time::Duration;

use serde_json::{Value, json};

use super::harness::{McpArena, scripted};
use crate::rpc_protocol::harness::Rpc;

fn rho_mcp(arena: &McpArena, args: &[&str]) -> (i32, String, String) {
    let output = arena.rho(&[]).arg("mcp").args(args).output().unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

#[test]
fn rho_mcp_adds_lists_and_removes_servers_as_pi_does() {
    let arena = McpArena::new();
    let script = scripted().display().to_string();
    let global = arena.rho_home.join("mcp.json");
    let (code, out, _) = rho_mcp(&arena, &["list"]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        format!(
            "No MCP servers configured. Add them to {} or .rho/mcp.json.\n",
            global.display()
        )
    );

    let (code, out, err) = rho_mcp(
        &arena,
        &[
            "add",
            "demo",
            "--exposure",
            "direct",
            "--env",
            "A=1",
            "--",
            "python3",
            &script,
            "--no-resources",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        format!(
            "Added global MCP server \"demo\" in {}.\nCheck it with: rho mcp list\n",
            global.display()
        )
    );
    let written: Value = serde_json::from_str(&std::fs::read_to_string(&global).unwrap()).unwrap();
    assert_eq!(
        written,
        json!({"mcpServers": {"demo": {"command": "python3", "args": [script, "--no-resources"],
                                         "env": {"A": "1"}, "exposure": "direct"}}})
    );

    let (code, out, err) = rho_mcp(&arena, &["list"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "demo: connected, 17 tools (direct, global)");
    assert_eq!(lines[1], format!("  python3 {script} --no-resources"));
    assert!(lines[2].starts_with("  tools: echo, add, "), "{out}");

    // A broken entry fails the list (exit 1) and is named; the JSON form says the same.
    let (code, _, err) = rho_mcp(&arena, &["add", "web", "--url", "ftp://nowhere"]);
    assert_eq!(
        (code, err.trim()),
        (1, "server \"web\": url must be an http or https URL")
    );
    let (code, out, _) = rho_mcp(
        &arena,
        &["add", "down", "--", "python3", &script, "--exit-at-start"],
    );
    assert_eq!(code, 0, "{out}");
    let (code, out, _) = rho_mcp(&arena, &["list", "--json"]);
    assert_eq!(code, 1);
    let report: Value = serde_json::from_str(&out).unwrap();
    let down = &report["servers"][1];
    assert_eq!(down["name"], "down");
    assert_eq!(down["state"], "failed");
    assert_eq!(down["exposure"], "codemode");
    assert!(
        down["error"]
            .as_str()
            .unwrap()
            .contains("cannot start: no database"),
        "{down}"
    );

    let (code, out, _) = rho_mcp(&arena, &["remove", "down"]);
    assert_eq!(
        (code, out),
        (
            0,
            format!(
                "Removed global MCP server \"down\" from {}.\n",
                global.display()
            )
        )
    );
    let (code, _, err) = rho_mcp(&arena, &["remove", "demo", "-l"]);
    assert_eq!(code, 1);
    assert_eq!(
        err.trim(),
        format!(
            "No project MCP server named \"demo\" in {}. It is defined in {}; omit --local.",
            arena.project.join(".rho/mcp.json").display(),
            global.display()
        )
    );
    let (code, _, err) = rho_mcp(&arena, &["add", "x", "--cwd", "/tmp", "--url", "https://x"]);
    assert_eq!(
        (code, err.trim()),
        (1, "--cwd only applies to stdio servers.")
    );
    let (code, _, err) = rho_mcp(&arena, &["frobnicate"]);
    assert_eq!(code, 1);
    assert!(
        err.starts_with("Unknown mcp command \"frobnicate\"."),
        "{err}"
    );
}

#[test]
fn slash_mcp_in_print_mode_reports_the_servers_and_reconnects_one() {
    let arena = McpArena::new();
    arena.global(json!({"demo": arena.server("demo", &["--no-resources"], json!({}))}));
    let script = arena.base.join("script.json");
    std::fs::write(
        &script,
        json!({"turns": [[{"type": "text", "text": "answered"}]]}).to_string(),
    )
    .unwrap();
    let output = arena
        .rho(&[])
        .arg("-p")
        .arg("--no-session")
        .arg("--faux-script")
        .arg(&script)
        .args([
            "/mcp",
            "/mcp reconnect demo",
            "/mcp reconnect nope",
            "hello",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(
        stdout,
        "demo: connected, 17 tools (direct)\n\
         Reconnected to MCP server \"demo\" (connected · 17 tools).\n\
         answered\n"
    );
    assert!(
        stderr.contains("error: No MCP server named \"nope\"."),
        "{stderr}"
    );
}

#[test]
fn rpc_lists_mcp_answers_it_handled_and_asks_elicitation_through_extension_ui_requests() {
    let arena = McpArena::new();
    arena.global(json!({"demo": arena.server("demo", &[], json!({}))}));
    let script = arena.base.join("script.json");
    let turns = json!({"turns": [
        [{"type": "tool_call", "name": "mcp__demo__elicit", "arguments": {}}],
        [{"type": "text", "text": "done"}],
    ]});
    std::fs::write(&script, turns.to_string()).unwrap();
    let script = script.display().to_string();
    let mut rpc = Rpc::start_with(
        &arena.project,
        &arena.rho_home,
        &["--no-session", "--faux-script", &script],
    );
    let commands = rpc.call(json!({"id": "c", "type": "get_commands"}));
    assert_eq!(commands["data"]["commands"][0]["name"], "mcp");

    rpc.send(json!({"id": "m", "type": "prompt", "message": "/mcp"}));
    let notice = rpc.next();
    assert_eq!(notice["type"], "extension_ui_request");
    assert_eq!(notice["method"], "notify");
    assert_eq!(notice["notifyType"], "info");
    assert!(
        notice["message"]
            .as_str()
            .unwrap()
            .starts_with("demo: connected, 17 tools (direct)")
    );
    assert_eq!(
        rpc.next(),
        json!({"id": "m", "type": "response", "command": "prompt", "success": true,
               "data": {"disposition": "handled"}})
    );

    // The elicit tool's question: whether to answer, then each field.
    rpc.send(json!({"id": "p", "type": "prompt", "message": "ask me"}));
    let (confirm, _) = rpc.until(|l| l["type"] == "extension_ui_request");
    assert_eq!(confirm["method"], "confirm");
    assert_eq!(confirm["message"], "Your name?");
    rpc.send(json!({"type": "extension_ui_response", "id": confirm["id"], "confirmed": true}));
    let name = rpc.until(|l| l["type"] == "extension_ui_request").0;
    assert_eq!(
        (name["method"].as_str(), name["placeholder"].as_str()),
        (Some("input"), Some("Ada"))
    );
    rpc.send(json!({"type": "extension_ui_response", "id": name["id"], "value": "Grace"}));
    let age = rpc.until(|l| l["type"] == "extension_ui_request").0;
    assert_eq!(age["method"], "input");
    // An answer to a question nobody asked is ignored.
    rpc.send(json!({"type": "extension_ui_response", "id": "not-asked", "value": "1"}));
    rpc.send(json!({"type": "extension_ui_response", "id": age["id"], "value": ""}));
    let (end, _) = rpc.until(|l| l["type"] == "tool_execution_end");
    assert_eq!(
        end["result"]["content"][0]["text"],
        r#"{"action": "accept", "content": {"age": 36, "name": "Grace"}}"#
    );
    rpc.until(|l| l["type"] == "agent_settled");
    assert!(rpc.close_stdin_and_wait(Duration::from_secs(20)).success());
    assert!(super::harness::process_gone(&arena.pid_file("demo")));
}
