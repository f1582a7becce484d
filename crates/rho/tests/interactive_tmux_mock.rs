//! The interactive mode against the loopback mock provider, driven in `tmux`: the approval
//! prompt (allow once, always, deny), `!cmd` in the next request, steering while a tool runs
//! and Escape. Every check is on what the model received (request bodies) and on files.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use rho_testkit::MockResponse;
use serde_json::{Value, json};

use crate::interactive_support::{Mock, answer, entries, exchange, send, transcript, wait_shell};
use crate::interactive_tmux::Tmux;

fn bash_call(id: &str, command: &str) -> MockResponse {
    crate::interactive_support::tool_call(id, "bash", json!({ "command": command }))
}

/// `RHO_HOME` with a `mock` provider serving model `a`, and `rules` as the project's
/// `.rho/rules.toml`.
fn project(mock: &Mock, rules: Option<&str>) -> tempfile::TempDir {
    project_with_model(mock, rules, json!({"id": "a"}))
}

fn project_with_model(mock: &Mock, rules: Option<&str>, model: Value) -> tempfile::TempDir {
    crate::interactive_support::project(mock, json!([model]), rules)
}

fn open_rho(dir: &Path) -> Tmux {
    open_rho_with(dir, "--no-session")
}

fn open_rho_with(dir: &Path, flags: &str) -> Tmux {
    crate::interactive_support::open_rho(dir, flags)
}

const ASK_ECHO: &str = "[[rule]]\ndecision = \"ask\"\nprefix = \"echo\"\n";

#[test]
fn an_approved_ask_command_runs_and_always_writes_an_exact_allow_rule_to_the_users_rules() {
    let mock = Mock::start(vec![
        bash_call("call_1", "echo approved-out"),
        answer("first done"),
        bash_call("call_2", "echo always-out"),
        answer("second done"),
    ]);
    let dir = project(&mock, Some(ASK_ECHO));
    let tmux = open_rho(dir.path());

    send(&tmux, "run it");
    let dialog = tmux.wait_for("the approval dialog", |s| {
        s.contains("Allow this command?") && s.contains("$ echo approved-out")
    });
    assert!(dialog.contains("Always allow (a)"), "{dialog}");
    assert!(dialog.contains("rule 1 (\"echo\")"), "{dialog}");
    tmux.keys(&["y"]);
    tmux.wait_for("the answer", |s| s.contains("first done"));
    let bodies = mock.wait_requests(2);
    assert_eq!(
        transcript(&bodies[1]),
        ["user: run it", "assistant: ", "tool: approved-out\n"]
    );

    send(&tmux, "again");
    tmux.wait_for("the second dialog", |s| s.contains("$ echo always-out"));
    tmux.keys(&["a"]);
    tmux.wait_for("the second answer", |s| s.contains("second done"));
    let bodies = mock.wait_requests(4);
    assert_eq!(
        transcript(&bodies[3])[4..],
        ["user: again", "assistant: ", "tool: always-out\n"]
    );
    // The user's own rules file (RHO_HOME is the project directory here): a project's file
    // may not allow. The rule allows exactly the approved command.
    assert_eq!(
        std::fs::read_to_string(dir.path().join("rules.toml")).unwrap(),
        "# Added by \"always allow\" in the interactive mode.\n\
         [[rule]]\ndecision = \"allow\"\ncommand = \"echo always-out\"\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join(".rho/rules.toml")).unwrap(),
        ASK_ECHO
    );
    tmux.keys(&["C-c", "C-c"]);
    wait_shell(&tmux, "the shell");
}

#[test]
fn a_denied_ask_command_reaches_the_model_as_the_gates_refusal() {
    let mock = Mock::start(vec![
        bash_call("call_1", "echo never && touch ran.txt"),
        answer("understood"),
    ]);
    let dir = project(&mock, Some(ASK_ECHO));
    let tmux = open_rho(dir.path());
    send(&tmux, "try it");
    tmux.wait_for("the approval dialog", |s| s.contains("Allow this command?"));
    tmux.keys(&["n"]);
    tmux.wait_for("the answer", |s| s.contains("understood"));
    let bodies = mock.wait_requests(2);
    assert_eq!(
        transcript(&bodies[1]),
        [
            "user: try it",
            "assistant: ",
            "tool: Command \"echo never\" was not approved by the user."
        ]
    );
    assert!(!dir.path().join("ran.txt").exists());
    tmux.keys(&["C-d"]);
    wait_shell(&tmux, "the shell");
}

