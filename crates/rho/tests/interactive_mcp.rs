//! MCP in the interactive mode, in a real terminal (a `tmux` pane): `/mcp` opens the manager —
//! servers, a server's menu, disabling it saved to `mcp.json` — and a server's elicitation is a
//! dialog whose answers reach the server.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};

use crate::interactive_support::{launch, quit};
use crate::interactive_tmux::Tmux;
use crate::mcp_runs::harness::scripted;

/// A directory (the pane's `HOME`, `RHO_HOME` and cwd) with one scripted server, `demo`.
fn home_with_server() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let servers = json!({"mcpServers": {"demo": {
        "command": "python3",
        "args": [scripted().display().to_string(), "--no-resources"],
        "exposure": "direct",
    }}});
    std::fs::write(dir.path().join("mcp.json"), servers.to_string()).unwrap();
    dir
}

#[test]
fn slash_mcp_opens_the_manager_and_disabling_a_server_is_saved_to_its_file() {
    let dir = home_with_server();
    let script = json!({"turns": [], "fallback": [{"type": "text", "text": "ok"}]});
    std::fs::write(dir.path().join("script.json"), script.to_string()).unwrap();
    let tmux = Tmux::start(dir.path());
    launch(&tmux, "--faux-script script.json");
    tmux.wait_for("the footer", |s| s.contains("ctx ?/"));

    tmux.type_text("/mcp");
    tmux.keys(&["Enter"]);
    tmux.wait_for("the servers menu", |s| {
        s.contains("MCP servers") && s.contains("demo") && s.contains("connected · 17 tools")
    });
    tmux.keys(&["Enter"]);
    tmux.wait_for("the server's menu", |s| {
        s.contains("MCP server demo")
            && s.contains("Tools")
            && s.contains("17 offered")
            && s.contains("Reconnect")
            && s.contains("Exposure")
            && s.contains("Disable")
    });
    // Tools, Reconnect, Exposure, Disable: the fourth row.
    tmux.keys(&["Down", "Down", "Down", "Enter"]);
    tmux.wait_for("the menu of a disabled server", |s| {
        s.contains("MCP server demo") && s.contains("Enable") && s.contains("State: disabled")
    });
    let saved: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("mcp.json")).unwrap())
            .unwrap();
    assert_eq!(saved["mcpServers"]["demo"]["enabled"], false, "{saved}");

    // Escape goes back to the servers, then out to the editor.
    tmux.keys(&["Escape"]);
    tmux.wait_for("the servers menu again", |s| {
        s.contains("disabled · direct · global")
    });
    tmux.keys(&["Escape"]);
    tmux.wait_for("the editor", |s| !s.contains("MCP servers"));
    quit(&tmux);
}

#[test]
fn a_servers_question_is_a_dialog_and_the_answers_reach_the_server() {
    let dir = home_with_server();
    let script = json!({"turns": [[
        {"type": "tool_call", "name": "mcp__demo__elicit", "arguments": {}}
    ]], "fallback": [{"type": "text", "text": "thanks"}]});
    std::fs::write(dir.path().join("script.json"), script.to_string()).unwrap();
    let tmux = Tmux::start(dir.path());
    launch(&tmux, "--faux-script script.json");
    tmux.wait_for("the footer", |s| s.contains("ctx ?/"));

    tmux.type_text("ask me");
    tmux.keys(&["Enter"]);
    tmux.wait_for("the question", |s| {
        s.contains("MCP server \"demo\" asks for information") && s.contains("Your name?")
    });
    tmux.keys(&["y"]);
    tmux.wait_for("the first field", |s| {
        s.contains("name (optional)") && s.contains("Ada")
    });
    tmux.type_text("Grace");
    tmux.keys(&["Enter"]);
    tmux.wait_for("the second field", |s| s.contains("age (optional)"));
    tmux.keys(&["Enter"]);
    tmux.wait_for("the reply after the tool", |s| s.contains("thanks"));
    quit(&tmux);
    let sessions = crate::interactive_support::jsonl_files(&dir.path().join("sessions"));
    let text = std::fs::read_to_string(sessions.last().unwrap()).unwrap();
    assert!(
        text.contains(
            r#"{\"action\": \"accept\", \"content\": {\"age\": 36, \"name\": \"Grace\"}}"#
        ),
        "{text}"
    );
}
