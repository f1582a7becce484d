//! The conversation pane: every entry turned into wrapped lines, the newest at the bottom.

use std::time::{Duration, Instant};

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::text::{assistant_text, styled, truncate, wrap};
use crate::app::App;
use crate::transcript::{AssistantBlock, AssistantEntry, Entry, ToolEntry, ToolStatus};

/// Lines of tool output shown while collapsed.
pub const COLLAPSED_OUTPUT_LINES: usize = 5;

/// The braille spinner Pi's loader uses, one frame per 80 ms.
const SPINNER: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/// The spinner frame for `elapsed`.
pub fn spinner(elapsed: Duration) -> char {
    SPINNER[(elapsed.as_millis() / 80) as usize % SPINNER.len()]
}

/// Renders the conversation into `area`, scrolled `app.scroll` lines up from the bottom.
pub fn render(frame: &mut Frame, area: Rect, app: &App, now: Instant) {
    let lines = lines(app, usize::from(area.width), now);
    let height = usize::from(area.height);
    // Scrolling stops with the first line at the top.
    let scroll = app.scroll.min(lines.len().saturating_sub(height));
    let bottom = lines.len() - scroll;
    let top = bottom.saturating_sub(height);
    let visible: Vec<Line> = lines[top..bottom].to_vec();
    frame.render_widget(Paragraph::new(visible), area);
}

/// All lines of the conversation at `width` columns.
pub fn lines(app: &App, width: usize, now: Instant) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    for entry in &app.transcript {
        if !out.is_empty() {
            out.push(Line::default());
        }
        match entry {
            Entry::User(text) => out.extend(user(text, width)),
            Entry::Assistant(assistant) => out.extend(assistant_lines(assistant, app, width)),
            Entry::Tool(tool) => out.extend(tool_lines(tool, app.expand_tools, width, now)),
            Entry::Error(text) => {
                out.extend(styled(wrap(text, width), Style::default().fg(Color::Red)))
            }
            Entry::Notice(text) => out.extend(styled(
                wrap(text, width),
                Style::default().fg(Color::Yellow),
            )),
        }
    }
    out
}

fn user(text: &str, width: usize) -> Vec<Line<'static>> {
    let style = Style::default().add_modifier(Modifier::BOLD);
    wrap(text, width.saturating_sub(2))
        .into_iter()
        .enumerate()
        .map(|(i, line)| {
            let prefix = if i == 0 { "› " } else { "  " };
            Line::from(vec![
                Span::styled(prefix, Style::default().fg(Color::Cyan)),
                Span::styled(line, style),
            ])
        })
        .collect()
}

fn assistant_lines(entry: &AssistantEntry, app: &App, width: usize) -> Vec<Line<'static>> {
    let thinking_style = Style::default()
        .fg(Color::DarkGray)
        .add_modifier(Modifier::ITALIC);
    let mut out = Vec::new();
    for block in &entry.blocks {
        match block {
            AssistantBlock::Text(text) if text.trim().is_empty() => {}
            AssistantBlock::Text(text) => {
                out.extend(assistant_text(text.trim(), width, Style::default()))
            }
            AssistantBlock::Thinking(text) if app.show_thinking => {
                out.extend(styled(wrap(text.trim(), width), thinking_style));
            }
            AssistantBlock::Thinking(_) => {
                out.push(Line::from(Span::styled(
                    "Thinking... (ctrl+t to expand)",
                    thinking_style,
                )));
            }
        }
    }
    out
}

fn tool_lines(tool: &ToolEntry, expanded: bool, width: usize, now: Instant) -> Vec<Line<'static>> {
    let (icon, color) = match tool.status {
        ToolStatus::Running => (
            spinner(now.saturating_duration_since(tool.started)),
            Color::Cyan,
        ),
        ToolStatus::Done => ('✓', Color::Green),
        ToolStatus::Failed => ('✗', Color::Red),
        ToolStatus::Refused => ('⊘', Color::Red),
        ToolStatus::Cancelled => ('■', Color::Yellow),
    };
    let elapsed = tool
        .elapsed
        .unwrap_or_else(|| now.saturating_duration_since(tool.started));
    let suffix = match tool.status {
        ToolStatus::Refused => " blocked".to_owned(),
        ToolStatus::Cancelled => format!(" cancelled ({:.1}s)", elapsed.as_secs_f64()),
        _ => format!(" ({:.1}s)", elapsed.as_secs_f64()),
    };
    let head = format!("{icon} {}", tool.name);
    let room = width.saturating_sub(head.chars().count() + suffix.chars().count() + 1);
    let argument = tool
        .key_argument()
        .map(|a| truncate(&a.replace('\n', " "), room))
        .unwrap_or_default();
    let mut out = vec![Line::from(vec![
        Span::styled(
            head,
            Style::default().fg(color).add_modifier(Modifier::BOLD),
        ),
        Span::raw(" "),
        Span::raw(argument),
        Span::styled(suffix, Style::default().fg(Color::DarkGray)),
    ])];
    let output_style = match tool.status {
        ToolStatus::Failed | ToolStatus::Refused => Style::default().fg(Color::Red),
        _ => Style::default().fg(Color::Gray),
    };
    let body = wrap(tool.output.trim_end(), width.saturating_sub(2));
    if tool.output.trim().is_empty() {
        return out;
    }
    let hidden = if expanded {
        0
    } else {
        body.len().saturating_sub(COLLAPSED_OUTPUT_LINES)
    };
    let note = Line::from(Span::styled(
        format!(
            "  ... {hidden} more {} (ctrl+o to expand)",
            if hidden == 1 { "line" } else { "lines" }
        ),
        Style::default().fg(Color::DarkGray),
    ));
    let indent = |l: &String| Line::from(Span::styled(format!("  {l}"), output_style));
    if tool.status == ToolStatus::Running {
        // Live output: the newest lines matter, so the cut is at the top.
        if hidden > 0 {
            out.push(note);
        }
        out.extend(body[hidden..].iter().map(indent));
    } else {
        out.extend(body[..body.len() - hidden].iter().map(indent));
        if hidden > 0 {
            out.push(note);
        }
    }
    out
}
