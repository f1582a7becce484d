//! The `@` completion list, drawn just above the editor over the conversation's last rows.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::list::{self, dim};
use crate::completion::Completion;

/// The list's lines at `width` columns: one per suggestion, the highlighted one marked; a note
/// while the files are still being listed or when nothing matches.
pub fn lines(completion: &Completion, indexed: bool, width: usize) -> Vec<Line<'static>> {
    if completion.items.is_empty() {
        let note = if indexed {
            "No matching files"
        } else {
            "Listing files..."
        };
        return vec![Line::from(Span::styled(note, dim()))];
    }
    completion
        .items
        .iter()
        .enumerate()
        .map(|(i, path)| list::row(i == completion.selected, path, "", width))
        .collect()
}

/// Renders the list into the bottom rows of `above` (the conversation's area).
pub fn render(frame: &mut Frame, above: Rect, completion: &Completion, indexed: bool) {
    list::render_at_bottom(
        frame,
        above,
        lines(completion, indexed, usize::from(above.width)),
    );
}
