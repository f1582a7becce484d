//! Keys for what sits over the editor: the approval dialog (which takes every key while it is
//! open) and the `@` completion list (which takes only the keys that move in it or accept).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::App;
use super::input::Effect;
use super::overlays::ApprovalKey;
use crate::completion::FileIndex;

impl App {
    /// A key for the approval dialog on screen; an answer goes to the gate.
    pub(super) fn approval_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        match self.overlays.approval_key(key) {
            ApprovalKey::Open => Vec::new(),
            ApprovalKey::Answered(dialog, choice) => vec![Effect::Answer(dialog, choice)],
        }
    }

    /// A key for the open completion list; `None` when the key is not the list's.
    pub(super) fn completion_key(&mut self, key: KeyEvent) -> Option<Vec<Effect>> {
        let open = self.at_paths.list()?;
        if key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
        {
            return None;
        }
        match key.code {
            KeyCode::Esc => self.at_paths.close(),
            KeyCode::Up => {
                if !self.at_paths.up() {
                    return None;
                }
            }
            KeyCode::Down => {
                if !self.at_paths.down() {
                    return None;
                }
            }
            KeyCode::Tab | KeyCode::Enter => {
                let Some(path) = open.current().map(str::to_owned) else {
                    // Nothing to accept: Enter sends as usual, Tab does nothing.
                    self.at_paths.close();
                    return (key.code == KeyCode::Tab).then(Vec::new);
                };
                let start = open.start;
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
                self.at_paths.close();
                // Accepting never needs the files walked: they were, to list the path.
                let _ = self.refresh_completion();
            }
            _ => return None,
        }
        Some(Vec::new())
    }

    /// Opens, updates or closes the completion list after an edit. Returns
    /// [`Effect::IndexFiles`] the first time an `@` word needs the list of files.
    pub(super) fn refresh_completion(&mut self) -> Vec<Effect> {
        if self
            .at_paths
            .refresh(self.editor.text(), self.editor.cursor())
        {
            return vec![Effect::IndexFiles];
        }
        Vec::new()
    }

    /// The walked file list arrived: the open list (if any) is filled from it.
    pub(super) fn take_files(&mut self, files: FileIndex) -> Vec<Effect> {
        if self.at_paths.set_files(files) {
            return self.refresh_completion();
        }
        Vec::new()
    }
}
