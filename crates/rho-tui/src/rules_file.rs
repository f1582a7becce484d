//! "Always allow": allow rules appended to the project's rules file (`.rho/rules.toml`, the
//! `[[rule]]` format of `rho_gate::command`). The file is checked with the gate's own parser
//! before it is written, so an answer can never leave a file that stops the next start.

use std::io;
use std::path::{Path, PathBuf};

use rho_gate::command::split_command;
use rho_gate::{CommandRules, RulesError};
use rho_stdx::fs::{Access, write_atomic};

/// Why no rule was written.
#[derive(Debug, thiserror::Error)]
pub enum RuleWriteError {
    /// The command has no simple command a prefix rule could name (it cannot be parsed).
    #[error("`{command}` cannot be written as a rule: {reason}")]
    NotARule {
        /// The command.
        command: String,
        /// Why it cannot.
        reason: String,
    },
    /// The file (old text plus the new rules) would not load.
    #[error("{0}")]
    Invalid(#[from] RulesError),
    /// The file could not be read or written.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
}

/// Appends one `allow` rule per simple command of `command` to `file` (created with its
/// directory when missing) and returns the prefixes written. A rule's prefix is a whole simple
/// command, so it allows exactly that command (and longer ones starting with it).
pub fn append_allow_rules(file: &Path, command: &str) -> Result<Vec<String>, RuleWriteError> {
    let not_a_rule = |reason: String| RuleWriteError::NotARule {
        command: command.to_owned(),
        reason,
    };
    let parts = split_command(command).map_err(|e| not_a_rule(e.to_string()))?;
    let mut prefixes: Vec<String> = Vec::new();
    for part in parts.iter().filter(|p| !p.is_empty()) {
        let prefix = part.iter().map(|w| shell_quote(w)).collect::<Vec<_>>();
        let prefix = prefix.join(" ");
        if !prefixes.contains(&prefix) {
            prefixes.push(prefix);
        }
    }
    if prefixes.is_empty() {
        return Err(not_a_rule("it has no command".to_owned()));
    }
    let io_error = |source| RuleWriteError::Io {
        path: file.to_path_buf(),
        source,
    };
    let old = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(error) if error.kind() == io::ErrorKind::NotFound => String::new(),
        Err(error) => return Err(io_error(error)),
    };
    let mut text = old;
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    for prefix in &prefixes {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str("# Added by \"always allow\" in the interactive mode.\n");
        text.push_str("[[rule]]\ndecision = \"allow\"\n");
        let prefix = toml::Value::String(prefix.clone());
        text.push_str(&format!("prefix = {prefix}\n"));
    }
    CommandRules::parse(&text, file)?;
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(io_error)?;
    }
    // Whole or not at all: a half-written file would stop the next start.
    write_atomic(file, text.as_bytes(), Access::Shared).map_err(io_error)?;
    Ok(prefixes)
}

/// A word as the gate's splitter reads it back: bare when it is plain, else single-quoted.
fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}
