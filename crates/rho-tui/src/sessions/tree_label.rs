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
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        let editor = &mut self.editor;
        match key.code {
            KeyCode::Esc => return LabelKey::Cancelled,
            KeyCode::Char('c') if ctrl => return LabelKey::Cancelled,
            KeyCode::Enter => {
                let label = editor.text().trim();
                return LabelKey::Submitted(LabelChange {
                    entry_id: self.entry_id.clone(),
                    label: (!label.is_empty()).then(|| label.to_owned()),
                });
            }
            KeyCode::Char('a') if ctrl => editor.home(),
            KeyCode::Char('e') if ctrl => editor.end(),
            KeyCode::Char('u') if ctrl => editor.delete_to_line_start(),
            KeyCode::Char('k') if ctrl => editor.delete_to_line_end(),
            KeyCode::Char('w') if ctrl => editor.delete_word_backward(),
            KeyCode::Char(_) if ctrl || alt => {}
            KeyCode::Char(c) => {
                let mut buffer = [0; 4];
                editor.insert(c.encode_utf8(&mut buffer));
            }
            KeyCode::Backspace if ctrl || alt => editor.delete_word_backward(),
            KeyCode::Backspace => editor.backspace(),
            KeyCode::Delete => editor.delete(),
            KeyCode::Left => editor.left(),
            KeyCode::Right => editor.right(),
            KeyCode::Home => editor.home(),
            KeyCode::End => editor.end(),
            _ => {}
        }
        LabelKey::Editing
    }
}
