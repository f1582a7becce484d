//! The notice line above the editor (working, retry and compaction notices, queued messages) and
//! Pi's two-line footer below it (cwd; tokens, cost, context, model).

use std::time::Instant;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use rho_stdx::js::to_fixed;
use unicode_width::UnicodeWidthStr;

use super::spinner::spinner;
use super::text::truncate;
use crate::app::App;
use crate::status::{Status, format_tokens};

/// The notice line: what runs now and what waits in the queues.
pub fn notice_line(app: &App, now: Instant) -> Line<'static> {
    let status = app.status();
    let since = app.working_since().unwrap_or(now);
    let spin = spinner(now.saturating_duration_since(since));
    let mut parts: Vec<Span<'static>> = Vec::new();
    if let Some(retry) = status.retry() {
        parts.push(Span::styled(
            format!(
                "{spin} Retrying ({}/{}) in {}s... (esc to cancel)",
                retry.attempt,
                retry.max_attempts,
                retry.seconds_left(now)
            ),
            Style::default().fg(Color::Yellow),
        ));
    } else if let Some(label) = status.compacting() {
        parts.push(Span::styled(
            format!("{spin} {label} (esc to cancel)"),
            Style::default().fg(Color::Cyan),
        ));
    } else if app.working() {
        parts.push(Span::styled(
            format!("{spin} Working... (esc to interrupt)"),
            Style::default().fg(Color::Cyan),
        ));
    }
    let queued = queue_summary(status);
    if !queued.is_empty() {
        if !parts.is_empty() {
            parts.push(Span::raw(" · "));
        }
        parts.push(Span::styled(queued, Style::default().fg(Color::Magenta)));
    }
    Line::from(parts)
}

fn queue_summary(status: &Status) -> String {
    let counts = [
        (status.steering().len(), "steering"),
        (status.follow_up().len(), "follow-up"),
    ];
    let parts: Vec<String> = counts
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} {what}"))
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!("Queued: {}", parts.join(", "))
    }
}

/// The footer's two lines at `width` columns.
pub fn footer_lines(status: &Status, width: usize) -> [Line<'static>; 2] {
    let dim = Style::default().fg(Color::DarkGray);
    let info = status.info();
    let cwd = match status.git_branch() {
        Some(branch) => format!("{} ({branch})", info.cwd),
        None => info.cwd.clone(),
    };
    let cwd = Line::from(Span::styled(truncate(&cwd, width), dim));
    let mut stats = Vec::new();
    let counts = [
        ("↑", status.input()),
        ("↓", status.output()),
        ("R", status.cache_read()),
        ("W", status.cache_write()),
    ];
    for (mark, count) in counts {
        if count > 0 {
            stats.push(format!("{mark}{}", format_tokens(count)));
        }
    }
    if status.cost() > 0.0 {
        stats.push(format!("${}", to_fixed(status.cost(), 3)));
    }
    let window = format_tokens(info.context_window);
    let auto = if info.auto_compact { " (auto)" } else { "" };
    stats.push(match (status.context_tokens(), status.context_percent()) {
        (Some(tokens), Some(percent)) => {
            let percent = to_fixed(percent, 1);
            format!("ctx {} {percent}%/{window}{auto}", format_tokens(tokens))
        }
        _ => format!("ctx ?/{window}{auto}"),
    });
    let left = truncate(&stats.join(" "), width);
    let model = &info.model_id;
    let right = if info.reasoning {
        match info.thinking.as_str() {
            "off" => format!("{model} • thinking off"),
            level => format!("{model} • {level}"),
        }
    } else {
        model.clone()
    };
    let room = width.saturating_sub(left.width() + 2);
    let right = if right.width() <= room {
        right
    } else {
        truncate(&right, room)
    };
    let padding = width.saturating_sub(left.width() + right.width());
    let stats_line = Line::from(Span::styled(
        format!("{left}{}{right}", " ".repeat(padding)),
        dim,
    ));
    [cwd, stats_line]
}

/// Renders the notice line into `notice` and the footer into `footer`.
pub fn render(frame: &mut Frame, notice: Rect, footer: Rect, app: &App, now: Instant) {
    frame.render_widget(Paragraph::new(notice_line(app, now)), notice);
    let lines = footer_lines(app.status(), usize::from(footer.width));
    frame.render_widget(Paragraph::new(lines.to_vec()), footer);
}
