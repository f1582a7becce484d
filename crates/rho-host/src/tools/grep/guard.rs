//! The open-time re-check for the tools that look into directories (`ls`, `grep`, `find`):
//! preflight checked the path, but a directory swapped for a symlink pointing out after that
//! check must not be listed or searched.
//!
//! The root is opened through the gate (`O_DIRECTORY`, then the kernel is asked where the open
//! directory really is). `ls` then reads that very directory through its fd; a walk goes by
//! path (the `ignore` crate needs one, for parent ignore files too), so after the walk the
//! path must still lead to the directory that was opened. The walk itself never follows a
//! symlink, and `grep` opens every file it reads through the gate as well.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use rho_agent::ToolError;
use rho_gate::{Access, GatePolicy, GuardedOpenError};

/// The tool these checks speak for, in their refusals.
pub(super) const NAME: &str = "grep";

/// A directory opened through the gate and verified to lie inside the roots.
pub(crate) struct GuardedDir {
    dir: File,
    path: PathBuf,
}

impl GuardedDir {
    /// Opens `path` through `gate` for `tool`. A refusal becomes the tool's error text; an
    /// I/O failure is handed to `io_error` so each tool keeps its own wording.
    pub(crate) fn open(
        gate: &GatePolicy,
        tool: &str,
        path: &Path,
        io_error: impl FnOnce(std::io::Error) -> ToolError,
    ) -> Result<GuardedDir, ToolError> {
        match gate.open_dir_for_read(tool, path) {
            Ok(dir) => Ok(GuardedDir {
                dir,
                path: path.to_path_buf(),
            }),
            Err(GuardedOpenError::Refused(refusal)) => Err(ToolError::new(refusal.to_string())),
            Err(GuardedOpenError::Io(error)) => Err(io_error(error)),
        }
    }

    /// A path that names the opened directory itself, whatever happens to `path` meanwhile:
    /// the kernel resolves `/proc/self/fd/N` to the open file, not by name.
    pub(crate) fn fd_path(&self) -> PathBuf {
        PathBuf::from(format!("/proc/self/fd/{}", self.dir.as_raw_fd()))
    }

    /// After a walk by path: the path must still lead to the opened directory, or what was
    /// walked may have been somewhere else.
    pub(crate) fn recheck(&self, gate: &GatePolicy, tool: &str) -> Result<(), ToolError> {
        let same = match (std::fs::metadata(&self.path), self.dir.metadata()) {
            (Ok(now), Ok(opened)) => now.dev() == opened.dev() && now.ino() == opened.ino(),
            _ => false,
        };
        if same {
            return Ok(());
        }
        gate.check_path(tool, Access::Read, &self.path)
            .map_err(|refusal| ToolError::new(refusal.to_string()))?;
        Err(ToolError::new(format!(
            "Path {} changed while {tool} was running; nothing from it is shown. Run {tool} again.",
            self.path.display()
        )))
    }
}

