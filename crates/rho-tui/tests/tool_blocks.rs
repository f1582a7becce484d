//! Tool calls as blocks: live `bash` output, truncated and expanded results, `edit`'s coloured
//! diff, `write`'s content, a refusal from the gate, and collapsed thinking.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use ratatui::style::{Color, Modifier};
use rho_agent::{AgentEvent, ToolResultPayload};
use rho_host::SessionEvent;
use rho_host::tools::edit::diff::diff_text;
use rho_tui::App;
use rho_tui::view::conversation::lines;
use serde_json::{Value, json};

use crate::events::*;
use crate::markdown::rows;

fn screen(app: &App, width: usize, now: Instant) -> String {
    rows(&lines(app, width, now))
}

fn tool_end_with(id: &str, name: &str, text: &str, details: Value) -> SessionEvent {
    let result: ToolResultPayload = serde_json::from_value(
        json!({"content": [{"type": "text", "text": text}], "details": details}),
    )
    .unwrap();
    agent(AgentEvent::ToolExecutionEnd {
        tool_call_id: id.to_owned(),
        tool_name: name.to_owned(),
        result,
        is_error: false,
        duration_ms: Some(12),
    })
}

fn numbered(count: usize) -> String {
    let lines: Vec<String> = (1..=count).map(|k| format!("line {k}")).collect();
    lines.join("\n")
}

/// A `read` of a 14-line Rust file, finished.
fn read_app(t0: Instant) -> App {
    let mut app = app();
    let body: Vec<String> = (1..=14).map(|k| format!("let x{k} = {k};")).collect();
    apply_all(
        &mut app,
        &[
            tool_start(
                "r",
                "read",
                json!({"path": "src/main.rs", "offset": 3, "limit": 14}),
            ),
            tool_end("r", "read", &body.join("\n"), false, Some(3)),
        ],
        t0,
    );
    app
}

#[test]
fn a_running_bash_block_shows_a_spinner_the_elapsed_time_and_its_newest_output() {
    let t0 = Instant::now();
    let mut app = app();
    apply_all(
        &mut app,
        &[
            tool_start("b", "bash", json!({"command": "cargo test 2>&1 | tail"})),
            tool_update("b", "bash", &numbered(8)),
        ],
        t0,
    );
    insta::assert_snapshot!(screen(&app, 60, t0 + Duration::from_millis(2400)));
}

#[test]
fn a_finished_read_shows_its_first_lines_and_how_many_more() {
    let t0 = Instant::now();
    let app = read_app(t0);
    let shown = screen(&app, 60, t0);
    insta::assert_snapshot!(shown);
    assert!(
        shown.ends_with("  ... (4 more lines, ctrl+o to expand)"),
        "{shown}"
    );
}

#[test]
fn an_expanded_read_shows_every_line() {
    let t0 = Instant::now();
    let mut app = read_app(t0);
    crate::drive::press(&mut app, crate::keyboard::ctrl('o'));
    assert!(app.expand_tools());
    insta::assert_snapshot!(screen(&app, 60, t0));
}

#[test]
fn an_edit_shows_its_diff_in_colour_with_line_numbers() {
    let t0 = Instant::now();
    let old = "fn main() {\n    let total = 1 + 2;\n    println!(\"{total}\");\n}\n";
    let new = "fn main() {\n    let total = 1 + 2 + 3;\n    println!(\"{total}\");\n    println!(\"done\");\n}\n";
    let diff = diff_text(old, new, 4).diff;
    let mut app = app();
    apply_all(
        &mut app,
        &[
            tool_start("e", "edit", json!({"path": "src/main.rs", "edits": []})),
            tool_end_with(
                "e",
                "edit",
                "Successfully replaced 1 block(s) in src/main.rs.",
                json!({"diff": diff, "firstChangedLine": 2}),
            ),
        ],
        t0,
    );
    let lines = lines(&app, 60, t0);
    insta::assert_snapshot!(rows(&lines));
    let row = |prefix: &str| {
        lines
            .iter()
            .find(|l| l.to_string().trim_start().starts_with(prefix))
            .unwrap_or_else(|| panic!("no row starts with {prefix:?}"))
    };
    assert_eq!(row("-2").spans[1].style.fg, Some(Color::Red));
    assert_eq!(row("+2").spans[1].style.fg, Some(Color::Green));
    assert_eq!(row("1 fn main").spans[1].style.fg, Some(Color::DarkGray));
    let changed: Vec<&str> = row("+2")
        .spans
        .iter()
        .filter(|s| s.style.add_modifier.contains(Modifier::REVERSED))
        .map(|s| s.content.as_ref())
        .collect();
    assert_eq!(
        changed,
        [" + 3"],
        "the changed middle of the line is reversed"
    );
}

