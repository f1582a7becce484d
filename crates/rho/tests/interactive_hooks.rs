//! Hooks in the interactive mode, in a real terminal (a `tmux` pane): a `PreToolUse` hook's
//! `ask` is the approval dialog, the `Notification` hook hears that rho waits for the user, and
//! what the hook decided is a line under the tool it judged.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::os::unix::fs::PermissionsExt;

use serde_json::json;

use crate::interactive_support::{Mock, answer, open_rho, quit, send, tool_call};

#[test]
fn a_hooks_ask_is_the_approval_dialog_and_its_verdict_shows_under_the_tool() {
    let mock = Mock::start(vec![
        tool_call("c1", "bash", json!({"command": "echo hooked-out"})),
        answer("all done"),
    ]);
    let dir = crate::interactive_support::project(&mock, json!([{"id": "a"}]), None);
    let home = dir.path();
    let script = |name: &str, body: &str| {
        let path = home.join(name);
        std::fs::write(&path, body).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path.display().to_string()
    };
    let ask = script(
        "ask.sh",
        "#!/bin/sh\necho '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"ask\", \"permissionDecisionReason\": \"hooks want a look\"}}'\n",
    );
    let notified = home.join("notified.json");
    let notify = script(
        "notify.sh",
        &format!("#!/bin/sh\ncat > {}\n", notified.display()),
    );
    let settings = json!({"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": ask}]}],
        "Notification": [{"hooks": [{"type": "command", "command": notify}]}],
    }});
    std::fs::write(home.join("settings.json"), settings.to_string()).unwrap();
    let tmux = open_rho(home, "--no-session");

    send(&tmux, "run it");
    let dialog = tmux.wait_for("the approval dialog", |s| {
        s.contains("$ echo hooked-out") && s.contains("hooks want a look")
    });
    assert!(!dialog.contains("all done"), "{dialog}");
    let given: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&notified).unwrap()).unwrap();
    assert_eq!(given["hook_event_name"], "Notification");
    assert_eq!(given["message"], "rho needs your permission to use bash");
    tmux.keys(&["y"]);
    let screen = tmux.wait_for("the answer", |s| s.contains("all done"));
    let lines: Vec<&str> = screen.lines().collect();
    let tool = lines
        .iter()
        .position(|l| l.contains("echo hooked-out"))
        .unwrap();
    assert!(
        lines[tool + 1].contains("↳ PreToolUse hook")
            && lines[tool + 1].contains("ask — hooks want a look"),
        "{screen}"
    );
    assert!(screen.contains("hooked-out"), "{screen}");
    quit(&tmux);
}
