//! Small pieces of the session overlays' lines, shared by the tree, the fork list and the
//! resume picker.

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::view::list::dim;

pub(crate) fn bold() -> Style {
    Style::default().add_modifier(Modifier::BOLD)
}

/// A one-line input after `prompt`, the character under the cursor reversed (a block after
/// the end).
pub(crate) fn input_line(prompt: &str, text: &str, cursor: usize) -> Line<'static> {
    let (before, after) = text.split_at(cursor.min(text.len()));
    let mut chars = after.chars();
    let under = match chars.next() {
        Some(c) => Span::styled(
            c.to_string(),
            Style::default().add_modifier(Modifier::REVERSED),
        ),
        None => Span::styled("█", dim()),
    };
    Line::from(vec![
        Span::raw(format!("{prompt}{before}")),
        under,
        Span::raw(chars.as_str().to_owned()),
    ])
}
