//! Context files: the `AGENTS.md` / `CLAUDE.md` instructions put into the system prompt.
//!
//! Pi 1.6 takes at most one file per directory — the first of `AGENTS.override.md`, `AGENTS.md`,
//! `AGENTS.MD`, `CLAUDE.md`, `CLAUDE.MD` that is a regular file and can be read, a leading BOM
//! stripped — first from the agent dir (for rho: `RHO_HOME`), then from every directory from the
//! filesystem root down to the cwd, each path once. A git worktree nested inside its main
//! repository shadows the main repository's file of the same name (both are the same project's
//! instructions). Context files load whether or not the project is trusted, as in Pi.

use std::path::{Path, PathBuf};

use super::diagnostic::PromptDiagnostic;

/// The candidate names in one directory, in Pi's order of precedence.
pub const CONTEXT_FILE_NAMES: [&str; 5] = [
    "AGENTS.override.md",
    "AGENTS.md",
    "AGENTS.MD",
    "CLAUDE.md",
    "CLAUDE.MD",
];

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
        if !path.is_file() {
            continue;
        }
        match std::fs::read(&path) {
            Ok(bytes) => {
                let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
                let content = String::from_utf8_lossy(bytes).into_owned();
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
    let shadowed = shadowed_context_file(&cwd);
    let mut ancestors: Vec<ContextFile> = Vec::new();
    for dir in cwd.ancestors() {
        if let Some(file) = load_context_file_from_dir(dir, &mut warnings) {
            let real = file.path.file_name().map(|name| canonical(dir).join(name));
            if shadowed.is_some() && real == shadowed {
                continue;
            }
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

fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Pi's `findGitPaths`: the nearest directory with a `.git` (a directory, or a file saying
/// `gitdir: <dir>`) and the repository's common git directory.
fn git_paths(cwd: &Path) -> Option<(PathBuf, PathBuf)> {
    for dir in cwd.ancestors() {
        let git = dir.join(".git");
        if git.is_dir() {
            return git.join("HEAD").exists().then(|| (dir.to_path_buf(), git));
        }
        if git.is_file() {
            let text = std::fs::read_to_string(&git).ok()?;
            if let Some(target) = text.trim().strip_prefix("gitdir: ") {
                let git_dir = dir.join(target.trim());
                if !git_dir.join("HEAD").exists() {
                    return None;
                }
                let common = match std::fs::read_to_string(git_dir.join("commondir")) {
                    Ok(common) => git_dir.join(common.trim()),
                    Err(_) => git_dir,
                };
                return Some((dir.to_path_buf(), common));
            }
        }
    }
    None
}

/// Pi's `findShadowedContextFile`: inside a linked worktree nested in its main repository,
/// the main repository's context file of the name the worktree's own file has (canonical).
fn shadowed_context_file(cwd: &Path) -> Option<PathBuf> {
    let (worktree, common) = git_paths(cwd)?;
    let (worktree, common) = (canonical(&worktree), canonical(&common));
    let main = common.parent()?.to_path_buf();
    if !worktree.starts_with(&main) || worktree == main || canonical(&main.join(".git")) != common {
        return None;
    }
    let own = load_context_file_from_dir(&worktree, &mut Vec::new())?;
    Some(main.join(own.path.file_name()?))
}
