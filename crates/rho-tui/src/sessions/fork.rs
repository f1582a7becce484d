//! The `/fork` picker: the session's user messages, newest first as Pi lists them; Enter starts
//! a new session file branched before the highlighted one, with its text in the editor.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{ForkPoint, OverlayOutcome, SwitchRequest, matches_query, step};

/// The picker's state.
#[derive(Clone, Debug)]
pub struct ForkPicker {
    /// The user messages, oldest first.
    pub points: Vec<ForkPoint>,
    /// The search text.
    pub query: String,
    /// The highlighted row among the visible ones.
    pub selected: usize,
}

impl ForkPicker {
    /// A picker over `points` (oldest first, as the session file holds them).
    pub fn new(points: Vec<ForkPoint>) -> Self {
        ForkPicker {
            points,
            query: String::new(),
            selected: 0,
        }
    }

    /// The rows the search lets through, newest first.
    pub fn visible(&self) -> Vec<&ForkPoint> {
        self.points
            .iter()
            .rev()
            .filter(|point| matches_query(&point.text, &self.query))
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
                    Some(point) => {
                        OverlayOutcome::Chosen(SwitchRequest::Fork(point.entry_id.clone()))
                    }
                    None => OverlayOutcome::Open,
                };
            }
            KeyCode::Up => self.selected = step(self.selected, self.visible().len(), -1),
            KeyCode::Down => self.selected = step(self.selected, self.visible().len(), 1),
            KeyCode::Backspace => {
                self.query.pop();
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
