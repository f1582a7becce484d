//! Widgets drawn into ratatui's `TestBackend` at 80×24 and compared with `insta` snapshots.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use rho_host::{SessionEvent, SessionNotice, SettledReason};
use rho_tui::App;
use rho_tui::view;
use serde_json::json;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::drive::{paste, press, start_prompt};
use crate::events::*;
use crate::keyboard::key;

fn screen(app: &App, now: Instant) -> String {
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
    terminal.draw(|frame| view::draw(frame, app, now)).unwrap();
    format!("{}", terminal.backend())
}

/// A run in progress: an answer, a finished `read`, and a `bash` still streaming output.
fn running_tool_app(t0: Instant) -> App {
    let mut app = app();
    start_prompt(&mut app, t0);
    let mut events = user("Run the tests and tell me what fails.");
    events.extend(streamed(
        &["I'll run the test suite."],
        answer(
            vec![
                thinking("The user wants tests run."),
                text("I'll run the test suite."),
            ],
            1200,
            40,
            0.0123,
        ),
    ));
    events.push(tool_start("r1", "read", json!({"path": "Cargo.toml"})));
    events.push(tool_end("r1", "read", "[workspace]\nresolver = \"2\"\nmembers = [\n  \"crates/a\",\n  \"crates/b\",\n  \"crates/c\",\n]", false, Some(4)));
    events.push(tool_start(
        "b1",
        "bash",
        json!({"command": "cargo test --workspace"}),
    ));
    events.push(tool_update(
        "b1",
        "bash",
        "   Compiling a v0.1.0\n   Compiling b v0.1.0\nrunning 12 tests",
    ));
    apply_all(&mut app, &events, t0);
    app
}

#[test]
fn a_conversation_with_a_running_tool_at_80x24() {
    let t0 = Instant::now();
    let app = running_tool_app(t0);
    insta::assert_snapshot!(screen(&app, t0 + Duration::from_millis(3200)));
}

#[test]
fn expanded_tool_output_and_thinking_show_everything() {
    let t0 = Instant::now();
    let mut app = running_tool_app(t0);
    press(
        &mut app,
        KeyEvent::new(KeyCode::Char('o'), KeyModifiers::CONTROL),
    );
    press(
        &mut app,
        KeyEvent::new(KeyCode::Char('t'), KeyModifiers::CONTROL),
    );
    assert!(app.expand_tools() && app.show_thinking());
    insta::assert_snapshot!(screen(&app, t0 + Duration::from_millis(3200)));
}

#[test]
fn a_refused_command_shows_the_rule_and_an_error_after_it() {
    let t0 = Instant::now();
    let mut app = app();
    let mut events = user("clean everything");
    events.push(tool_start("c", "bash", json!({"command": "rm -rf /"})));
    events.push(tool_end(
        "c",
        "bash",
        "Command \"rm -rf /\" is denied by a command rule (rm *). Change the rule to allow it.",
        true,
        None,
    ));
    events.extend(streamed(
        &[],
        rho_ai::faux::faux_error(Vec::new(), "429 rate limited"),
    ));
    events.push(settled(SettledReason::Error));
    apply_all(&mut app, &events, t0);
    insta::assert_snapshot!(screen(&app, t0));
}

#[test]
fn the_status_shows_retry_countdown_queues_usage_and_model() {
    let t0 = Instant::now();
    let mut app = running_tool_app(t0);
    for notice in [
        SessionNotice::QueueUpdate {
            steering: vec!["also check b".to_owned()],
            follow_up: vec!["then commit".to_owned()],
        },
        SessionNotice::AutoRetryStart {
            attempt: 2,
            max_attempts: 3,
            delay_ms: 4000,
            error_message: "overloaded".to_owned(),
        },
    ] {
        apply_all(&mut app, &[SessionEvent::Session(notice)], t0);
    }
    let mut terminal = Terminal::new(TestBackend::new(80, 3)).unwrap();
    terminal
        .draw(|frame| {
            let area = frame.area();
            let notice = ratatui::layout::Rect { height: 1, ..area };
            let footer = ratatui::layout::Rect {
                y: 1,
                height: 2,
                ..area
            };
            view::status::render(
                frame,
                notice,
                footer,
                &app,
                t0 + Duration::from_millis(1500),
            );
        })
        .unwrap();
    insta::assert_snapshot!(format!("{}", terminal.backend()));
}

#[test]
fn the_editor_grows_with_its_lines_and_wraps_long_ones() {
    let mut app = app();
    paste(
        &mut app,
        "first line\nsecond line that is long enough to wrap around the edge of an eighty column screen, twice over\nthird",
    );
    insta::assert_snapshot!(screen(&app, Instant::now()));
}

#[test]
fn a_tall_conversation_keeps_the_newest_lines_in_view_and_scrolls_up() {
    let t0 = Instant::now();
    let mut app = app();
    for k in 0..12 {
        apply_all(&mut app, &user(&format!("message {k}")), t0);
    }
    let bottom = screen(&app, t0);
    assert!(bottom.contains("› message 11"), "{bottom}");
    assert!(!bottom.contains("› message 0 "), "{bottom}");
    for _ in 0..10 {
        press(&mut app, key(KeyCode::PageUp));
    }
    assert_eq!(app.scroll(), 100);
    let top = screen(&app, t0);
    assert!(top.contains("› message 0 "), "{top}");
}

fn plain(lines: &[ratatui::text::Line]) -> Vec<String> {
    lines.iter().map(|l| l.to_string()).collect()
}

#[test]
fn command_output_keeps_its_newest_lines_while_running_and_when_finished() {
    let t0 = Instant::now();
    let mut app = app();
    let output: Vec<String> = (1..=8).map(|k| format!("line {k}")).collect();
    apply_all(
        &mut app,
        &[
            tool_start("b", "bash", json!({"command": "seq"})),
            tool_update("b", "bash", &output.join("\n")),
        ],
        t0,
    );
    assert_eq!(
        plain(&view::conversation::lines(
            &app,
            40,
            t0 + Duration::from_secs(1)
        )),
        [
            "⠹ bash seq (1.0s)",
            "  ... (3 earlier lines, ctrl+o to expand)",
            "  line 4",
            "  line 5",
            "  line 6",
            "  line 7",
            "  line 8",
        ]
    );
    apply_all(
        &mut app,
        &[tool_end("b", "bash", &output.join("\n"), false, Some(1500))],
        t0,
    );
    assert_eq!(
        plain(&view::conversation::lines(&app, 40, t0)),
        [
            "✓ bash seq (1.5s)",
            "  ... (3 earlier lines, ctrl+o to expand)",
            "  line 4",
            "  line 5",
            "  line 6",
            "  line 7",
            "  line 8",
        ]
    );
}
