//! The work rendering does, counted rather than timed: a long streamed reply highlights each code
//! line about once, and a finished reply is laid out once per width.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_tui::view::highlight::lines_highlighted;
use rho_tui::view::markdown::{documents_rendered, render, render_cached};

/// A 2,000-line reply: ten sections of a heading, prose and a 193-line Rust code block.
fn long_reply() -> String {
    let mut out = String::new();
    for section in 0..10 {
        out.push_str(&format!(
            "## Part {section}\n\nSome words about part {section}.\n\n```rust\n"
        ));
        for k in 0..193 {
            out.push_str(&format!("let v{k} = compute({k}, \"{section}\");\n"));
        }
        out.push_str("```\n\n");
    }
    out
}

#[test]
fn streaming_a_2000_line_reply_highlights_each_code_line_about_once() {
    let reply = long_reply();
    assert_eq!(reply.lines().count(), 2000);
    let code_lines = 10 * 193;
    // Forty frames, each showing a longer prefix of the reply, as a stream does.
    let frames = 40;
    let before = lines_highlighted();
    for frame in 1..=frames {
        let mut cut = reply.len() * frame / frames;
        while !reply.is_char_boundary(cut) {
            cut += 1;
        }
        render(&reply[..cut], 80);
    }
    let work = lines_highlighted() - before;
    // Each complete line once, plus at most one unfinished tail line per frame.
    assert!(
        (code_lines..=code_lines + frames).contains(&work),
        "{work} lines highlighted for {code_lines} code lines over {frames} frames"
    );
}

#[test]
fn a_finished_reply_is_laid_out_once_per_width() {
    let reply = long_reply();
    let before = documents_rendered();
    let first = render_cached(&reply, 80);
    for _ in 0..5 {
        assert_eq!(render_cached(&reply, 80), first);
    }
    assert_eq!(documents_rendered() - before, 1);
    render_cached(&reply, 60);
    assert_eq!(
        documents_rendered() - before,
        2,
        "a new width lays it out again"
    );
}

#[test]
fn a_collapsed_read_of_a_long_file_highlights_only_the_lines_it_shows() {
    use crate::events::*;
    let t0 = std::time::Instant::now();
    let mut app = app();
    let body: Vec<String> = (0..2000).map(|k| format!("let x{k} = {k};")).collect();
    apply_all(
        &mut app,
        &[
            tool_start("r", "read", serde_json::json!({"path": "big.rs"})),
            tool_end("r", "read", &body.join("\n"), false, Some(3)),
        ],
        t0,
    );
    let before = lines_highlighted();
    let rows = rho_tui::view::conversation::lines(&app, 80, t0);
    assert_eq!(lines_highlighted() - before, 10);
    assert_eq!(
        rows.last().map(ToString::to_string).as_deref(),
        Some("  ... (1990 more lines, ctrl+o to expand)")
    );
}

/// An app showing `reply` as a finished answer, drawn once at 80×24; the lines highlighted and
/// the screen's rows (text and whether any span of the row is coloured by a grammar).
fn draw_finished(app: &rho_tui::App) -> (usize, Vec<(String, bool)>) {
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use ratatui::style::Color;
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
    let before = lines_highlighted();
    terminal
        .draw(|frame| rho_tui::view::draw(frame, app, std::time::Instant::now()))
        .unwrap();
    let work = lines_highlighted() - before;
    let buffer = terminal.backend().buffer();
    let rows = (0..buffer.area.height)
        .map(|y| {
            let cells: Vec<_> = (0..buffer.area.width)
                .filter_map(|x| buffer.cell((x, y)))
                .collect();
            let text: String = cells.iter().map(|c| c.symbol()).collect();
            let coloured = cells
                .iter()
                .any(|c| matches!(c.fg, Color::Rgb(..)) && !c.symbol().trim().is_empty());
            (text.trim_end().to_owned(), coloured)
        })
        .collect();
    (work, rows)
}

fn finished(reply: String) -> rho_tui::App {
    use crate::events::{answer, apply_all, streamed, text};
    use rho_tui::transcript::{AssistantBlock, AssistantEntry, Entry};
    let mut app = crate::events::app();
    let events = streamed(&[], answer(vec![text(&reply)], 0, 0, 0.0));
    apply_all(&mut app, &events, std::time::Instant::now());
    assert_eq!(
        app.transcript(),
        [Entry::Assistant(AssistantEntry {
            blocks: vec![AssistantBlock::Text(reply)],
            streaming: false,
        })]
    );
    app
}

#[test]
fn opening_a_finished_2000_line_reply_highlights_only_about_a_screen_of_code() {
    let app = finished(long_reply());
    let (work, rows) = draw_finished(&app);
    // 17 code rows are on screen; whole chunks and their lead-in bring at most two screens.
    assert!(
        (17..=48).contains(&work),
        "{work} lines highlighted to draw one screen of a 1,930-code-line reply"
    );
    let code_rows: Vec<bool> = rows
        .iter()
        .filter(|(text, _)| text.starts_with("  let v"))
        .map(|&(_, coloured)| coloured)
        .collect();
    assert_eq!(
        code_rows,
        vec![true; 17],
        "every code row on screen is highlighted"
    );
    let (again, _) = draw_finished(&app);
    assert_eq!(
        again, 0,
        "a redraw of the same screen reuses the highlighted chunks"
    );
}

#[test]
fn scrolling_up_a_finished_reply_highlights_the_rows_that_come_into_view() {
    let mut app = finished(long_reply());
    draw_finished(&app);
    // A hundred PageUps of ten lines.
    for _ in 0..100 {
        let up = crate::keyboard::key(crossterm::event::KeyCode::PageUp);
        crate::drive::press(&mut app, up);
    }
    assert_eq!(app.scroll(), 1000);
    let (work, rows) = draw_finished(&app);
    assert!((1..=48).contains(&work), "{work} lines highlighted");
    let code_rows: Vec<bool> = rows
        .iter()
        .filter(|(text, _)| text.starts_with("  let v"))
        .map(|&(_, coloured)| coloured)
        .collect();
    assert!(!code_rows.is_empty());
    assert!(code_rows.iter().all(|&c| c), "{rows:#?}");
}

#[test]
fn the_whole_conversation_as_lines_still_has_every_code_line_highlighted() {
    let app = finished(long_reply());
    let before = lines_highlighted();
    let rows = rho_tui::view::conversation::lines(&app, 80, std::time::Instant::now());
    assert!(lines_highlighted() - before >= 10 * 193);
    let plain_code = rows
        .iter()
        .filter(|l| l.to_string().starts_with("  let v"))
        .filter(|l| {
            !l.spans
                .iter()
                .any(|s| matches!(s.style.fg, Some(ratatui::style::Color::Rgb(..))))
        })
        .count();
    assert_eq!(plain_code, 0);
}
