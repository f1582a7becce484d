//! "Always allow": exact `command` allow rules appended to the user's rules file
//! (`RHO_HOME/rules.toml`, the `[[rule]]` format of `rho_gate::command`): each allows exactly
//! the simple command that was approved, never a longer one (`git push` approved does not allow
//! `git push --force`); a tool call approved "always" (an MCP tool an `ask` rule holds) gets a
//! `tool` rule naming exactly that tool. The file is checked with the gate's own parser before it is written, so
//! an answer can never leave a file that stops the next start.

use std::io;
use std::path::{Path, PathBuf};

use rho_gate::command::{Word, simple_commands};
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

/// Appends one exact `allow` rule per simple command of `command` to `file` (created with
/// its directory when missing) and returns the commands written.
pub fn append_allow_rules(file: &Path, command: &str) -> Result<Vec<String>, RuleWriteError> {
    let not_a_rule = |reason: String| RuleWriteError::NotARule {
        command: command.to_owned(),
        reason,
    };
    let parts = simple_commands(command).map_err(|e| not_a_rule(e.to_string()))?;
    let mut exact: Vec<String> = Vec::new();
    for part in parts.iter().filter(|p| !p.is_empty()) {
        let words: Option<Vec<String>> = part
            .iter()
            .map(|word| word.literal().map(shell_quote))
            .collect();
        let Some(words) = words else {
            let shown: Vec<&str> = part.iter().map(Word::text).collect();
            return Err(not_a_rule(format!(
                "`{}` has words only known when it runs",
                shown.join(" ")
            )));
        };
        let words = words.join(" ");
        if !exact.contains(&words) {
            exact.push(words);
        }
    }
    if exact.is_empty() {
        return Err(not_a_rule("it has no command".to_owned()));
    }
    let rules: Vec<String> = exact
        .iter()
        .map(|command| format!("command = {}\n", toml::Value::String(command.clone())))
        .collect();
    append_rules(file, &rules)?;
    Ok(exact)
}

/// Appends an `allow` rule for the tool `tool` (every call of it) to `file`; returns the rule.
pub fn append_tool_rule(file: &Path, tool: &str) -> Result<Vec<String>, RuleWriteError> {
    append_rules(
        file,
        &[format!("tool = {}\n", toml::Value::String(tool.to_owned()))],
    )?;
    Ok(vec![format!("tool {tool}")])
}

/// Appends one `[[rule]]` allow table per matcher line to `file`, checked with the gate's
/// parser first and written whole.
fn append_rules(file: &Path, matchers: &[String]) -> Result<(), RuleWriteError> {
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
    for matcher in matchers {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str("# Added by \"always allow\" in the interactive mode.\n");
        text.push_str("[[rule]]\ndecision = \"allow\"\n");
        text.push_str(matcher);
    }
    CommandRules::parse(&text, file)?;
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(io_error)?;
    }
    // Whole or not at all: a half-written file would stop the next start.
    write_atomic(file, text.as_bytes(), Access::Shared).map_err(io_error)
}

/// A word as the gate's parser reads it back: bare when it is plain, else single-quoted.
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
