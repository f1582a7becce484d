//! A whole run replayed through `App::update` alone, as the event loop feeds it: the prompt
//! from the command line, the session's events, a `!cmd` of the user's beside the run, and the
//! clock. What comes out is the effects, in order, and the conversation as drawn.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use crossterm::event::KeyCode;
use rho_agent::AgentEvent;
use rho_ai::faux::faux_tool_call;
use rho_host::{SessionEvent, SessionNotice, SettledReason};
use rho_tui::app::ShellRun;
use rho_tui::user_shell::{ShellLine, ShellOutput};
use rho_tui::view::conversation::lines;
use rho_tui::{Effect, Input};
use serde_json::json;

use crate::events::*;
use crate::keyboard::key;
use crate::markdown::rows;

#[test]
fn a_run_with_a_tool_a_queued_message_and_a_bang_command_replays_into_its_conversation() {
    let mut app = app();
    let t0 = Instant::now();
    let at = |ms: u64| t0 + Duration::from_millis(ms);
    let mut effects = Vec::new();
    let mut feed = |app: &mut rho_tui::App, input: Input, now: Instant| {
        effects.extend(app.update(input, now));
    };

    feed(
        &mut app,
        Input::Started(vec!["Check greet.ts".to_owned()]),
        t0,
    );
    let mut events = user("Check greet.ts");
    events.extend(streamed(
        &["I'll read ", "it."],
        answer(
            vec![
                thinking("The user wants the file checked."),
                text("I'll read it."),
                faux_tool_call("call-1", "read", json!({"path": "greet.ts"})),
            ],
            100,
            20,
            0.001,
        ),
    ));
    events.push(tool_start("call-1", "read", json!({"path": "greet.ts"})));
    for event in events {
        feed(&mut app, event.into(), at(100));
    }
    // The user runs `!ls` while the agent works, and queues a steering message.
    for c in "!ls".chars() {
        feed(&mut app, Input::Key(key(KeyCode::Char(c))), at(150));
    }
    feed(&mut app, Input::Key(key(KeyCode::Enter)), at(150));
    let run = ShellRun {
        id: 1,
        line: ShellLine {
            command: "ls".to_owned(),
            exclude_from_context: false,
        },
    };
    feed(&mut app, Input::ShellStarted(run.clone()), at(150));
    for c in "and tests".chars() {
        feed(&mut app, Input::Key(key(KeyCode::Char(c))), at(160));
    }
    feed(&mut app, Input::Key(key(KeyCode::Enter)), at(160));
    let queued = SessionEvent::Session(SessionNotice::QueueUpdate {
        steering: vec!["and tests".to_owned()],
        follow_up: Vec::new(),
    });
    feed(&mut app, queued.into(), at(170));
    feed(&mut app, Input::Tick, at(180));
    let listing = ShellOutput {
        output: "greet.ts\n".to_owned(),
        exit_code: Some(0),
        ..ShellOutput::default()
    };
    feed(
        &mut app,
        Input::ShellFinished(run.clone(), Ok(listing.clone())),
        at(1650),
    );
    let mut rest = vec![tool_end(
        "call-1",
        "read",
        "export function greet() {}",
        false,
        Some(1200),
    )];
    rest.push(SessionEvent::Session(SessionNotice::QueueUpdate {
        steering: Vec::new(),
        follow_up: Vec::new(),
    }));
    rest.extend(user("and tests"));
    rest.extend(streamed(
        &["It exports ", "`greet`."],
        answer(vec![text("It exports `greet`; no tests.")], 150, 10, 0.002),
    ));
    rest.push(agent(AgentEvent::AgentEnd {
        messages: Vec::new(),
        will_retry: false,
    }));
    rest.push(settled(SettledReason::Completed));
    for event in rest {
        feed(&mut app, event.into(), at(1900));
    }

    assert_eq!(
        effects,
        [
            Effect::Prompt("Check greet.ts".to_owned()),
            Effect::RunShell(run.clone()),
            Effect::Steer("and tests".to_owned()),
            // Held while the prompt ran, recorded once it settled.
            Effect::RecordShell(run.line, listing),
        ]
    );
    assert!(!app.working() && !app.shell_running());
    let status = app.status();
    assert_eq!(
        (status.input(), status.output(), status.context_tokens()),
        (250, 30, Some(160))
    );
    assert_eq!(
        rows(&lines(&app, 60, at(2000))),
        [
            "› Check greet.ts",
            "",
            "Thinking... (6 words, ctrl+t to expand)",
            "I'll read it.",
            "",
            "✓ read greet.ts (1.2s)",
            "  export function greet() {}",
            "",
            "✓ bash ls (1.5s)",
            "  greet.ts",
            "",
            "› and tests",
            "",
            "It exports greet; no tests.",
        ]
        .join("\n")
    );
}
