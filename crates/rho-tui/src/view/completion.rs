//! The `@` completion list, drawn just above the editor over the conversation's last rows.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};

use super::text::truncate;
use crate::completion::Completion;

/// The list's lines at `width` columns: one per suggestion, the highlighted one marked; a note
/// while the files are still being listed or when nothing matches.
pub fn lines(completion: &Completion, indexed: bool, width: usize) -> Vec<Line<'static>> {
    let dim = Style::default().fg(Color::DarkGray);
    if completion.items.is_empty() {
        let note = if indexed {
            "No matching files"
        } else {
            "Listing files..."
        };
        return vec![Line::from(Span::styled(note, dim))];
    }
    completion
        .items
        .iter()
        .enumerate()
        .map(|(i, path)| {
            let path = truncate(path, width.saturating_sub(2));
            if i == completion.selected {
                Line::from(Span::styled(
                    format!("› {path}"),
                    Style::default()
                        .fg(Color::Cyan)
                        .add_modifier(Modifier::BOLD),
                ))
            } else {
                Line::from(Span::raw(format!("  {path}")))
            }
        })
        .collect()
}

/// Renders the list into the bottom rows of `above` (the conversation's area).
pub fn render(frame: &mut Frame, above: Rect, completion: &Completion, indexed: bool) {
    let lines = lines(completion, indexed, usize::from(above.width));
    let rows = u16::try_from(lines.len())
        .unwrap_or(u16::MAX)
        .min(above.height);
    let area = Rect {
        y: above.bottom().saturating_sub(rows),
        height: rows,
        ..above
    };
    frame.render_widget(Clear, area);
    frame.render_widget(Paragraph::new(lines), area);
}
