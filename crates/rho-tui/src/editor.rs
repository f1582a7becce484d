//! The prompt editor: multi-line text with a cursor, and the history of sent messages.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Multi-line input. The cursor is a byte offset into `text`, always on a char boundary.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Editor {
    text: String,
    cursor: usize,
    history: Vec<String>,
    /// Position in `history` while browsing; `None` when editing a fresh draft.
    browsing: Option<usize>,
    /// The draft put aside while browsing history.
    draft: String,
    /// Large pastes behind their markers, expanded on send.
    pastes: Vec<Paste>,
}

/// A large paste shown as a marker.
#[derive(Clone, Debug, PartialEq)]
struct Paste {
    id: usize,
    marker: String,
    text: String,
}

/// Pi collapses a paste of more than this many lines into a marker...
pub const PASTE_MAX_LINES: usize = 10;
/// ...or of more than this many characters.
pub const PASTE_MAX_CHARS: usize = 1000;

impl Editor {
    /// An empty editor with no history.
    pub fn new() -> Self {
        Self::default()
    }

    /// The text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The cursor as a byte offset into [`Editor::text`].
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// Whether there is nothing but whitespace.
    pub fn is_blank(&self) -> bool {
        self.text.trim().is_empty()
    }

    /// Replaces the text and puts the cursor at its end.
    pub fn set_text(&mut self, text: impl Into<String>) {
        self.text = text.into();
        self.cursor = self.text.len();
        self.browsing = None;
    }

    /// Empties the editor (history stays).
    pub fn clear(&mut self) {
        self.set_text(String::new());
    }

    /// Takes the trimmed text out for sending, paste markers expanded, and records it in the
    /// history; `None` when blank.
    pub fn take_submission(&mut self) -> Option<String> {
        let text = self.expanded_text().trim().to_owned();
        if text.is_empty() {
            return None;
        }
        if self.history.last() != Some(&text) {
            self.history.push(text.clone());
        }
        self.clear();
        self.draft.clear();
        self.pastes.clear();
        Some(text)
    }

    /// The text with every paste marker replaced by what was pasted.
    pub fn expanded_text(&self) -> String {
        let mut text = self.text.clone();
        for paste in &self.pastes {
            text = text.replace(&paste.marker, &paste.text);
        }
        text
    }

    /// A bracketed paste, cleaned as Pi does (line ends normalised, tabs as four spaces, other
    /// control characters dropped). A large one goes in as a marker, `[paste #1 +23 lines]` or
    /// `[paste #1 1500 chars]`, and comes back whole on send.
    pub fn paste(&mut self, text: &str) {
        let clean: String = text
            .replace("\r\n", "\n")
            .replace('\r', "\n")
            .replace('\t', "    ")
            .chars()
            .filter(|c| *c == '\n' || !c.is_control())
            .collect();
        let lines = clean.split('\n').count();
        let chars = clean.chars().count();
        if lines <= PASTE_MAX_LINES && chars <= PASTE_MAX_CHARS {
            self.insert(&clean);
            return;
        }
        let id = self.pastes.last().map_or(1, |p| p.id + 1);
        let marker = if lines > PASTE_MAX_LINES {
            format!("[paste #{id} +{lines} lines]")
        } else {
            format!("[paste #{id} {chars} chars]")
        };
        self.insert(&marker);
        self.pastes.push(Paste {
            id,
            marker,
            text: clean,
        });
    }

    /// Replaces `range` of the text (byte offsets on char boundaries) and puts the cursor
    /// after the replacement (accepting a completion).
    pub fn replace_range(&mut self, range: std::ops::Range<usize>, with: &str) {
        let end = range.end.min(self.text.len());
        let start = range.start.min(end);
        if !self.text.is_char_boundary(start) || !self.text.is_char_boundary(end) {
            return;
        }
        self.text.replace_range(start..end, with);
        self.cursor = start + with.len();
    }

    /// Inserts text at the cursor (typing or a bracketed paste; CR LF and CR become LF).
    pub fn insert(&mut self, text: &str) {
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        self.text.insert_str(self.cursor, &text);
        self.cursor += text.len();
    }

    /// Deletes the char before the cursor.
    pub fn backspace(&mut self) {
        if let Some(previous) = self.previous_boundary() {
            self.text.replace_range(previous..self.cursor, "");
            self.cursor = previous;
        }
    }

    /// Deletes the char under the cursor.
    pub fn delete(&mut self) {
        if let Some(next) = self.next_boundary() {
            self.text.replace_range(self.cursor..next, "");
        }
    }

    /// Deletes the word before the cursor (Ctrl+W).
    pub fn delete_word_backward(&mut self) {
        let before = &self.text[..self.cursor];
        let trimmed = before.trim_end();
        let start = trimmed.rfind(char::is_whitespace).map_or(0, |i| {
            i + trimmed[i..].chars().next().map_or(1, char::len_utf8)
        });
        self.text.replace_range(start..self.cursor, "");
        self.cursor = start;
    }

    /// Deletes from the start of the line to the cursor (Ctrl+U).
    pub fn delete_to_line_start(&mut self) {
        let start = self.line_start();
        self.text.replace_range(start..self.cursor, "");
        self.cursor = start;
    }

