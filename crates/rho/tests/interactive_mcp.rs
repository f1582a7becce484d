//! MCP in the interactive mode, in a real terminal (a `tmux` pane): `/mcp` opens the manager —
//! servers, a server's menu, disabling it saved to `mcp.json` — and a server's elicitation is a
//! dialog whose answers reach the server; signing in to an OAuth server from the manager lets
//! its tools join the running session.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};

use crate::interactive_support::{launch, quit, wait_shell};
use crate::interactive_tmux::Tmux;
use crate::mcp_oauth::{OAuthServer, browser};
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

#[test]
fn signing_in_from_the_manager_brings_the_servers_tools_into_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let server = OAuthServer::start(dir.path());
    let servers = json!({"mcpServers": {"srv": {"url": server.url(), "exposure": "direct"}}});
    std::fs::write(dir.path().join("mcp.json"), servers.to_string()).unwrap();
    let script = json!({"turns": [[
        {"type": "tool_call", "name": "mcp__srv__whoami", "arguments": {}}
    ]], "fallback": [{"type": "text", "text": "thanks"}]});
    std::fs::write(dir.path().join("script.json"), script.to_string()).unwrap();
    let browser = browser(dir.path());
    let tmux = Tmux::start(dir.path());
    wait_shell(&tmux, "the shell prompt");
    tmux.type_text(&format!(
        "BROWSER={} {} --faux-script script.json",
        browser.display(),
        env!("CARGO_BIN_EXE_rho")
    ));
    tmux.keys(&["Enter"]);
    tmux.wait_for("the footer", |s| s.contains("ctx ?/"));

    tmux.type_text("/mcp");
    tmux.keys(&["Enter"]);
    tmux.wait_for("the servers menu", |s| {
        s.contains("MCP servers") && s.contains("srv") && s.contains("needs sign-in")
    });
    tmux.keys(&["Enter"]);
    tmux.wait_for("the server's menu", |s| {
        s.contains("MCP server srv") && s.contains("Sign in") && s.contains("opens the browser")
    });
    // The browser follows the redirect to rho's loopback callback: the paste dialog closes by
    // itself and the menu shows the server connected.
    tmux.keys(&["Enter"]);
    tmux.wait_for("the signed-in server's menu", |s| {
        s.contains("MCP server srv") && s.contains("Sign out") && s.contains("Tools")
    });
    tmux.keys(&["Escape"]);
    tmux.wait_for("the servers menu again", |s| {
        s.contains("connected · 1 tool")
    });
    tmux.keys(&["Escape"]);
    tmux.wait_for("the editor", |s| !s.contains("connected · 1 tool"));

    tmux.type_text("who am i");
    tmux.keys(&["Enter"]);
    tmux.wait_for("the reply after the tool", |s| s.contains("thanks"));
    quit(&tmux);
    let sessions = crate::interactive_support::jsonl_files(&dir.path().join("sessions"));
    let text = std::fs::read_to_string(sessions.last().unwrap()).unwrap();
    assert!(text.contains("token at-1"), "{text}");
    let stored: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("mcp-auth.json")).unwrap())
            .unwrap();
    assert_eq!(
        stored[format!("mcp__srv|{}", server.url())]["tokens"]["access_token"],
        "at-1"
    );
}
