//! The `/tree` navigator: every entry of the session file, indented at branch points, the current
//! leaf marked. Enter on another entry asks Pi's "Summarize branch?" (no summary, or a summary
//! of the branch left behind), then moves the leaf; Escape in that question goes back to the
//! tree.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{OverlayOutcome, SwitchRequest, TreeRow};
use crate::picker::wrap_step as step;

/// Rows one Left/Right moves (Pi: page up/down).
const PAGE: usize = 10;

/// The answers to "Summarize branch?", in Pi's order (Pi's third, a custom prompt, is not
/// offered).
pub const SUMMARY_CHOICES: [&str; 2] = ["No summary", "Summarize"];

/// The navigator's state.
#[derive(Clone, Debug)]
pub struct TreeView {
    /// The entries in display order.
    pub rows: Vec<TreeRow>,
    /// The highlighted row.
    pub selected: usize,
    /// While "Summarize branch?" is asked: the highlighted answer.
    pub asking: Option<usize>,
}

impl TreeView {
    /// A navigator over `rows`, starting on the current leaf as Pi does.
    pub fn new(rows: Vec<TreeRow>) -> Self {
        let selected = rows.iter().position(|row| row.current).unwrap_or(0);
        TreeView {
            rows,
            selected,
            asking: None,
        }
    }

    /// Handles one key.
    pub fn on_key(&mut self, key: KeyEvent) -> OverlayOutcome {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if let Some(answer) = self.asking {
            return self.answer_key(key.code, ctrl, answer);
        }
        let len = self.rows.len();
        match key.code {
            KeyCode::Esc => return OverlayOutcome::Cancelled,
            KeyCode::Char('c') if ctrl => return OverlayOutcome::Cancelled,
            KeyCode::Enter => match self.rows.get(self.selected) {
                Some(row) if row.current => {
                    return OverlayOutcome::Remark("Already at this point".to_owned());
                }
                Some(_) => self.asking = Some(0),
                None => {}
            },
            KeyCode::Up => self.selected = step(self.selected, len, -1),
            KeyCode::Down => self.selected = step(self.selected, len, 1),
            KeyCode::Left => self.selected = self.selected.saturating_sub(PAGE),
            KeyCode::Right => {
                self.selected = (self.selected + PAGE).min(len.saturating_sub(1));
            }
            _ => {}
        }
        OverlayOutcome::Open
    }

    fn answer_key(&mut self, code: KeyCode, ctrl: bool, answer: usize) -> OverlayOutcome {
        match code {
            KeyCode::Esc => self.asking = None,
            KeyCode::Char('c') if ctrl => self.asking = None,
            KeyCode::Up => self.asking = Some(step(answer, SUMMARY_CHOICES.len(), -1)),
            KeyCode::Down => self.asking = Some(step(answer, SUMMARY_CHOICES.len(), 1)),
            KeyCode::Enter => {
                if let Some(row) = self.rows.get(self.selected) {
                    return OverlayOutcome::Chosen(SwitchRequest::Branch {
                        entry_id: row.entry_id.clone(),
                        summarize: answer == 1,
                    });
                }
            }
            _ => {}
        }
        OverlayOutcome::Open
    }
}
