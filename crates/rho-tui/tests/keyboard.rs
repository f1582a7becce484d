//! Key events as the terminal reports them, shared by the test modules.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// `code` with no modifier.
pub fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

/// Ctrl+`c`.
pub fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}
