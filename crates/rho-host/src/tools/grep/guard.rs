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
use rho_gate::{Access, GatePolicy, GuardedOpenError, SearchOpen, SecretInodes};

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

/// What `grep` may do with one file of its walk.
pub(crate) enum Searchable {
    /// Search this open file.
    File(File),
    /// A secret file: never read, only counted.
    Secret,
}

/// Opens a file `grep` reads through the gate, so a file swapped for a symlink pointing out
/// (or to a secret under another name) is refused before a byte is read, and a secret — by the
/// name the walk found it under, by where it really is, or as a hard link of one — is skipped
/// unread. Without a gate the file is still opened without blocking (a FIFO would hang).
pub(crate) fn open_file(
    gate: Option<(&GatePolicy, &SecretInodes)>,
    tool: &str,
    path: &Path,
) -> Result<Searchable, String> {
    let message = |error: GuardedOpenError| match error {
        GuardedOpenError::Refused(refusal) => refusal.to_string(),
        GuardedOpenError::Io(error) => format!("{}: {error}", path.display()),
    };
    match gate {
        None => rho_gate::open_regular(path, libc::O_RDONLY)
            .map(Searchable::File)
            .map_err(message),
        Some((gate, secrets)) => {
            match gate.open_for_search(tool, path, secrets).map_err(message)? {
                SearchOpen::File(file) => Ok(Searchable::File(file)),
                SearchOpen::Secret => Ok(Searchable::Secret),
            }
        }
    }
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

    /// `open_file`'s outcome as text: the error, `secret`, or `file`.
    fn opened(gate: Option<&GatePolicy>, path: &Path) -> String {
        let secrets = gate.map(GatePolicy::secret_inodes).unwrap_or_default();
        match open_file(gate.map(|gate| (gate, &secrets)), "grep", path) {
            Ok(Searchable::File(_)) => "file".to_owned(),
            Ok(Searchable::Secret) => "secret".to_owned(),
            Err(message) => message,
        }
    }

    #[test]
    fn a_file_that_leads_out_is_refused_before_it_is_read() {
        let (_dir, base, policy) = world();
        let link = base.join("p/d/link.txt");
        symlink(base.join("out/secret.txt"), &link).unwrap();
        assert_eq!(
            opened(Some(&policy), &link),
            format!(
                "Path {} is outside the allowed directories: {}. Use --allow-dir to allow it.",
                base.join("out/secret.txt").display(),
                base.join("p").display()
            )
        );
        assert_eq!(opened(None, &link), "file");
    }

    #[test]
    fn a_secret_by_its_name_by_where_it_leads_or_by_its_inode_is_skipped_unread() {
        let (_dir, base, policy) = world();
        std::fs::write(base.join("p/.env"), "KEY=1").unwrap();
        symlink(base.join("p/.env"), base.join("p/d/notes.txt")).unwrap();
        assert_eq!(opened(Some(&policy), &base.join("p/d/notes.txt")), "secret");
        assert_eq!(opened(Some(&policy), &base.join("p/.env")), "secret");
        // Named a secret and leading out: skipped unread all the same.
        symlink(base.join("out/secret.txt"), base.join("p/d/.env.local")).unwrap();
        assert_eq!(
            opened(Some(&policy), &base.join("p/d/.env.local")),
            "secret"
        );
        // A hard link of one of rho's credential files under an innocent name.
        std::fs::create_dir(base.join("home")).unwrap();
        std::fs::write(base.join("home/auth.json"), "{}").unwrap();
        std::fs::hard_link(base.join("home/auth.json"), base.join("p/d/copy.txt")).unwrap();
        let policy = policy.with_rho_home(base.join("home"));
        assert_eq!(opened(Some(&policy), &base.join("p/d/copy.txt")), "secret");
    }

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let (_dir, base, policy) = world();
        let fifo = base.join("p/d/pipe");
        let c_path = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
        for gate in [Some(&policy), None] {
            assert_eq!(
                opened(gate, &fifo),
                format!(
                    "Path {} is a FIFO (named pipe), not a regular file; the file tools only read and write regular files.",
                    fifo.display()
                )
            );
        }
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
