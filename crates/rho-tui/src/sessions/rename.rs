//! Ctrl+R in the `/resume` picker: Pi's "Rename Session" input, one line prefilled with the
//! highlighted session's name. Enter saves the trimmed text (an empty one does nothing, as in
//! Pi); Escape or Ctrl+C goes back to the list unchanged.

use std::path::{Path, PathBuf};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::editor::Editor;

/// The rename input's state.
#[derive(Clone, Debug)]
pub struct RenameInput {
    path: PathBuf,
    editor: Editor,
}

/// What a key did to the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum RenameKey {
    /// Still editing.
    Editing,
    /// Escape: the name stays as it was.
    Cancelled,
    /// Enter on a non-empty name: this is to be written.
    Submitted(String),
}

impl RenameInput {
    /// An input renaming the session in `path`, holding `current` with the cursor at its end.
    pub(crate) fn new(path: &Path, current: Option<&str>) -> Self {
        let mut editor = Editor::new();
        editor.set_text(current.unwrap_or_default());
        RenameInput {
            path: path.to_path_buf(),
            editor,
        }
    }

    /// The session file being renamed.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The text typed so far.
    pub fn text(&self) -> &str {
        self.editor.text()
    }

    /// The cursor, a byte offset into [`RenameInput::text`].
    pub fn cursor(&self) -> usize {
        self.editor.cursor()
    }

    /// Handles one key: the line-editing keys of the prompt editor, Enter and Escape.
    pub(crate) fn on_key(&mut self, key: KeyEvent) -> RenameKey {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Esc => return RenameKey::Cancelled,
            KeyCode::Char('c') if ctrl => return RenameKey::Cancelled,
            KeyCode::Enter => {
                let name = self.editor.text().trim();
                if !name.is_empty() {
                    return RenameKey::Submitted(name.to_owned());
                }
            }
            _ => self.editor.line_key(key),
        }
        RenameKey::Editing
    }
}