/// Opens a file `grep` reads through the gate, so a file swapped for a symlink pointing out
/// (or to a secret under another name) is refused before a byte is read.
///
/// A file whose own name is a secret is read (inside the roots only): the gate's after-hook
/// withholds its lines by that name and tells the model how many, which is more useful than
/// failing the whole search. A file named explicitly as a secret never gets here: preflight
/// refuses it.
pub(crate) fn open_file(
    gate: Option<&GatePolicy>,
    tool: &str,
    path: &Path,
) -> Result<File, String> {
    let io_error = |error: std::io::Error| format!("{}: {error}", path.display());
    let Some(gate) = gate else {
        return File::open(path).map_err(io_error);
    };
    if gate.secrets().denied_by(path).is_some() {
        let file = File::open(path).map_err(io_error)?;
        gate.verify_opened_in_roots(Access::Read, &file)
            .map_err(|refusal| refusal.to_string())?;
        return Ok(file);
    }
    gate.open_for_read(tool, path).map_err(|error| match error {
        GuardedOpenError::Refused(refusal) => refusal.to_string(),
        GuardedOpenError::Io(error) => io_error(error),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::os::unix::fs::symlink;

    use rho_gate::PermissionMode;

    use super::*;

    /// A project `root/p` with a directory `d` and an outside directory `root/out`.
    fn world() -> (tempfile::TempDir, PathBuf, GatePolicy) {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(base.join("p/d")).unwrap();
        std::fs::create_dir_all(base.join("out")).unwrap();
        std::fs::write(base.join("out/secret.txt"), "OUT").unwrap();
        let policy = GatePolicy::new(PermissionMode::WorkspaceWrite, base.join("p"));
        (dir, base, policy)
    }

    fn no_io(error: std::io::Error) -> ToolError {
        ToolError::new(format!("io: {error}"))
    }

    #[test]
    fn a_root_swapped_out_during_the_walk_fails_the_recheck_with_the_refusal() {
        let (_dir, base, policy) = world();
        let root = base.join("p/d");
        let guarded = GuardedDir::open(&policy, "find", &root, no_io).unwrap();
        assert_eq!(guarded.recheck(&policy, "find"), Ok(()));

        std::fs::remove_dir(&root).unwrap();
        symlink(base.join("out"), &root).unwrap();
        assert_eq!(
            guarded.recheck(&policy, "find").unwrap_err().0,
            format!(
                "Path {} is outside the allowed directories: {}. Use --allow-dir to allow it.",
                base.join("out").display(),
                base.join("p").display()
            )
        );
    }

    #[test]
    fn a_root_replaced_inside_the_roots_during_the_walk_is_reported_as_changed() {
        let (_dir, base, policy) = world();
        let root = base.join("p/d");
        let guarded = GuardedDir::open(&policy, "grep", &root, no_io).unwrap();
        std::fs::remove_dir(&root).unwrap();
        std::fs::create_dir(&root).unwrap();
        assert_eq!(
            guarded.recheck(&policy, "grep").unwrap_err().0,
            format!(
                "Path {} changed while grep was running; nothing from it is shown. Run grep again.",
                root.display()
            )
        );
    }

    #[test]
    fn the_fd_path_keeps_naming_the_opened_directory_after_a_swap() {
        let (_dir, base, policy) = world();
        let root = base.join("p/d");
        std::fs::write(root.join("inner.txt"), "x").unwrap();
        let guarded = GuardedDir::open(&policy, "ls", &root, no_io).unwrap();
        std::fs::rename(&root, base.join("p/moved")).unwrap();
        symlink(base.join("out"), &root).unwrap();
        let names: Vec<_> = std::fs::read_dir(guarded.fd_path())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(names, ["inner.txt"]);
    }

    #[test]
    fn a_file_that_leads_out_is_refused_before_it_is_read() {
        let (_dir, base, policy) = world();
        let link = base.join("p/d/link.txt");
        symlink(base.join("out/secret.txt"), &link).unwrap();
        assert_eq!(
            open_file(Some(&policy), "grep", &link).unwrap_err(),
            format!(
                "Path {} is outside the allowed directories: {}. Use --allow-dir to allow it.",
                base.join("out/secret.txt").display(),
                base.join("p").display()
            )
        );
        assert!(open_file(None, "grep", &link).is_ok());
    }

    #[test]
    fn a_file_leading_to_a_secret_under_another_name_is_refused_and_a_secret_name_must_stay_inside()
    {
        let (_dir, base, policy) = world();
        std::fs::write(base.join("p/.env"), "KEY=1").unwrap();
        symlink(base.join("p/.env"), base.join("p/d/notes.txt")).unwrap();
        let refused = open_file(Some(&policy), "grep", &base.join("p/d/notes.txt"));
        assert!(refused.unwrap_err().contains("is a secret file"));
        // Named a secret itself: read (its lines are withheld by name), but never outside.
        assert!(open_file(Some(&policy), "grep", &base.join("p/.env")).is_ok());
        symlink(base.join("out/secret.txt"), base.join("p/d/.env.local")).unwrap();
        let outside = open_file(Some(&policy), "grep", &base.join("p/d/.env.local"));
        assert!(
            outside
                .unwrap_err()
                .contains("is outside the allowed directories")
        );
    }

    #[test]
    fn a_directory_root_that_is_not_a_directory_fails_with_the_tools_own_error() {
        let (_dir, base, policy) = world();
        let file = base.join("p/f.txt");
        std::fs::write(&file, "x").unwrap();
        let error = GuardedDir::open(&policy, "ls", &file, no_io).err().unwrap();
        assert_eq!(error.0, "io: Not a directory (os error 20)");
    }
}