#[test]
fn a_write_shows_the_first_lines_of_what_it_wrote() {
    let t0 = Instant::now();
    let mut app = app();
    apply_all(
        &mut app,
        &[
            tool_start(
                "w",
                "write",
                json!({"path": "notes.txt", "content": numbered(12)}),
            ),
            tool_end(
                "w",
                "write",
                "Successfully wrote 90 bytes to notes.txt",
                false,
                Some(1),
            ),
        ],
        t0,
    );
    assert_eq!(
        screen(&app, 60, t0),
        format!(
            "✓ write notes.txt (0.0s)\n{}\n  ... (2 more lines, 12 total, ctrl+o to expand)",
            (1..=10)
                .map(|k| format!("  line {k}"))
                .collect::<Vec<_>>()
                .join("\n")
        )
    );
}

#[test]
fn a_refusal_from_the_gate_shows_its_reason_in_its_own_style() {
    let t0 = Instant::now();
    let mut app = app();
    apply_all(
        &mut app,
        &[
            tool_start("g", "read", json!({"path": "/etc/shadow"})),
            tool_end(
                "g",
                "read",
                "Path /etc/shadow is outside the allowed roots (/work/project).",
                true,
                None,
            ),
        ],
        t0,
    );
    let lines = lines(&app, 60, t0);
    insta::assert_snapshot!(rows(&lines));
    assert_eq!(lines[1].spans[1].style.fg, Some(Color::Magenta));
}

#[test]
fn a_failed_command_shows_its_error_in_red() {
    let t0 = Instant::now();
    let mut app = app();
    apply_all(
        &mut app,
        &[
            tool_start("f", "bash", json!({"command": "false"})),
            tool_end("f", "bash", "Command exited with code 1", true, Some(5)),
        ],
        t0,
    );
    let lines = lines(&app, 60, t0);
    assert_eq!(
        rows(&lines),
        "✗ bash false (0.0s)\n  Command exited with code 1"
    );
    assert_eq!(lines[1].spans[1].style.fg, Some(Color::Red));
}

#[test]
fn search_tools_name_their_pattern_and_where_they_look() {
    let t0 = Instant::now();
    let mut app = app();
    apply_all(
        &mut app,
        &[
            tool_start("a", "grep", json!({"pattern": "fn main", "path": "src"})),
            tool_start("b", "find", json!({"pattern": "*.rs"})),
            tool_start("c", "ls", json!({})),
        ],
        t0,
    );
    assert_eq!(
        screen(&app, 60, t0),
        "⠋ grep /fn main/ in src (0.0s)\n\n⠋ find *.rs in . (0.0s)\n\n⠋ ls . (0.0s)"
    );
}

#[test]
fn thinking_is_one_line_with_its_word_count_until_shown() {
    let t0 = Instant::now();
    let mut app = app();
    apply_all(
        &mut app,
        &streamed(
            &[],
            answer(
                vec![
                    thinking("Check the *lexer* first, then the reader."),
                    text("Done."),
                ],
                1,
                1,
                0.0,
            ),
        ),
        t0,
    );
    assert_eq!(
        screen(&app, 60, t0),
        "Thinking... (7 words, ctrl+t to expand)\nDone."
    );
    crate::drive::press(&mut app, crate::keyboard::ctrl('t'));
    assert!(app.show_thinking());
    assert_eq!(
        screen(&app, 60, t0),
        "Check the *lexer* first, then the reader.\nDone."
    );
}
