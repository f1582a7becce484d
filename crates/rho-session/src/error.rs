//! Errors and the warnings an open reports.

use std::fmt;
use std::path::PathBuf;

/// Why a session operation failed.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// Reading, writing, locking or syncing the file failed.
    #[error("session file {path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// Another process holds the file's lock.
    #[error("session file {path} is in use by another rho process")]
    Locked {
        /// The file.
        path: PathBuf,
    },
    /// The file has content but its first line is not a session header; rho refuses to
    /// overwrite it (Pi would replace it with an empty session).
    #[error("{path} is not a session file (its first line is not a session header)")]
    NotASessionFile {
        /// The file.
        path: PathBuf,
    },
    /// An entry id that is not in the session.
    #[error("Entry {id} not found")]
    EntryNotFound {
        /// The id asked for.
        id: String,
    },
    /// A file operation on a session kept in memory (`--no-session`).
    #[error("the session is kept in memory only")]
    InMemory,
    /// The session's file was handed over to another session (a switch) and is no longer
    /// written by this one.
    #[error("the session file was closed")]
    Closed,
    /// An entry could not be encoded (a message holding a non-finite number, for example).
    #[error("cannot encode session entry: {0}")]
    Encode(#[from] serde_json::Error),
}

impl SessionError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        SessionError::Io {
            path: path.into(),
            source,
        }
    }
}

/// Something an open repaired or skipped. The file still opened; the caller may print these.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpenWarning {
    /// The last line was cut off by an interrupted write (no newline, not valid JSON) and was
    /// truncated off the file.
    TornLastLine {
        /// 1-based line number.
        line: usize,
        /// Bytes removed.
        bytes: usize,
    },
    /// A line that is not a valid entry was skipped (it stays in the file).
    MalformedLine {
        /// 1-based line number.
        line: usize,
        /// What was wrong.
        reason: String,
    },
    /// The file was in an older format and was rewritten as version 3.
    Migrated {
        /// The version it had.
        from_version: u64,
    },
}

impl fmt::Display for OpenWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenWarning::TornLastLine { line, bytes } => write!(
                f,
                "line {line} was cut off by an interrupted write; removed its {bytes} bytes"
            ),
            OpenWarning::MalformedLine { line, reason } => {
                write!(f, "skipped malformed line {line}: {reason}")
            }
            OpenWarning::Migrated { from_version } => write!(
                f,
                "migrated session from version {from_version} to version {}",
                crate::entry::CURRENT_SESSION_VERSION
            ),
        }
    }
}
