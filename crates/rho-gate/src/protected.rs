//! Protected paths: the places inside the roots whose files later run code outside the sandbox
//! or widen rho's own permissions — the project's `.rho/`, `RHO_HOME`, and of each git dir at
//! a root its `config`, `hooks/`, `info/` (also under `modules/*` and worktrees), the gitfile
//! that names a git dir, and the directory `core.hooksPath` names. In `workspace-write` mode
//! they are read-only to every tool: the path gate refuses the file tools, and the sandbox
//! mounts them read-only for `bash`. Objects, refs and the index stay writable, so commits work.

use std::path::{Path, PathBuf};

use crate::realpath::real_path;

/// The project's own configuration directory (settings, rules, mcp.json, hooks, extensions).
pub const PROJECT_DIR: &str = ".rho";

/// Nested git dirs (`modules/a/modules/b`) followed at most this deep.
const MAX_MODULE_DEPTH: usize = 8;

/// What is protected at one moment, enumerated from the roots.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProtectedPaths {
    /// Read-only: files and directories, existing or not (a missing one must not be created).
    pub read_only: Vec<PathBuf>,
    /// Git dirs (writable) that must not be renamed away and replaced by the model's own.
    pub git_dirs: Vec<PathBuf>,
}

impl ProtectedPaths {
    /// Enumerates the protected paths of `roots` (real paths) with `rho_home` (real, if known).
    pub fn enumerate(roots: &[PathBuf], rho_home: Option<&Path>) -> ProtectedPaths {
        let mut found = ProtectedPaths::default();
        for root in roots {
            found.read_only.push(root.join(PROJECT_DIR));
            found.add_repository(root);
        }
        if let Some(home) = rho_home {
            found.read_only.push(home.to_path_buf());
        }
        found.read_only.sort();
        found.read_only.dedup();
        found
    }

    /// Whether `real` is, or lies beneath, a read-only path.
    pub fn covers(&self, real: &Path) -> bool {
        self.read_only.iter().any(|p| real.starts_with(p))
    }

    /// The `.git` of a work tree at `root`: a directory, or a gitfile naming one.
    fn add_repository(&mut self, root: &Path) {
        let dot_git = root.join(".git");
        let Ok(meta) = std::fs::symlink_metadata(&dot_git) else {
            return;
        };
        if meta.is_dir() {
            self.add_git_dir(root, &dot_git, 0);
        } else if meta.is_file() {
            self.read_only.push(dot_git.clone());
            if let Some(git_dir) = gitfile_target(&dot_git) {
                self.add_git_dir(root, &git_dir, 0);
            }
        }
    }

    /// One git dir: its configuration and hooks read-only, itself pinned, then its modules
    /// and worktrees, and the common dir a linked worktree's git dir names.
    fn add_git_dir(&mut self, work_tree: &Path, git_dir: &Path, depth: usize) {
        let Ok(git_dir) = real_path(git_dir) else {
            return;
        };
        if depth > MAX_MODULE_DEPTH || self.git_dirs.contains(&git_dir) {
            return;
        }
        self.git_dirs.push(git_dir.clone());
        for name in [
            "config",
            "config.worktree",
            "hooks",
            "info",
            "commondir",
            "gitdir",
        ] {
            self.read_only.push(git_dir.join(name));
        }
        if let Some(hooks) = hooks_path(&git_dir.join("config"), work_tree) {
            self.read_only.push(hooks);
        }
        if let Ok(common) = std::fs::read_to_string(git_dir.join("commondir")) {
            let common = git_dir.join(common.trim());
            self.add_git_dir(work_tree, &common, depth + 1);
        }
        for sub in ["modules", "worktrees"] {
            self.add_nested(work_tree, &git_dir.join(sub), depth + 1);
        }
    }

    /// The git dirs beneath `dir` (`modules/<name>` where the name may hold slashes).
    fn add_nested(&mut self, work_tree: &Path, dir: &Path, depth: usize) {
        if depth > MAX_MODULE_DEPTH {
            return;
        }
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            if !entry.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            let path = entry.path();
            if path.join("HEAD").is_file() {
                self.add_git_dir(work_tree, &path, depth);
            } else {
                self.add_nested(work_tree, &path, depth + 1);
            }
        }
    }
}

/// The git dir a gitfile (`gitdir: <path>`) names, relative to the file's directory.
fn gitfile_target(gitfile: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(gitfile).ok()?;
    let target = text.lines().next()?.strip_prefix("gitdir:")?.trim();
    Some(gitfile.parent()?.join(target))
}

/// `core.hooksPath` of a git config file, resolved against the work tree.
fn hooks_path(config: &Path, work_tree: &Path) -> Option<PathBuf> {
    let text = std::fs::read_to_string(config).ok()?;
    let mut in_core = false;
    let mut found = None;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_core = line
                .trim_start_matches('[')
                .trim_end_matches(']')
                .trim()
                .eq_ignore_ascii_case("core");
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if in_core && key.trim().eq_ignore_ascii_case("hookspath") {
            found = Some(value.trim().trim_matches('"').to_owned());
        }
    }
    let value = found?;
    let path = match value.strip_prefix("~/") {
        Some(rest) => PathBuf::from(std::env::var_os("HOME")?).join(rest),
        None => work_tree.join(value),
    };
    Some(real_path(&path).unwrap_or(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repository_with_modules_worktrees_and_hooks_path_is_enumerated() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = real_path(dir.path()).unwrap_or_else(|e| panic!("{e}"));
        let git = root.join(".git");
        for sub in [
            "hooks",
            "modules/lib/a/hooks",
            "worktrees/wt",
            "tools/hooks",
        ] {
            let path = if sub.starts_with("tools") {
                root.join(sub)
            } else {
                git.join(sub)
            };
            std::fs::create_dir_all(path).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::write(git.join("config"), "[core]\n\thooksPath = tools/hooks\n")
            .unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(git.join("modules/lib/a/HEAD"), "ref: refs/heads/main\n")
            .unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(git.join("worktrees/wt/HEAD"), "ref: refs/heads/wt\n")
            .unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(git.join("worktrees/wt/commondir"), "../..\n")
            .unwrap_or_else(|e| panic!("{e}"));
        let found = ProtectedPaths::enumerate(std::slice::from_ref(&root), None);
        for path in [
            ".rho",
            ".git/config",
            ".git/hooks",
            ".git/info",
            ".git/modules/lib/a/hooks",
            ".git/worktrees/wt/commondir",
            "tools/hooks",
        ] {
            assert!(found.covers(&root.join(path)), "{path}: {found:?}");
        }
        for path in [
            ".git/objects/ab",
            ".git/refs/heads/config",
            ".git/index",
            "src",
        ] {
            assert!(!found.covers(&root.join(path)), "{path}");
        }
        assert_eq!(
            found.git_dirs,
            [
                git.clone(),
                git.join("modules/lib/a"),
                git.join("worktrees/wt")
            ]
        );
    }
}
