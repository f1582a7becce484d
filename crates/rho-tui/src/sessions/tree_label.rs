//! Shift+L in the `/tree` navigator: a one-line input prefilled with the highlighted entry's
//! label. Enter saves what it holds, trimmed (empty removes the label, as Pi's "Label (empty to
//! remove)"); Escape leaves the label as it was.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::editor::Editor;

/// A label to write: `label` on entry `entry_id`, or none (`None`: the label is removed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LabelChange {
    /// The labelled entry.
    pub entry_id: String,
    /// The new label; `None` clears it.
    pub label: Option<String>,
}

/// The label input's state.
#[derive(Clone, Debug)]
pub struct LabelInput {
    entry_id: String,
    editor: Editor,
}

/// What a key did to the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum LabelKey {
    /// Still editing.
    Editing,
    /// Escape: nothing changes.
    Cancelled,
    /// Enter: this is to be saved.
    Submitted(LabelChange),
}

impl LabelInput {
    /// An input for entry `entry_id`'s label, holding `current` with the cursor at its end.
    pub(crate) fn new(entry_id: &str, current: Option<&str>) -> Self {
        let mut editor = Editor::new();
        editor.set_text(current.unwrap_or_default());
        LabelInput {
            entry_id: entry_id.to_owned(),
            editor,
        }
    }

    /// The entry whose label is edited.
    pub fn entry_id(&self) -> &str {
        &self.entry_id
    }

    /// The text typed so far.
    pub fn text(&self) -> &str {
        self.editor.text()
    }

    /// The cursor, a byte offset into [`LabelInput::text`].
    pub fn cursor(&self) -> usize {
        self.editor.cursor()
    }

    /// Handles one key: the line-editing keys of the prompt editor, Enter and Escape.
    pub(crate) fn on_key(&mut self, key: KeyEvent) -> LabelKey {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Esc => return LabelKey::Cancelled,
            KeyCode::Char('c') if ctrl => return LabelKey::Cancelled,
            KeyCode::Enter => {
                let label = self.editor.text().trim();
                return LabelKey::Submitted(LabelChange {
                    entry_id: self.entry_id.clone(),
                    label: (!label.is_empty()).then(|| label.to_owned()),
                });
            }
            _ => self.editor.line_key(key),
        }
        LabelKey::Editing
    }
}