#[test]
fn a_bang_command_reaches_the_next_request_and_a_double_bang_does_not() {
    let mock = Mock::start(vec![answer("seen")]);
    let dir = project(&mock, None);
    let tmux = open_rho_with(dir.path(), "--session-dir sessions");
    send(&tmux, "!echo hi");
    tmux.wait_for("the command's block", |s| {
        s.contains("✓ bash echo hi") && s.contains("  hi")
    });
    send(&tmux, "!!echo hidden");
    tmux.wait_for("the second block", |s| s.contains("✓ bash echo hidden"));
    send(&tmux, "what did I run?");
    tmux.wait_for("the answer", |s| s.contains("seen"));
    let bodies = mock.wait_requests(1);
    // Pi keeps the output's last newline inside the fence.
    assert_eq!(
        transcript(&bodies[0]),
        [
            "user: Ran `echo hi`\n```\nhi\n\n```",
            "user: what did I run?"
        ]
    );
    tmux.keys(&["C-d"]);
    wait_shell(&tmux, "the shell");
    // Both are in the session file; only the `!!` one is marked to stay out of the context.
    let files: Vec<_> = std::fs::read_dir(dir.path().join("sessions"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let recorded: Vec<Value> = entries(&files[0])
        .into_iter()
        .filter(|e| e["message"]["role"] == "bashExecution")
        .map(|e| {
            let mut m = e["message"].clone();
            m.as_object_mut().unwrap().remove("timestamp");
            m
        })
        .collect();
    assert_eq!(
        recorded,
        [
            json!({"role": "bashExecution", "command": "echo hi", "output": "hi\n",
                "exitCode": 0, "cancelled": false, "truncated": false}),
            json!({"role": "bashExecution", "command": "echo hidden", "output": "hidden\n",
                "exitCode": 0, "cancelled": false, "truncated": false,
                "excludeFromContext": true}),
        ]
    );
}

#[test]
fn a_steering_message_typed_while_a_tool_runs_follows_its_result_and_escape_aborts() {
    // The tool waits for a file the test creates once the steering message is queued.
    let wait = "while [ ! -e go ]; do sleep 0.05; done; echo released";
    let mock = Mock::start(vec![
        bash_call("call_1", wait),
        answer("steered"),
        bash_call("call_2", "while true; do sleep 0.05; done"),
    ]);
    let dir = project(&mock, None);
    let tmux = open_rho(dir.path());
    send(&tmux, "start");
    tmux.wait_for("the running tool", |s| {
        s.contains("esc to interrupt") && s.contains("bash while")
    });
    send(&tmux, "also this");
    tmux.wait_for("the queued message", |s| s.contains("Queued: 1 steering"));
    std::fs::write(dir.path().join("go"), "").unwrap();
    tmux.wait_for("the answer", |s| s.contains("steered"));
    let bodies = mock.wait_requests(2);
    assert_eq!(
        transcript(&bodies[1]),
        [
            "user: start",
            "assistant: ",
            "tool: released\n",
            "user: also this"
        ]
    );

    send(&tmux, "loop");
    tmux.wait_for("the endless tool", |s| {
        s.contains("esc to interrupt") && s.contains("while true")
    });
    tmux.keys(&["Escape"]);
    tmux.wait_for("the abort", |s| {
        s.contains("Aborted") && !s.contains("esc to interrupt")
    });
    assert_eq!(mock.bodies().len(), 3, "no request after the abort");
    tmux.keys(&["C-d"]);
    wait_shell(&tmux, "the shell");
}

#[test]
fn escape_stops_a_running_bang_command() {
    let mock = Mock::start(vec![]);
    let dir = project(&mock, None);
    let tmux = open_rho(dir.path());
    send(&tmux, "!echo started; while true; do sleep 0.05; done");
    tmux.wait_for("the running command", |s| s.contains("bash echo started;"));
    tmux.keys(&["Escape"]);
    let screen = tmux.wait_for("the cancelled block", |s| {
        s.contains("■ bash echo started;")
    });
    assert!(screen.contains("(command cancelled)"), "{screen}");
    assert_eq!(mock.bodies().len(), 0, "nothing was sent to the model");
    tmux.keys(&["C-d"]);
    wait_shell(&tmux, "the shell");
}

#[test]
fn a_bang_command_run_while_the_agent_works_joins_the_context_after_that_run() {
    let mock = Mock::start(vec![
        bash_call(
            "call_1",
            "while [ ! -e go ]; do sleep 0.05; done; echo released",
        ),
        answer("one"),
        answer("two"),
    ]);
    let dir = project(&mock, None);
    let tmux = open_rho(dir.path());
    send(&tmux, "start");
    tmux.wait_for("the running tool", |s| s.contains("esc to interrupt"));
    send(&tmux, "!echo side");
    tmux.wait_for("the side command", |s| s.contains("✓ bash echo side"));
    std::fs::write(dir.path().join("go"), "").unwrap();
    tmux.wait_for("the first answer", |s| {
        s.contains("one") && !s.contains("esc to")
    });
    send(&tmux, "next");
    tmux.wait_for("the second answer", |s| s.contains("two"));
    let bodies = mock.wait_requests(3);
    assert_eq!(
        transcript(&bodies[1]),
        ["user: start", "assistant: ", "tool: released\n"],
        "the running prompt never sees it"
    );
    assert_eq!(
        transcript(&bodies[2]),
        [
            "user: start",
            "assistant: ",
            "tool: released\n",
            "assistant: one",
            "user: Ran `echo side`\n```\nside\n\n```",
            "user: next"
        ]
    );
    tmux.keys(&["C-d"]);
    wait_shell(&tmux, "the shell");
}

#[test]
fn shift_tab_cycles_the_thinking_level_in_the_footer_the_session_file_and_the_settings() {
    let mock = Mock::start(vec![answer("noted")]);
    let dir = project_with_model(&mock, None, json!({"id": "a", "reasoning": true}));
    let tmux = open_rho_with(dir.path(), "--session-dir sessions --thinking low");
    tmux.wait_for("the level in the footer", |s| s.contains("a • low"));
    tmux.keys(&["BTab"]);
    tmux.wait_for("the next level", |s| s.contains("a • medium"));
    // As in Pi 1.6, the file is written at the first message, with every entry before it.
    exchange(&tmux, "hello", "noted");
    tmux.keys(&["C-d"]);
    wait_shell(&tmux, "the shell");
    let files: Vec<_> = std::fs::read_dir(dir.path().join("sessions"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let levels: Vec<Value> = entries(&files[0])
        .into_iter()
        .filter(|e| e["type"] == "thinking_level_change")
        .map(|e| e["thinkingLevel"].clone())
        .collect();
    assert_eq!(levels, [json!("low"), json!("medium")]);
    // The level picked in the UI is the next run's default (Pi's `setDefaultThinkingLevel`).
    let settings: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("settings.json")).unwrap())
            .unwrap();
    assert_eq!(settings["defaultThinkingLevel"], "medium");
}