    /// Deletes from the cursor to the end of the line (Ctrl+K).
    pub fn delete_to_line_end(&mut self) {
        let end = self.line_end();
        self.text.replace_range(self.cursor..end, "");
    }

    /// Moves one char left.
    pub fn left(&mut self) {
        if let Some(previous) = self.previous_boundary() {
            self.cursor = previous;
        }
    }

    /// Moves one char right.
    pub fn right(&mut self) {
        if let Some(next) = self.next_boundary() {
            self.cursor = next;
        }
    }

    /// Moves to the start of the line.
    pub fn home(&mut self) {
        self.cursor = self.line_start();
    }

    /// Moves to the end of the line.
    pub fn end(&mut self) {
        self.cursor = self.line_end();
    }

    /// Up: the line above, or on the first line the previous history entry.
    pub fn up(&mut self) {
        let start = self.line_start();
        if start == 0 {
            self.history_previous();
            return;
        }
        let column = self.text[start..self.cursor].chars().count();
        let above_start = self.text[..start - 1].rfind('\n').map_or(0, |i| i + 1);
        self.cursor = column_offset(&self.text, above_start, start - 1, column);
    }

    /// Down: the line below, or on the last line the next history entry.
    pub fn down(&mut self) {
        let end = self.line_end();
        if end == self.text.len() {
            self.history_next();
            return;
        }
        let column = self.text[self.line_start()..self.cursor].chars().count();
        let below_start = end + 1;
        let below_end = self.text[below_start..]
            .find('\n')
            .map_or(self.text.len(), |i| below_start + i);
        self.cursor = column_offset(&self.text, below_start, below_end, column);
    }

    fn history_previous(&mut self) {
        let index = match self.browsing {
            None if self.history.is_empty() => return,
            None => {
                self.draft = self.text.clone();
                self.history.len() - 1
            }
            Some(0) => return,
            Some(i) => i - 1,
        };
        self.show_history(index);
    }

    fn history_next(&mut self) {
        match self.browsing {
            None => {}
            Some(i) if i + 1 < self.history.len() => self.show_history(i + 1),
            Some(_) => {
                let draft = std::mem::take(&mut self.draft);
                self.set_text(draft);
            }
        }
    }

    fn show_history(&mut self, index: usize) {
        if let Some(entry) = self.history.get(index) {
            self.text = entry.clone();
            self.cursor = self.text.len();
            self.browsing = Some(index);
        }
    }

    fn line_start(&self) -> usize {
        self.text[..self.cursor].rfind('\n').map_or(0, |i| i + 1)
    }

    fn line_end(&self) -> usize {
        self.text[self.cursor..]
            .find('\n')
            .map_or(self.text.len(), |i| self.cursor + i)
    }

    /// The boundary before the cursor; a paste marker counts as one char (as in Pi), so one
    /// Backspace removes it whole and arrows step over it.
    fn previous_boundary(&self) -> Option<usize> {
        let before = &self.text[..self.cursor];
        if let Some(paste) = self.pastes.iter().find(|p| before.ends_with(&p.marker)) {
            return Some(self.cursor - paste.marker.len());
        }
        let c = before.chars().next_back()?;
        Some(self.cursor - c.len_utf8())
    }

    /// The boundary after the cursor, a paste marker as one char.
    fn next_boundary(&self) -> Option<usize> {
        let after = &self.text[self.cursor..];
        if let Some(paste) = self.pastes.iter().find(|p| after.starts_with(&p.marker)) {
            return Some(self.cursor + paste.marker.len());
        }
        let c = after.chars().next()?;
        Some(self.cursor + c.len_utf8())
    }
}

impl Editor {
    /// The line-editing keys of a one-line input (the rename and label inputs): characters,
    /// Backspace/Delete (Ctrl or Alt: a word), arrows, Home/End, Ctrl+A/E/U/K/W. Enter,
    /// Escape and Ctrl+C are the caller's; other keys do nothing.
    pub fn line_key(&mut self, key: KeyEvent) {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        match key.code {
            KeyCode::Char('a') if ctrl => self.home(),
            KeyCode::Char('e') if ctrl => self.end(),
            KeyCode::Char('u') if ctrl => self.delete_to_line_start(),
            KeyCode::Char('k') if ctrl => self.delete_to_line_end(),
            KeyCode::Char('w') if ctrl => self.delete_word_backward(),
            KeyCode::Char(_) if ctrl || alt => {}
            KeyCode::Char(c) => {
                let mut buffer = [0; 4];
                self.insert(c.encode_utf8(&mut buffer));
            }
            KeyCode::Backspace if ctrl || alt => self.delete_word_backward(),
            KeyCode::Backspace => self.backspace(),
            KeyCode::Delete => self.delete(),
            KeyCode::Left => self.left(),
            KeyCode::Right => self.right(),
            KeyCode::Home => self.home(),
            KeyCode::End => self.end(),
            _ => {}
        }
    }
}

/// The byte offset of char `column` within the line `start..end`, or the line's end.
fn column_offset(text: &str, start: usize, end: usize, column: usize) -> usize {
    text[start..end]
        .char_indices()
        .nth(column)
        .map_or(end, |(i, _)| start + i)
}
