//! The permission mode: how much the host lets tools do.

use std::fmt;
use std::str::FromStr;

/// `--permission read-only | workspace-write | full`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PermissionMode {
    /// No `write`/`edit`; `bash` may write nowhere.
    ReadOnly,
    /// File tools stay inside the roots; `bash` writes only inside them (the default).
    #[default]
    WorkspaceWrite,
    /// No path gate and no sandbox: Pi's behaviour. Command rules still apply.
    Full,
}

impl PermissionMode {
    /// The accepted names, in order of increasing freedom.
    pub const NAMES: [&'static str; 3] = ["read-only", "workspace-write", "full"];

    /// The flag value, e.g. `workspace-write`.
    pub fn as_str(self) -> &'static str {
        match self {
            PermissionMode::ReadOnly => "read-only",
            PermissionMode::WorkspaceWrite => "workspace-write",
            PermissionMode::Full => "full",
        }
    }
}

impl fmt::Display for PermissionMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A permission value that is none of the three modes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("Invalid permission mode \"{0}\": expected read-only, workspace-write or full")]
pub struct ParseModeError(pub String);

impl FromStr for PermissionMode {
    type Err = ParseModeError;

    fn from_str(value: &str) -> Result<Self, Self::Err> {
        match value {
            "read-only" => Ok(PermissionMode::ReadOnly),
            "workspace-write" => Ok(PermissionMode::WorkspaceWrite),
            "full" => Ok(PermissionMode::Full),
            other => Err(ParseModeError(other.to_owned())),
        }
    }
}
