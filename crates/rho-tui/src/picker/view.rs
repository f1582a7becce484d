//! A picker drawn as a bordered box: the title, the search line, then the rows that match, the
//! highlighted one marked, with the detail columns aligned after the labels.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use unicode_width::UnicodeWidthStr;

use super::Picker;
use crate::view::text::truncate;

/// The lines inside the box: the search line, then at most `rows` items around the highlight.
pub fn lines(picker: &Picker, width: usize, rows: usize) -> Vec<Line<'static>> {
    let dim = Style::default().fg(Color::DarkGray);
    let mut lines = vec![Line::from(vec![
        Span::styled("Search: ", dim),
        Span::raw(picker.query().to_owned()),
        Span::styled("█", dim),
    ])];
    let visible = picker.visible();
    if visible.is_empty() {
        lines.push(Line::from(Span::styled("  No matches", dim)));
        return lines;
    }
    let label_width = visible
        .iter()
        .filter_map(|&i| picker.items().get(i))
        .map(|item| item.label.width())
        .max()
        .unwrap_or(0)
        .min(width / 2);
    // Scrolls so the highlight stays on screen.
    let rows = rows.max(1);
    let first = picker.selected_row().saturating_sub(rows - 1);
    for (position, &index) in visible.iter().enumerate().skip(first).take(rows) {
        let Some(item) = picker.items().get(index) else {
            continue;
        };
        let highlighted = position == picker.selected_row();
        let label = truncate(&item.label, label_width);
        let pad = label_width.saturating_sub(label.width());
        let marker = if highlighted { "› " } else { "  " };
        let label_style = if highlighted {
            Style::default()
                .fg(Color::Cyan)
                .add_modifier(Modifier::BOLD)
        } else {
            Style::default()
        };
        let mut spans = vec![Span::styled(
            format!("{marker}{label}{}", " ".repeat(pad)),
            label_style,
        )];
        let details = item.details.join("  ");
        if !details.is_empty() {
            let room = width.saturating_sub(label_width + 4);
            spans.push(Span::styled(format!("  {}", truncate(&details, room)), dim));
        }
        lines.push(Line::from(spans));
    }
    if visible.len() > rows {
        lines.push(Line::from(Span::styled(
            format!("  ({}/{})", picker.selected_row() + 1, visible.len()),
            dim,
        )));
    }
    lines
}

/// Renders `picker` over the bottom of `area` (the conversation and editor), as tall as its
/// rows need and at most the whole area.
pub fn render(frame: &mut Frame, area: Rect, picker: &Picker) {
    let inner_width = usize::from(area.width.saturating_sub(2));
    // Borders, the search line and the position line take four rows.
    let rows = usize::from(area.height.saturating_sub(4)).min(12);
    let lines = lines(picker, inner_width, rows);
    let height = u16::try_from(lines.len() + 2)
        .unwrap_or(u16::MAX)
        .min(area.height);
    let area = Rect {
        y: area.bottom().saturating_sub(height),
        height,
        ..area
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(Style::default().fg(Color::DarkGray))
        .title(Span::styled(
            format!(" {} ", picker.title()),
            Style::default().add_modifier(Modifier::BOLD),
        ));
    frame.render_widget(Clear, area);
    frame.render_widget(Paragraph::new(lines).block(block), area);
}
