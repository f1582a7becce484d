//! The re-check at open time: a file tool opens through the policy, so a symlink swapped in
//! after the preflight check cannot lead it out of the roots.
//!
//! Reading: open without blocking (a FIFO or a device would hang a plain `open`), refuse what is
//! not a regular file, then ask the kernel where the open file really is (`/proc/self/fd/N`) and
//! refuse before a byte is read. A file with more than one name is also refused when it is
//! another name of a secret file ([`crate::links`]). Writing is [`crate::write`].

use std::ffi::CString;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

use crate::links::SecretInodes;
use crate::mode::PermissionMode;
use crate::policy::{Access, GatePolicy};
use crate::refusal::Refusal;

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

impl From<Refusal> for GuardedOpenError {
    fn from(refusal: Refusal) -> Self {
        GuardedOpenError::Refused(refusal)
    }
}

/// A file `grep` may search, or a secret it must skip (counted, never read).
#[derive(Debug)]
pub enum SearchOpen {
    /// Open, inside the roots, not a secret.
    File(File),
    /// A secret file by its name, where it really is, or its inode.
    Secret,
}

impl GatePolicy {
    /// Checks where an open file (or directory) really is.
    pub fn verify_opened(&self, tool: &str, access: Access, file: &File) -> Result<(), Refusal> {
        let real = opened_path(file)?;
        self.check_real(tool, access, &real)
    }

    /// The checks of [`GatePolicy::check_path`] on a path that is already real.
    pub(crate) fn check_real(
        &self,
        tool: &str,
        access: Access,
        real: &Path,
    ) -> Result<(), Refusal> {
        self.check_secret(real, real)?;
        if self.mode() == PermissionMode::Full {
            return Ok(());
        }
        // Re-uses the full check for its read-only rule, output-file exception and wording.
        self.check_path(tool, access, real).map(drop)
    }

    /// Opens the regular file `path` for reading and verifies it: where it really is, and that
    /// it is not another name of a secret file.
    pub fn open_for_read(&self, tool: &str, path: &Path) -> Result<File, GuardedOpenError> {
        let file = open_regular(path, libc::O_RDONLY)?;
        self.verify_opened(tool, Access::Read, &file)?;
        self.check_links(&file, None)?;
        Ok(file)
    }

    /// Opens the regular file `path` for reading and writing without truncating it (`edit`
    /// reads it, then writes through [`GatePolicy::write_file`]), verified for writing.
    pub fn open_for_edit(&self, tool: &str, path: &Path) -> Result<File, GuardedOpenError> {
        let file = open_regular(path, libc::O_RDWR)?;
        self.verify_opened(tool, Access::Write, &file)?;
        self.check_links(&file, None)?;
        Ok(file)
    }

    /// Opens a file a `grep` walk found. A secret — by the name it was found under, by where
    /// it really is, or as another name of a secret file — is not opened for reading at all;
    /// anything outside the roots is refused. `secrets` were taken before the walk began.
    pub fn open_for_search(
        &self,
        tool: &str,
        path: &Path,
        secrets: &SecretInodes,
    ) -> Result<SearchOpen, GuardedOpenError> {
        let file = open_regular(path, libc::O_RDONLY)?;
        let real = opened_path(&file)?;
        if self.check_secret(path, &real).is_err() || self.check_secret(&real, &real).is_err() {
            return Ok(SearchOpen::Secret);
        }
        self.check_real(tool, Access::Read, &real)?;
        if self.check_links(&file, Some(secrets)).is_err() {
            return Ok(SearchOpen::Secret);
        }
        Ok(SearchOpen::File(file))
    }

    /// Opens the directory `path` for reading (`ls`, and the root of a `grep`/`find` walk) and
    /// verifies where it really is. `O_DIRECTORY` so that something swapped in that is not a
    /// directory (a FIFO would block an open) fails at once.
    pub fn open_dir_for_read(&self, tool: &str, path: &Path) -> Result<File, GuardedOpenError> {
        let dir = open_at(
            libc::AT_FDCWD,
            path,
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NONBLOCK,
        )?;
        self.verify_opened(tool, Access::Read, &dir)?;
        Ok(dir)
    }

    /// Refuses a file with more than one name that is one of the secret files (`secrets`, or
    /// looked up now).
    fn check_links(&self, file: &File, secrets: Option<&SecretInodes>) -> Result<(), Refusal> {
        let meta = file.metadata().map_err(|error| Refusal::BadPath {
            path: describe(file),
            problem: format!("it cannot be examined ({error})"),
        })?;
        if meta.nlink() <= 1 {
            return Ok(());
        }
        let secret = match secrets {
            Some(secrets) => secrets.contains(meta.dev(), meta.ino()),
            None => self.secret_inodes().contains(meta.dev(), meta.ino()),
        };
        if secret {
            return Err(Refusal::SecretLink {
                path: describe(file),
            });
        }
        Ok(())
    }
}

/// Opens `path` with `flags` plus `O_NONBLOCK | O_CLOEXEC`, and refuses anything that is not a
/// regular file: a FIFO, a socket or a device could block or never end. `O_NONBLOCK` has no
/// effect on a regular file's reads and writes.
pub fn open_regular(path: &Path, flags: libc::c_int) -> Result<File, GuardedOpenError> {
    let file = open_at(libc::AT_FDCWD, path, flags | libc::O_NONBLOCK)?;
    ensure_regular(&file, path)?;
    Ok(file)
}

/// Refuses an open file that is not a regular file (a directory passes: the caller's own read
/// fails on it with the error Pi reports).
pub(crate) fn ensure_regular(file: &File, path: &Path) -> Result<(), GuardedOpenError> {
    let kind = file.metadata()?.file_type();
    let what = if kind.is_fifo() {
        "a FIFO (named pipe)"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else {
        return Ok(());
    };
    Err(Refusal::NotRegular {
        path: path.display().to_string(),
        kind: what,
    }
    .into())
}

/// `openat(dir, path, flags | O_CLOEXEC)`.
pub(crate) fn open_at(dir: RawFd, path: &Path, flags: libc::c_int) -> io::Result<File> {
    let name = c_path(path)?;
    // SAFETY: `name` is NUL-terminated for the call; `dir` is a directory fd or AT_FDCWD.
    let fd = unsafe { libc::openat(dir, name.as_ptr(), flags | libc::O_CLOEXEC, 0o666) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just returned by `openat` and is owned by nobody else.
    Ok(unsafe { File::from_raw_fd(fd) })
}

/// A path as a C string; a NUL byte is `EINVAL`.
pub(crate) fn c_path(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))
}

/// Where an open file really is, as the kernel says (`/proc/self/fd/N`).
pub(crate) fn opened_path(file: &File) -> Result<PathBuf, Refusal> {
    let link = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
    std::fs::read_link(&link).map_err(|error| Refusal::BadPath {
        path: link.display().to_string(),
        problem: format!("where the opened file is cannot be verified ({error})"),
    })
}

/// An open file's real path for a message, or its descriptor's name when the kernel won't say.
fn describe(file: &File) -> String {
    opened_path(file).map_or_else(
        |_| format!("/proc/self/fd/{}", file.as_raw_fd()),
        |path| path.display().to_string(),
    )
}
