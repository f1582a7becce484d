//! A read-only box of text over the conversation (`/hotkeys`, `/help`, `/session`,
//! `/settings`): Up/Down and PageUp/PageDown scroll, any other key closes it.

use crossterm::event::{KeyCode, KeyEvent};
use unicode_width::UnicodeWidthStr;

/// The panel's content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Panel {
    /// The box's title.
    pub title: String,
    /// The lines.
    pub lines: Vec<String>,
    /// Lines scrolled off the top.
    pub scroll: usize,
}

impl Panel {
    /// A panel of `lines`.
    pub fn text(title: impl Into<String>, lines: Vec<String>) -> Self {
        Panel {
            title: title.into(),
            lines,
            scroll: 0,
        }
    }

    /// A panel of two columns, the labels padded to one width.
    pub fn table(title: impl Into<String>, rows: Vec<(String, String)>) -> Self {
        let width = rows.iter().map(|(l, _)| l.width()).max().unwrap_or(0);
        let lines = rows
            .into_iter()
            .map(|(label, value)| {
                if label.is_empty() {
                    return value;
                }
                let pad = width.saturating_sub(label.width());
                format!("{label}{}  {value}", " ".repeat(pad))
            })
            .collect();
        Panel::text(title, lines)
    }

    /// Handles a key; `false` once the panel is closed.
    pub fn handle_key(&mut self, key: KeyEvent) -> bool {
        match key.code {
            KeyCode::Up => self.scroll = self.scroll.saturating_sub(1),
            KeyCode::Down => {
                self.scroll = (self.scroll + 1).min(self.lines.len().saturating_sub(1))
            }
            KeyCode::PageUp => self.scroll = self.scroll.saturating_sub(10),
            KeyCode::PageDown => {
                self.scroll = (self.scroll + 10).min(self.lines.len().saturating_sub(1));
            }
            _ => return false,
        }
        true
    }
}
