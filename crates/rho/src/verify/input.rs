//! Reading the input of `rho verify`: one JSON object per line, with its line number kept so every
//! complaint can point at the line it is about.

use serde_json::{Map, Value};

/// Why the input could not be checked at all (exit 2, not a verdict about the run).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum InputError {
    /// The file (or stdin) could not be read.
    #[error("cannot read {source_name}: {message}")]
    Unreadable {
        /// The file name, or `stdin`.
        source_name: String,
        /// The operating system's reason.
        message: String,
    },
    /// The input has no non-blank line.
    #[error("the input is empty (expected a JSON-mode event log or a session file)")]
    Empty,
    /// A line is not valid UTF-8.
    #[error("line {line}: not valid UTF-8")]
    NotUtf8 {
        /// 1-based line number.
        line: usize,
    },
    /// A line is not JSON at all.
    #[error("line {line}: not JSON ({message})")]
    NotJson {
        /// 1-based line number.
        line: usize,
        /// serde_json's description of the problem.
        message: String,
    },
    /// A line is JSON but not an object with a string `type`.
    #[error(
        "line {line}: not an event or session entry (expected a JSON object with a string \"type\")"
    )]
    NotAnEntry {
        /// 1-based line number.
        line: usize,
    },
}

/// One non-blank input line: a JSON object with a string `type`.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    /// 1-based line number in the input.
    pub number: usize,
    /// The value of the `type` field.
    pub kind: String,
    /// The whole object.
    pub fields: Map<String, Value>,
}

/// Splits raw input into typed lines; blank lines are skipped (a trailing newline is normal).
pub fn parse_lines(bytes: &[u8]) -> Result<Vec<Line>, InputError> {
    let mut lines = Vec::new();
    for (index, raw) in bytes.split(|byte| *byte == b'\n').enumerate() {
        let number = index + 1;
        let text = std::str::from_utf8(raw).map_err(|_| InputError::NotUtf8 { line: number })?;
        let text = text.trim();
        if text.is_empty() {
            continue;
        }
        let value: Value = serde_json::from_str(text).map_err(|error| InputError::NotJson {
            line: number,
            message: without_position(&error.to_string()),
        })?;
        let Value::Object(fields) = value else {
            return Err(InputError::NotAnEntry { line: number });
        };
        let Some(kind) = fields
            .get("type")
            .and_then(Value::as_str)
            .map(str::to_owned)
        else {
            return Err(InputError::NotAnEntry { line: number });
        };
        lines.push(Line {
            number,
            kind,
            fields,
        });
    }
    if lines.is_empty() {
        return Err(InputError::Empty);
    }
    Ok(lines)
}

/// serde_json ends its messages with " at line 1 column N", which would contradict the input line
/// number we report; keep only the column.
fn without_position(message: &str) -> String {
    match message.rsplit_once(" at line ") {
        Some((head, position)) => match position.split_once(" column ") {
            Some((_, column)) => format!("{head} at column {column}"),
            None => head.to_owned(),
        },
        None => message.to_owned(),
    }
}
