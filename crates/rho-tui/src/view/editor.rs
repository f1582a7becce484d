//! The editor between two rules, hard-wrapped so the cursor lands exactly where the text is.

use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::style::{Color, Style};
use ratatui::text::Line;
use ratatui::widgets::{Block, Borders, Paragraph};
use unicode_width::UnicodeWidthChar;

use crate::editor::Editor;

/// Most text rows the editor grows to before it scrolls.
pub const MAX_ROWS: usize = 8;

/// The rows the editor needs at `width` columns (its text, not the rules).
pub fn rows(editor: &Editor, width: usize) -> usize {
    layout(editor, width).0.len().clamp(1, MAX_ROWS)
}

/// Hard-wrapped rows and the cursor's (row, column) in them.
fn layout(editor: &Editor, width: usize) -> (Vec<String>, (usize, usize)) {
    let width = width.max(1);
    let mut rows = vec![String::new()];
    let mut column = 0;
    let mut cursor = (0, 0);
    for (offset, c) in editor.text().char_indices() {
        if offset == editor.cursor() {
            cursor = (rows.len() - 1, column);
        }
        if c == '\n' {
            rows.push(String::new());
            column = 0;
            continue;
        }
        let w = c.width().unwrap_or(0);
        if column + w > width {
            rows.push(String::new());
            column = 0;
            if offset == editor.cursor() {
                cursor = (rows.len() - 1, 0);
            }
        }
        if let Some(row) = rows.last_mut() {
            row.push(c);
        }
        column += w;
    }
    if editor.cursor() >= editor.text().len() {
        cursor = if column >= width {
            rows.push(String::new());
            (rows.len() - 1, 0)
        } else {
            (rows.len() - 1, column)
        };
    }
    (rows, cursor)
}

/// Renders the editor into `area` (rules above and below) and places the terminal cursor.
pub fn render(frame: &mut Frame, area: Rect, editor: &Editor, working: bool) {
    let color = if working {
        Color::Cyan
    } else {
        Color::DarkGray
    };
    let block = Block::default()
        .borders(Borders::TOP | Borders::BOTTOM)
        .border_style(Style::default().fg(color));
    let inner = block.inner(area);
    let (rows, (row, column)) = layout(editor, usize::from(inner.width));
    let height = usize::from(inner.height).max(1);
    let first = (row + 1).saturating_sub(height);
    let visible: Vec<Line> = rows
        .into_iter()
        .skip(first)
        .take(height)
        .map(Line::from)
        .collect();
    frame.render_widget(Paragraph::new(visible).block(block), area);
    let x = inner
        .x
        .saturating_add(u16::try_from(column).unwrap_or(u16::MAX));
    let y = inner
        .y
        .saturating_add(u16::try_from(row - first).unwrap_or(u16::MAX));
    frame.set_cursor_position(Position::new(x.min(inner.right().saturating_sub(1)), y));
}
