//! A refusal: what the gate tells the model instead of running a call.

use std::fmt;

/// Why a call was refused; `Display` is the text the model reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// A path resolves outside every allowed root.
    OutsideRoots {
        /// The path as resolved (symlinks followed).
        path: String,
        /// The allowed roots, as shown to the model.
        roots: Vec<String>,
    },
    /// A path names a secret file.
    Secret {
        /// The path as resolved.
        path: String,
        /// The deny glob it matched.
        glob: String,
    },
    /// Another name (a hard link) of a secret file.
    SecretLink {
        /// The path as resolved.
        path: String,
    },
    /// Not a regular file: a FIFO, socket or device, which could block or never end.
    NotRegular {
        /// The path.
        path: String,
        /// What it is, e.g. `a FIFO (named pipe)`.
        kind: &'static str,
    },
    /// A write to a protected path (`.rho/`, `RHO_HOME`, git's config and hooks).
    Protected {
        /// The path as resolved.
        path: String,
    },
    /// A path argument that cannot name a file (NUL byte, too long, symlink loop, …).
    BadPath {
        /// The argument, with control characters escaped.
        path: String,
        /// What is wrong with it.
        problem: String,
    },
    /// `write`/`edit` in read-only mode.
    ReadOnly {
        /// The tool that was refused.
        tool: String,
    },
    /// A bash command refused by a command rule.
    CommandDenied {
        /// The command part that matched.
        part: String,
        /// Where the rule is, e.g. `/p/.rho/rules.toml, rule 2 ("git push")`.
        rule: String,
    },
    /// A tool refused by a `tool` rule.
    ToolDenied {
        /// The tool.
        tool: String,
        /// Where the rule is.
        rule: String,
    },
    /// A tool that does not say it is read-only, in read-only mode.
    NotReadOnly {
        /// The tool.
        tool: String,
    },
    /// A bash command the user declined to approve.
    CommandNotApproved {
        /// The simple command that needed approval.
        part: String,
    },
    /// A bash command that needs approval, in a mode that cannot ask.
    CommandNeedsApproval {
        /// The command part that needs approval.
        part: String,
        /// Why: the ask rule, or that the command could not be parsed.
        why: String,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::OutsideRoots { path, roots } => write!(
                f,
                "Path {path} is outside the allowed directories: {}. Use --allow-dir to allow it.",
                roots.join(", ")
            ),
            Refusal::Secret { path, glob } => write!(
                f,
                "Path {path} is a secret file (matches \"{glob}\") and is never read or written by the file tools. Allow it explicitly in the gate's secret settings if this is intended."
            ),
            Refusal::SecretLink { path } => write!(
                f,
                "Path {path} is another name (a hard link) of a secret file and is never read or written in place by the file tools."
            ),
            Refusal::NotRegular { path, kind } => write!(
                f,
                "Path {path} is {kind}, not a regular file; the file tools only read and write regular files."
            ),
            Refusal::Protected { path } => write!(
                f,
                "Path {path} is protected: it holds configuration that runs code or widens permissions outside the sandbox (.rho/, RHO_HOME, .git/config, .git/hooks, .git/info, core.hooksPath), so no tool writes it in workspace-write mode. The user can change it, or run with --permission full."
            ),
            Refusal::BadPath { path, problem } => {
                write!(f, "Path {path} was refused: {problem}.")
            }
            Refusal::ReadOnly { tool } => write!(
                f,
                "The {tool} tool is not available in read-only mode (--permission read-only). Use --permission workspace-write to allow changes."
            ),
            Refusal::CommandDenied { part, rule } => write!(
                f,
                "Command \"{part}\" is denied by a command rule ({rule}). Change the rule to allow it."
            ),
            Refusal::ToolDenied { tool, rule } => write!(
                f,
                "Tool \"{tool}\" is denied by a tool rule ({rule}). Change the rule to allow it."
            ),
            Refusal::NotReadOnly { tool } => write!(
                f,
                "The {tool} tool is not available in read-only mode (--permission read-only): it does not say it is read-only (readOnlyHint). Use --permission workspace-write to allow it."
            ),
            Refusal::CommandNotApproved { part } => {
                write!(f, "Command \"{part}\" was not approved by the user.")
            }
            Refusal::CommandNeedsApproval { part, why } => write!(
                f,
                "Command \"{part}\" needs approval ({why}), and rho is running non-interactively, so it was refused. To allow it, add an allow rule for it to RHO_HOME/rules.toml (a project's own rules file cannot allow)."
            ),
        }
    }
}

impl std::error::Error for Refusal {}
