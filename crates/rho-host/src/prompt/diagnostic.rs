//! Problems found while loading prompt resources. Loading never fails: a bad file is skipped and
//! reported as one of these values, for the caller to print or ignore.

use std::fmt;
use std::path::PathBuf;

/// How serious a [`PromptDiagnostic`] is, with Pi's diagnostic `type` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiagnosticKind {
    /// The resource was skipped or loaded despite a problem.
    Warning,
    /// Two resources share a name; the first one found wins.
    Collision,
    /// An explicitly named path (a flag value) could not be used.
    Error,
}

/// One problem with one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptDiagnostic {
    /// Warning, collision or error.
    pub kind: DiagnosticKind,
    /// Pi's wording, e.g. `description is required`.
    pub message: String,
    /// The file (or flag path) concerned.
    pub path: PathBuf,
    /// For a collision: the file that won.
    pub winner: Option<PathBuf>,
}

impl PromptDiagnostic {
    pub(crate) fn warning(message: impl Into<String>, path: impl Into<PathBuf>) -> Self {
        Self {
            kind: DiagnosticKind::Warning,
            message: message.into(),
            path: path.into(),
            winner: None,
        }
    }

    pub(crate) fn error(message: impl Into<String>, path: impl Into<PathBuf>) -> Self {
        Self {
            kind: DiagnosticKind::Error,
            message: message.into(),
            path: path.into(),
            winner: None,
        }
    }
}

impl fmt::Display for PromptDiagnostic {
    /// `Warning: <message> (<path>)`, the shape of Pi's startup diagnostics.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let prefix = match self.kind {
            DiagnosticKind::Warning => "Warning: ",
            DiagnosticKind::Error => "Error: ",
            DiagnosticKind::Collision => "",
        };
        write!(f, "{prefix}{} ({})", self.message, self.path.display())?;
        if let Some(winner) = &self.winner {
            write!(f, ", keeping {}", winner.display())?;
        }
        Ok(())
    }
}
