//! Warnings of the layers below the modes (a broken `models.json`, a session file repaired on
//! open, a model a session recorded that is gone). They go to stderr, one line each, except
//! while the interactive mode owns the terminal: a line written then would land in the middle
//! of the full-screen frame and be lost, so they are kept and the UI shows them in the
//! conversation.

use std::fmt::Display;
use std::sync::Mutex;

use rho_stdx::sync::lock;

/// `Some` while warnings are held for the UI.
static HELD: Mutex<Option<Vec<String>>> = Mutex::new(None);

/// Reports one warning (`message` without the `Warning: ` prefix).
pub fn warn(message: impl Display) {
    say(format!("Warning: {message}"));
}

/// Reports one line as it is (a notice such as the offline model's).
pub fn say(line: String) {
    match lock(&HELD).as_mut() {
        Some(held) => held.push(line),
        None => eprintln!("{line}"),
    }
}

/// From now on, warnings are held for [`take`] instead of printed.
pub fn hold() {
    let mut held = lock(&HELD);
    held.get_or_insert_with(Vec::new);
}

/// The warnings held since the last call, oldest first.
pub fn take() -> Vec<String> {
    lock(&HELD).as_mut().map(std::mem::take).unwrap_or_default()
}

/// Warnings go to stderr again; the ones still held are printed (the terminal is back).
pub fn release() {
    let held = lock(&HELD).take();
    for line in held.unwrap_or_default() {
        eprintln!("{line}");
    }
}
