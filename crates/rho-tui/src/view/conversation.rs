//! The conversation pane: every entry turned into wrapped lines, the newest at the bottom.
//! Assistant text is Markdown ([`markdown`]), tool calls are blocks ([`tool_block`]).

use std::time::Instant;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::lazy_code::{self, PendingCode};
use super::markdown;
pub use super::spinner::spinner;
use super::summary;
use super::text::{styled, wrap};
use super::tool_block;
use crate::app::App;
use crate::transcript::{AssistantBlock, AssistantEntry, Entry};

/// Renders the conversation into `area`, scrolled `app.scroll()` lines up from the bottom. Code of
/// finished replies is highlighted only on the rows shown.
pub fn render(frame: &mut Frame, area: Rect, app: &App, now: Instant) {
    let Layout { mut lines, code } = layout(app, usize::from(area.width), now);
    let height = usize::from(area.height);
    // Scrolling stops with the first line at the top.
    let scroll = app.scroll().min(lines.len().saturating_sub(height));
    let bottom = lines.len() - scroll;
    let top = bottom.saturating_sub(height);
    lazy_code::fill(&mut lines, &code, top..bottom);
    let visible: Vec<Line> = lines[top..bottom].to_vec();
    frame.render_widget(Paragraph::new(visible), area);
}

/// All lines of the conversation at `width` columns, every code line highlighted.
pub fn lines(app: &App, width: usize, now: Instant) -> Vec<Line<'static>> {
    let Layout { mut lines, code } = layout(app, width, now);
    let all = 0..lines.len();
    lazy_code::fill(&mut lines, &code, all);
    lines
}

/// The conversation laid out, with the code of finished replies still plain.
pub struct Layout {
    /// Every row.
    pub lines: Vec<Line<'static>>,
    /// The code lines among them still plain, in row order.
    pub code: Vec<PendingCode>,
}

/// The conversation at `width` columns, code of finished replies left for [`lazy_code::fill`].
pub fn layout(app: &App, width: usize, now: Instant) -> Layout {
    let mut out = Vec::new();
    let mut code = Vec::new();
    for entry in app.transcript() {
        if !out.is_empty() {
            out.push(Line::default());
        }
        match entry {
            Entry::User(text) => out.extend(user(text, width)),
            Entry::Assistant(assistant) => {
                assistant_lines(assistant, app, width, &mut out, &mut code);
            }
            Entry::Tool(tool) => {
                out.extend(tool_block::lines(tool, app.expand_tools(), width, now))
            }
            Entry::Error(text) => {
                out.extend(styled(wrap(text, width), Style::default().fg(Color::Red)))
            }
            Entry::Notice(text) => out.extend(styled(
                wrap(text, width),
                Style::default().fg(Color::Yellow),
            )),
            Entry::Summary(entry) => out.extend(summary::lines(entry, app.expand_tools(), width)),
        }
    }
    Layout { lines: out, code }
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

fn assistant_lines(
    entry: &AssistantEntry,
    app: &App,
    width: usize,
    out: &mut Vec<Line<'static>>,
    code: &mut Vec<PendingCode>,
) {
    let thinking_style = Style::default()
        .fg(Color::DarkGray)
        .add_modifier(Modifier::ITALIC);
    for block in &entry.blocks {
        match block {
            AssistantBlock::Text(text) if text.trim().is_empty() => {}
            AssistantBlock::Text(text) if entry.streaming => {
                out.extend(markdown::render(text.trim(), width));
            }
            AssistantBlock::Text(text) => {
                let document = markdown::document_cached(text.trim(), width);
                let at = out.len();
                code.extend(document.code.iter().map(|c| c.shifted(at)));
                out.extend(document.lines.iter().cloned());
            }
            AssistantBlock::Thinking(text) if text.trim().is_empty() => {}
            AssistantBlock::Thinking(text) if app.show_thinking() => {
                out.extend(styled(wrap(text.trim(), width), thinking_style));
            }
            AssistantBlock::Thinking(text) => {
                let words = text.split_whitespace().count();
                let noun = if words == 1 { "word" } else { "words" };
                out.push(Line::from(Span::styled(
                    format!("Thinking... ({words} {noun}, ctrl+t to expand)"),
                    thinking_style,
                )));
            }
        }
    }
}
