//! Taking the terminal over and giving it back: raw mode, the alternate screen, bracketed paste
//! and, where the terminal has it, the keyboard protocol that tells Shift+Enter from Enter. The
//! guard restores on drop (normal exit, error, `?`), and a panic hook restores before the panic
//! message is printed, so the message lands on a usable terminal.

use std::io::{self, Write};
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

use crossterm::event::{
    DisableBracketedPaste, EnableBracketedPaste, KeyboardEnhancementFlags,
    PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
    supports_keyboard_enhancement,
};
use crossterm::{cursor, execute};

/// Whether the keyboard protocol was pushed (and so must be popped on the way out).
static KEYBOARD_PUSHED: AtomicBool = AtomicBool::new(false);

/// Restores the terminal when dropped.
pub struct TerminalGuard {
    _private: (),
}

impl TerminalGuard {
    /// Enters raw mode and the alternate screen; installs the panic hook once per process.
    pub fn enter() -> io::Result<Self> {
        install_panic_hook();
        enable_raw_mode()?;
        let guard = TerminalGuard { _private: () };
        let mut out = io::stdout();
        execute!(out, EnterAlternateScreen, EnableBracketedPaste)?;
        if supports_keyboard_enhancement().unwrap_or(false) {
            execute!(
                out,
                PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
            )?;
            KEYBOARD_PUSHED.store(true, Ordering::SeqCst);
        }
        Ok(guard)
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore();
    }
}

/// Puts the terminal back as the shell expects it. Safe to call more than once: every step is
/// idempotent, and a failing step does not stop the others.
pub fn restore() {
    let mut out = io::stdout();
    if KEYBOARD_PUSHED.swap(false, Ordering::SeqCst) {
        let _ = execute!(out, PopKeyboardEnhancementFlags);
    }
    let _ = execute!(
        out,
        DisableBracketedPaste,
        LeaveAlternateScreen,
        cursor::Show
    );
    let _ = disable_raw_mode();
    let _ = out.flush();
}

fn install_panic_hook() {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            restore();
            previous(info);
        }));
    });
}
