//! Keys for what sits over the editor: the approval dialog (which takes every key while it is
//! open) and the `@` completion list (which takes only the keys that move in it or accept).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::app::App;
use crate::approval::ApprovalChoice;
use crate::completion::at_word;
use crate::keys::Command;

impl App {
    /// A key for the approval dialog on screen: y / a / n pick at once, arrows move, Enter
    /// takes the highlighted choice, Escape denies. Other keys are swallowed, so a stray
    /// keystroke can never approve a command.
    pub(crate) fn approval_key(&mut self, key: KeyEvent) -> Vec<Command> {
        let Some(dialog) = self.approvals.front_mut() else {
            return Vec::new();
        };
        let last = ApprovalChoice::ALL.len() - 1;
        let choice = match key.code {
            KeyCode::Char('y' | 'Y') => ApprovalChoice::Once,
            KeyCode::Char('a' | 'A') => ApprovalChoice::Always,
            KeyCode::Char('n' | 'N') | KeyCode::Esc => ApprovalChoice::Deny,
            KeyCode::Enter => dialog.choice(),
            KeyCode::Left | KeyCode::Up | KeyCode::BackTab => {
                dialog.selected = dialog.selected.checked_sub(1).unwrap_or(last);
                return Vec::new();
            }
            KeyCode::Right | KeyCode::Down | KeyCode::Tab => {
                dialog.selected = if dialog.selected >= last {
                    0
                } else {
                    dialog.selected + 1
                };
                return Vec::new();
            }
            _ => return Vec::new(),
        };
        match self.approvals.pop_front() {
            Some(dialog) => vec![Command::Answer(dialog, choice)],
            None => Vec::new(),
        }
    }

    /// A key for the open completion list; `None` when the key is not the list's.
    pub(crate) fn completion_key(&mut self, key: KeyEvent) -> Option<Vec<Command>> {
        let completion = self.completion.as_mut()?;
        if key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
        {
            return None;
        }
        match key.code {
            KeyCode::Esc => self.completion = None,
            KeyCode::Up if !completion.items.is_empty() => {
                completion.selected = completion
                    .selected
                    .checked_sub(1)
                    .unwrap_or(completion.items.len() - 1);
            }
            KeyCode::Down if !completion.items.is_empty() => {
                completion.selected = (completion.selected + 1) % completion.items.len();
            }
            KeyCode::Tab | KeyCode::Enter => {
                let Some(path) = completion.current().map(str::to_owned) else {
                    // Nothing to accept: Enter sends as usual, Tab does nothing.
                    self.completion = None;
                    return (key.code == KeyCode::Tab).then(Vec::new);
                };
                let start = completion.start;
                let mut end = self.editor.cursor();
                let text = self.editor.text();
                let quoted = text.get(start..).is_some_and(|w| w.starts_with("@\""));
                // A quoted word's own closing quote is replaced with the path's.
                if quoted && text.get(end..).is_some_and(|rest| rest.starts_with('"')) {
                    end += 1;
                }
                let (with, back) = crate::completion::accepted_text(&path, quoted);
                self.editor.replace_range(start..end, &with);
                for _ in 0..back {
                    self.editor.left();
                }
                self.completion = None;
                self.refresh_completion();
            }
            _ => return None,
        }
        Some(Vec::new())
    }

    /// Opens, updates or closes the completion list after an edit. Returns
    /// [`Command::IndexFiles`] the first time an `@` word needs the list of files.
    pub(crate) fn refresh_completion(&mut self) -> Vec<Command> {
        let Some((start, query)) = at_word(self.editor.text(), self.editor.cursor()) else {
            self.completion = None;
            return Vec::new();
        };
        let query = query.to_owned();
        let Some(files) = &self.files else {
            self.completion = Some(crate::completion::Completion {
                start,
                query,
                items: Vec::new(),
                selected: 0,
            });
            return vec![Command::IndexFiles];
        };
        let items = files.matches(&query);
        let selected = match &self.completion {
            Some(open) if open.start == start && open.query == query => {
                open.selected.min(items.len().saturating_sub(1))
            }
            _ => 0,
        };
        self.completion = Some(crate::completion::Completion {
            start,
            query,
            items,
            selected,
        });
        Vec::new()
    }

    /// The walked file list arrived: the open list (if any) is filled from it.
    pub fn files_indexed(&mut self, files: crate::completion::FileIndex) {
        self.files = Some(files);
        if self.completion.is_some() {
            self.refresh_completion();
        }
    }
}
