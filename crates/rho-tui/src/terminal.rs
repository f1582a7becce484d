//! Taking the terminal over and giving it back: raw mode, the alternate screen, bracketed paste
//! and, where the terminal has it, the keyboard protocol that tells Shift+Enter from Enter. The
//! answers of the terminal are read once, in one round trip ([`crate::terminal_report`]). The
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
};
use crossterm::{cursor, execute};

use crate::terminal_report::{self, TerminalReport};

/// Whether the keyboard protocol was pushed (and so must be popped on the way out).
static KEYBOARD_PUSHED: AtomicBool = AtomicBool::new(false);

/// Restores the terminal when dropped.
pub struct TerminalGuard {
    report: TerminalReport,
}

impl TerminalGuard {
    /// Enters raw mode and the alternate screen; installs the panic hook once per process.
    pub fn enter() -> io::Result<Self> {
        install_panic_hook();
        enable_raw_mode()?;
        let mut guard = TerminalGuard {
            report: TerminalReport::default(),
        };
        let mut out = io::stdout();
        execute!(out, EnterAlternateScreen, EnableBracketedPaste)?;
        // A terminal that cannot be asked is one without the protocol and without a colour.
        guard.report = ask_terminal(&mut out).unwrap_or_default();
        if guard.report.keyboard_protocol {
            execute!(
                out,
                PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
            )?;
            KEYBOARD_PUSHED.store(true, Ordering::SeqCst);
        }
        Ok(guard)
    }
}

impl TerminalGuard {
    /// What the terminal said of itself.
    pub fn report(&self) -> &TerminalReport {
        &self.report
    }
}

/// Asks on standard input when it is the terminal, else on `/dev/tty` (as crossterm reads keys).
fn ask_terminal(out: &mut io::Stdout) -> io::Result<TerminalReport> {
    use std::io::IsTerminal;
    use std::os::fd::AsRawFd;
    if io::stdin().is_terminal() {
        return terminal_report::ask(out, io::stdin().as_raw_fd());
    }
    let tty = std::fs::File::open("/dev/tty")?;
    terminal_report::ask(out, tty.as_raw_fd())
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
