//! The `/resume` picker: this directory's sessions (Tab: every directory's), newest first,
//! narrowed by typing; Enter continues the highlighted one.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{OverlayOutcome, SessionRow, SwitchRequest, matches_query, step};

/// The picker's state.
#[derive(Clone, Debug)]
pub struct SessionPicker {
    /// The sessions of the working directory.
    pub here: Vec<SessionRow>,
    /// The sessions of every directory.
    pub everywhere: Vec<SessionRow>,
    /// Whether every directory's sessions are listed.
    pub all: bool,
    /// The search text.
    pub query: String,
    /// The highlighted row among the visible ones.
    pub selected: usize,
}

impl SessionPicker {
    /// A picker over `here` (this directory) and `everywhere` (all directories).
    pub fn new(here: Vec<SessionRow>, everywhere: Vec<SessionRow>) -> Self {
        SessionPicker {
            here,
            everywhere,
            all: false,
            query: String::new(),
            selected: 0,
        }
    }

    /// The rows the search lets through, in order.
    pub fn visible(&self) -> Vec<&SessionRow> {
        let rows = if self.all {
            &self.everywhere
        } else {
            &self.here
        };
        rows.iter()
            .filter(|row| {
                let haystack = format!(
                    "{} {} {}",
                    row.name.as_deref().unwrap_or_default(),
                    row.first_message,
                    row.cwd
                );
                matches_query(&haystack, &self.query)
            })
            .collect()
    }

    /// Handles one key.
    pub fn on_key(&mut self, key: KeyEvent) -> OverlayOutcome {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Esc => return OverlayOutcome::Cancelled,
            KeyCode::Char('c') if ctrl => return OverlayOutcome::Cancelled,
            KeyCode::Enter => {
                return match self.visible().get(self.selected) {
                    Some(row) => OverlayOutcome::Chosen(SwitchRequest::Open(row.path.clone())),
                    None => OverlayOutcome::Open,
                };
            }
            KeyCode::Tab => {
                self.all = !self.all;
                self.selected = 0;
            }
            KeyCode::Up => self.selected = step(self.selected, self.visible().len(), -1),
            KeyCode::Down => self.selected = step(self.selected, self.visible().len(), 1),
            KeyCode::Backspace => {
                self.query.pop();
                self.selected = 0;
            }
            KeyCode::Char('u') if ctrl => {
                self.query.clear();
                self.selected = 0;
            }
            KeyCode::Char(c) if !ctrl => {
                self.query.push(c);
                self.selected = 0;
            }
            _ => {}
        }
        OverlayOutcome::Open
    }
}
