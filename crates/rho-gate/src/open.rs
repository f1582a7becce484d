//! The re-check at open time: a file tool opens through the policy, so a symlink swapped in
//! after the preflight check cannot lead it out of the roots.
//!
//! Reading: open, then ask the kernel where the open file really is (`/proc/self/fd/N`) and
//! refuse before a byte is read. Writing: open the parent directory, check where *it* really
//! is, then create the file relative to that directory fd with `O_NOFOLLOW`, so neither a
//! swapped parent nor a swapped final component can redirect the write. A final component
//! that is a symlink is followed one hop at a time, each hop checked the same way.

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use crate::mode::PermissionMode;
use crate::policy::{Access, GatePolicy};
use crate::realpath::real_path;
use crate::refusal::Refusal;

/// Symlinks followed by one guarded write at most (Linux's `MAXSYMLINKS`).
const MAX_HOPS: usize = 40;

/// A guarded open that failed.
#[derive(Debug, thiserror::Error)]
pub enum GuardedOpenError {
    /// The file is not one the tool may touch.
    #[error("{0}")]
    Refused(Refusal),
    /// The open itself failed.
    #[error("{0}")]
    Io(#[from] io::Error),
}

impl GatePolicy {
    /// Checks where an open file (or directory) really is.
    pub fn verify_opened(&self, tool: &str, access: Access, file: &File) -> Result<(), Refusal> {
        let real = opened_path(file)?;
        self.check_real(tool, access, &real)
    }

    /// Where an open file really is, checked against the roots only, not the secrets: for a
    /// caller that deals with secret files itself (`grep` over a directory withholds their
    /// lines by name).
    pub fn verify_opened_in_roots(&self, access: Access, file: &File) -> Result<(), Refusal> {
        let real = opened_path(file)?;
        self.check_roots(access, &real)
    }

    /// The checks of [`GatePolicy::check_path`] on a path that is already real.
    fn check_real(&self, tool: &str, access: Access, real: &Path) -> Result<(), Refusal> {
        self.check_secret(real, real)?;
        if self.mode() == PermissionMode::Full {
            return Ok(());
        }
        // Re-uses the full check for its read-only rule, bash-output exception and wording.
        self.check_path(tool, access, real).map(drop)
    }

    /// Opens `path` for reading and verifies the open file.
    pub fn open_for_read(&self, tool: &str, path: &Path) -> Result<File, GuardedOpenError> {
        let file = File::open(path)?;
        self.verify_opened(tool, Access::Read, &file)
            .map_err(GuardedOpenError::Refused)?;
        Ok(file)
    }

    /// Opens the directory `path` for reading (`ls`, and the root of a `grep`/`find` walk) and
    /// verifies where it really is. `O_DIRECTORY` so that something swapped in that is not a
    /// directory (a FIFO would block an open) fails at once.
    pub fn open_dir_for_read(&self, tool: &str, path: &Path) -> Result<File, GuardedOpenError> {
        use std::os::unix::fs::OpenOptionsExt;
        let dir = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECTORY | libc::O_NONBLOCK)
            .open(path)?;
        self.verify_opened(tool, Access::Read, &dir)
            .map_err(GuardedOpenError::Refused)?;
        Ok(dir)
    }

    /// Opens `path` for writing, created if missing and truncated when `truncate`, without
    /// following a symlink out of the roots at any point (see the module doc).
    pub fn open_for_write(
        &self,
        tool: &str,
        path: &Path,
        truncate: bool,
    ) -> Result<File, GuardedOpenError> {
        let mut path = path.to_path_buf();
        for _ in 0..MAX_HOPS {
            let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
                return Err(io::Error::from_raw_os_error(libc::EISDIR).into());
            };
            let dir = File::open(parent)?;
            self.verify_opened(tool, Access::Write, &dir)
                .map_err(GuardedOpenError::Refused)?;
            let name = CString::new(name.as_bytes())
                .map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
            let mut flags = libc::O_WRONLY | libc::O_CREAT | libc::O_NOFOLLOW | libc::O_CLOEXEC;
            if truncate {
                flags |= libc::O_TRUNC;
            }
            // SAFETY: `dir` is an open directory fd and `name` a NUL-terminated string for the
            // duration of the call.
            let fd = unsafe { libc::openat(dir.as_raw_fd(), name.as_ptr(), flags, 0o666) };
            if fd >= 0 {
                // SAFETY: `fd` was just returned by `openat` and is owned by nobody else.
                let file = unsafe { File::from_raw_fd(fd) };
                self.verify_opened(tool, Access::Write, &file)
                    .map_err(GuardedOpenError::Refused)?;
                return Ok(file);
            }
            let error = io::Error::last_os_error();
            if error.raw_os_error() != Some(libc::ELOOP) {
                return Err(error.into());
            }
            // The final component is a symlink: follow one hop and check again.
            let target = std::fs::read_link(&path)?;
            path = real_path(&parent.join(target))?;
        }
        Err(io::Error::from_raw_os_error(libc::ELOOP).into())
    }
}

/// Where an open file really is, as the kernel says (`/proc/self/fd/N`).
fn opened_path(file: &File) -> Result<PathBuf, Refusal> {
    let link = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
    std::fs::read_link(&link).map_err(|error| Refusal::BadPath {
        path: link.display().to_string(),
        problem: format!("where the opened file is cannot be verified ({error})"),
    })
}
