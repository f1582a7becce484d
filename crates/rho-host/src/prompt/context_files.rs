//! Context files: the `AGENTS.md` / `CLAUDE.md` instructions put into the system prompt.
//!
//! Pi takes at most one file per directory — the first of `AGENTS.md`, `AGENTS.MD`, `CLAUDE.md`,
//! `CLAUDE.MD` that exists and can be read — first from the agent dir (for rho: `RHO_HOME`), then
//! from every directory from the filesystem root down to the cwd, each path once.

use std::path::{Path, PathBuf};

use super::diagnostic::PromptDiagnostic;

/// The candidate names in one directory, in Pi's order of precedence.
pub const CONTEXT_FILE_NAMES: [&str; 4] = ["AGENTS.md", "AGENTS.MD", "CLAUDE.md", "CLAUDE.MD"];

/// One loaded context file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextFile {
    /// Where it was found (directory joined with the file name, as shown in the prompt).
    pub path: PathBuf,
    /// Its text (invalid UTF-8 replaced, as Node's `utf-8` decoding does).
    pub content: String,
}

/// The context file of one directory, if any. A candidate that exists but cannot be read gives
/// a warning and the next candidate is tried.
pub fn load_context_file_from_dir(
    dir: &Path,
    warnings: &mut Vec<PromptDiagnostic>,
) -> Option<ContextFile> {
    for name in CONTEXT_FILE_NAMES {
        let path = dir.join(name);
        if !path.exists() {
            continue;
        }
        match std::fs::read(&path) {
            Ok(bytes) => {
                let content = String::from_utf8_lossy(&bytes).into_owned();
                return Some(ContextFile { path, content });
            }
            Err(e) => warnings.push(PromptDiagnostic::warning(
                format!("Could not read {}: {e}", path.display()),
                &path,
            )),
        }
    }
    None
}

/// All context files for `cwd`: the global one in `rho_home` first, then ancestors of `cwd`
/// from the root down, `cwd` last; a path already taken is not repeated.
pub fn load_context_files(
    cwd: &Path,
    rho_home: &Path,
) -> (Vec<ContextFile>, Vec<PromptDiagnostic>) {
    let mut warnings = Vec::new();
    let mut files = Vec::new();
    if let Some(global) = load_context_file_from_dir(rho_home, &mut warnings) {
        files.push(global);
    }
    let cwd = std::path::absolute(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    let mut ancestors: Vec<ContextFile> = Vec::new();
    for dir in cwd.ancestors() {
        if let Some(file) = load_context_file_from_dir(dir, &mut warnings) {
            let seen = files
                .iter()
                .chain(ancestors.iter())
                .any(|f| f.path == file.path);
            if !seen {
                ancestors.push(file);
            }
        }
    }
    ancestors.reverse();
    files.extend(ancestors);
    (files, warnings)
}
