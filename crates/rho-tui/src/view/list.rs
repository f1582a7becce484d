//! How every list in the UI draws its rows: the highlighted one marked `› ` in the accent colour,
//! the window scrolled so it stays in view, text on the left and a detail after it, and lists
//! laid over the bottom of an area (popups above the editor, boxes over the conversation).

use std::ops::Range;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use unicode_width::UnicodeWidthStr;

use super::text::truncate;

/// The highlighted row's style.
pub fn highlight() -> Style {
    Style::default()
        .fg(Color::Cyan)
        .add_modifier(Modifier::BOLD)
}

/// Hints, details and notes.
pub fn dim() -> Style {
    Style::default().fg(Color::DarkGray)
}

/// The rows of a list of `len` to show in `height` rows so that `selected` is among them.
pub fn window(selected: usize, len: usize, height: usize) -> Range<usize> {
    let height = height.max(1);
    let start = selected
        .saturating_sub(height - 1)
        .min(len.saturating_sub(height));
    start..(start + height).min(len)
}

fn marker(selected: bool) -> (&'static str, Style) {
    if selected {
        ("› ", highlight())
    } else {
        ("  ", Style::default())
    }
}

/// A row of `width` columns: the marker, `text` cut to fit, `detail` (dim) at the right edge.
pub fn row(selected: bool, text: &str, detail: &str, width: usize) -> Line<'static> {
    let detail_width = detail.width();
    let gap = if detail.is_empty() { 0 } else { 2 };
    let text = truncate(text, width.saturating_sub(2 + gap + detail_width));
    let (marker, style) = marker(selected);
    let mut spans = vec![
        Span::styled(marker.to_owned(), style),
        Span::styled(text.clone(), style),
    ];
    if !detail.is_empty() {
        let pad = width.saturating_sub(2 + text.width() + detail_width);
        spans.push(Span::raw(" ".repeat(pad)));
        spans.push(Span::styled(detail.to_owned(), dim()));
    }
    Line::from(spans)
}

/// The width of a label column: the widest of `labels`, at most half of `width`.
pub fn label_width<'a>(labels: impl Iterator<Item = &'a str>, width: usize) -> usize {
    labels
        .map(UnicodeWidthStr::width)
        .max()
        .unwrap_or(0)
        .min(width / 2)
}

/// A row of two columns: the marker, `label` padded to `label_width`, then `detail` cut to what
/// is left of `width` (the accent colour on the highlighted row, dim on the others).
pub fn columns_row(
    selected: bool,
    label: &str,
    label_width: usize,
    detail: &str,
    width: usize,
) -> Line<'static> {
    let label = truncate(label, label_width);
    let pad = label_width.saturating_sub(label.width());
    let (marker, style) = marker(selected);
    let mut spans = vec![Span::styled(
        format!("{marker}{label}{}", " ".repeat(pad)),
        style,
    )];
    if !detail.is_empty() {
        let detail = truncate(detail, width.saturating_sub(label_width + 4));
        let detail_style = if selected {
            Style::default().fg(Color::Cyan)
        } else {
            dim()
        };
        spans.push(Span::styled(format!("  {detail}"), detail_style));
    }
    Line::from(spans)
}

/// The rows of `area` that `lines` fill from its bottom (at most all of them).
fn bottom(area: Rect, rows: usize) -> Rect {
    let height = u16::try_from(rows).unwrap_or(u16::MAX).min(area.height);
    Rect {
        y: area.bottom().saturating_sub(height),
        height,
        ..area
    }
}

/// Draws `lines` over the bottom rows of `area` (a popup just above the editor).
pub fn render_at_bottom(frame: &mut Frame, area: Rect, lines: Vec<Line<'static>>) {
    let area = bottom(area, lines.len());
    frame.render_widget(Clear, area);
    frame.render_widget(Paragraph::new(lines), area);
}

/// Draws `lines` in a bordered box titled `title` over the bottom of `area`, as tall as they need.
pub fn render_box_at_bottom(frame: &mut Frame, area: Rect, title: &str, lines: Vec<Line<'static>>) {
    let area = bottom(area, lines.len() + 2);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(dim())
        .title(Span::styled(
            format!(" {title} "),
            Style::default().add_modifier(Modifier::BOLD),
        ));
    frame.render_widget(Clear, area);
    frame.render_widget(Paragraph::new(lines).block(block), area);
}
