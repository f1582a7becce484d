//! Keys in Pi's syntax (`ctrl+shift+p`, `pageUp`, `f5`): parsing, printing, and matching a
//! pressed key.

use std::fmt;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyEventState, KeyModifiers};

/// A key with its modifiers, as Pi writes it (`ctrl+shift+p`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KeySpec {
    code: KeyCode,
    modifiers: KeyModifiers,
}

impl KeySpec {
    /// Parses Pi's key syntax; `None` for an unknown key.
    pub fn parse(text: &str) -> Option<Self> {
        let mut modifiers = KeyModifiers::NONE;
        let mut parts: Vec<&str> = text.split('+').collect();
        // `ctrl++` and a lone `+` name the plus key itself.
        let mut key = parts.pop()?;
        if key.is_empty() && parts.last() == Some(&"") {
            parts.pop();
            key = "+";
        }
        for part in parts {
            modifiers |= match part.to_ascii_lowercase().as_str() {
                "ctrl" => KeyModifiers::CONTROL,
                "shift" => KeyModifiers::SHIFT,
                "alt" => KeyModifiers::ALT,
                _ => return None,
            };
        }
        let code = match key.to_ascii_lowercase().as_str() {
            "escape" | "esc" => KeyCode::Esc,
            "enter" | "return" => KeyCode::Enter,
            "tab" => KeyCode::Tab,
            "space" => KeyCode::Char(' '),
            "backspace" => KeyCode::Backspace,
            "delete" => KeyCode::Delete,
            "insert" => KeyCode::Insert,
            "clear" => KeyCode::KeypadBegin,
            "home" => KeyCode::Home,
            "end" => KeyCode::End,
            "pageup" => KeyCode::PageUp,
            "pagedown" => KeyCode::PageDown,
            "up" => KeyCode::Up,
            "down" => KeyCode::Down,
            "left" => KeyCode::Left,
            "right" => KeyCode::Right,
            lower => {
                if let Some(n) = lower.strip_prefix('f').and_then(|n| n.parse::<u8>().ok()) {
                    if !(1..=12).contains(&n) {
                        return None;
                    }
                    KeyCode::F(n)
                } else {
                    let mut chars = lower.chars();
                    let c = chars.next()?;
                    if chars.next().is_some() || !(c.is_ascii_graphic()) {
                        return None;
                    }
                    KeyCode::Char(c)
                }
            }
        };
        Some(KeySpec { code, modifiers })
    }

    /// The spec of a pressed key: Shift+Tab arrives as BackTab and a shifted letter as its
    /// capital, both normalised to Pi's `shift+…`.
    pub fn of(key: &KeyEvent) -> Self {
        let mut modifiers =
            key.modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT);
        let code = match key.code {
            KeyCode::BackTab => {
                modifiers |= KeyModifiers::SHIFT;
                KeyCode::Tab
            }
            KeyCode::Char(c) if c.is_ascii_uppercase() => {
                modifiers |= KeyModifiers::SHIFT;
                KeyCode::Char(c.to_ascii_lowercase())
            }
            KeyCode::Char(c) if !c.is_ascii_alphabetic() => {
                // A symbol's shift is in the symbol itself (`?` is shift+/ on most layouts).
                if !modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) {
                    modifiers -= KeyModifiers::SHIFT;
                }
                KeyCode::Char(c)
            }
            other => other,
        };
        KeySpec { code, modifiers }
    }

    /// The key event `keys.rs` expects for this spec.
    pub fn event(self) -> KeyEvent {
        let code = match self.code {
            KeyCode::Tab if self.modifiers.contains(KeyModifiers::SHIFT) => KeyCode::BackTab,
            KeyCode::Char(c)
                if self.modifiers.contains(KeyModifiers::SHIFT)
                    && !self.modifiers.contains(KeyModifiers::CONTROL) =>
            {
                KeyCode::Char(c.to_ascii_uppercase())
            }
            other => other,
        };
        KeyEvent {
            code,
            modifiers: self.modifiers,
            kind: KeyEventKind::Press,
            state: KeyEventState::NONE,
        }
    }
}

impl fmt::Display for KeySpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (flag, name) in [
            (KeyModifiers::CONTROL, "ctrl+"),
            (KeyModifiers::SHIFT, "shift+"),
            (KeyModifiers::ALT, "alt+"),
        ] {
            if self.modifiers.contains(flag) {
                f.write_str(name)?;
            }
        }
        match self.code {
            KeyCode::Esc => f.write_str("escape"),
            KeyCode::Enter => f.write_str("enter"),
            KeyCode::Tab => f.write_str("tab"),
            KeyCode::Char(' ') => f.write_str("space"),
            KeyCode::Char(c) => write!(f, "{c}"),
            KeyCode::Backspace => f.write_str("backspace"),
            KeyCode::Delete => f.write_str("delete"),
            KeyCode::Insert => f.write_str("insert"),
            KeyCode::KeypadBegin => f.write_str("clear"),
            KeyCode::Home => f.write_str("home"),
            KeyCode::End => f.write_str("end"),
            KeyCode::PageUp => f.write_str("pageUp"),
            KeyCode::PageDown => f.write_str("pageDown"),
            KeyCode::Up => f.write_str("up"),
            KeyCode::Down => f.write_str("down"),
            KeyCode::Left => f.write_str("left"),
            KeyCode::Right => f.write_str("right"),
            KeyCode::F(n) => write!(f, "f{n}"),
            other => write!(f, "{other:?}"),
        }
    }
}
