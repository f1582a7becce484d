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
