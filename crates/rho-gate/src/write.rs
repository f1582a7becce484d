//! Guarded writes: `write` and `edit` put bytes into a file through the policy, so that no
//! check is separate from the operation it allows.
//!
//! - Missing parent directories are made one at a time relative to the directory fd above
//!   them (`mkdirat`, then `openat` with `O_NOFOLLOW`), starting from an existing directory
//!   the kernel says lies inside the roots: a symlink swapped into the path meanwhile fails the
//!   next step instead of leading out.
//! - The file itself is created relative to its verified directory with `O_NOFOLLOW`; a final
//!   component that is a symlink is followed one hop at a time, each hop checked the same way.
//! - Nothing but a regular file is written (a FIFO would block the write forever).
//! - A file with more than one name (a hard link) is never changed in place: the new content
//!   goes to a new file that is renamed over this name, so another name of the same inode —
//!   possibly outside the roots — keeps its content.

use std::ffi::CString;
use std::fs::File;
use std::io::{self, Write};
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::open::{GuardedOpenError, c_path, ensure_regular, open_at, opened_path};
use crate::policy::{Access, GatePolicy};
use crate::realpath::real_path;
use crate::refusal::Refusal;

/// Symlinks followed by one guarded write at most (Linux's `MAXSYMLINKS`).
const MAX_HOPS: usize = 40;

/// A directory open for creating entries in, with where the kernel says it is.
struct OpenDir {
    file: File,
    real: PathBuf,
}

impl GatePolicy {
    /// Writes `bytes` to `path` (created if missing, its parent directories too), replacing
    /// its content, without following a symlink out of the roots at any point.
    pub fn write_file(
        &self,
        tool: &str,
        path: &Path,
        bytes: &[u8],
    ) -> Result<(), GuardedOpenError> {
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
            return Err(io::Error::from_raw_os_error(libc::EISDIR).into());
        };
        let mut dir = self.open_dir_creating(tool, parent)?;
        let mut name = PathBuf::from(name);
        for _ in 0..MAX_HOPS {
            self.check_real(tool, Access::Write, &dir.real.join(&name))?;
            let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_NOFOLLOW | libc::O_NONBLOCK;
            match open_at(dir.file.as_raw_fd(), &name, flags) {
                Ok(file) => {
                    ensure_regular(&file, &dir.real.join(&name))?;
                    self.verify_opened(tool, Access::Write, &file)?;
                    return replace_content(&dir, &name, file, bytes).map_err(Into::into);
                }
                Err(error) if error.raw_os_error() == Some(libc::ENXIO) => {
                    // A FIFO nobody reads: opening it for writing without blocking says so.
                    return Err(Refusal::NotRegular {
                        path: dir.real.join(&name).display().to_string(),
                        kind: "a FIFO (named pipe)",
                    }
                    .into());
                }
                Err(error) if error.raw_os_error() == Some(libc::ELOOP) => {
                    // The final component is a symlink: follow one hop and check again.
                    let target = std::fs::read_link(dir.real.join(&name))?;
                    let next = real_path(&dir.real.join(target))?;
                    let (Some(next_parent), Some(next_name)) = (next.parent(), next.file_name())
                    else {
                        return Err(io::Error::from_raw_os_error(libc::EISDIR).into());
                    };
                    dir = self.open_dir(tool, next_parent)?;
                    name = PathBuf::from(next_name);
                }
                Err(error) => return Err(error.into()),
            }
        }
        Err(io::Error::from_raw_os_error(libc::ELOOP).into())
    }

    /// Opens the existing directory `path` for creating in, verified for writing.
    fn open_dir(&self, tool: &str, path: &Path) -> Result<OpenDir, GuardedOpenError> {
        let file = open_at(libc::AT_FDCWD, path, libc::O_RDONLY | libc::O_DIRECTORY)?;
        self.verify_opened(tool, Access::Write, &file)?;
        let real = opened_path(&file)?;
        Ok(OpenDir { file, real })
    }

    /// Opens the directory `path`, making what is missing of it (as `mkdir -p`) below its
    /// deepest existing ancestor, each new directory relative to the verified one above it.
    fn open_dir_creating(&self, tool: &str, path: &Path) -> Result<OpenDir, GuardedOpenError> {
        let mut missing: Vec<&std::ffi::OsStr> = Vec::new();
        let mut existing = path;
        let mut dir = loop {
            match self.open_dir(tool, existing) {
                Ok(dir) => break dir,
                Err(GuardedOpenError::Io(error)) if error.kind() == io::ErrorKind::NotFound => {
                    let (Some(parent), Some(name)) = (existing.parent(), existing.file_name())
                    else {
                        return Err(error.into());
                    };
                    missing.push(name);
                    existing = parent;
                }
                Err(other) => return Err(other),
            }
        };
        for name in missing.into_iter().rev() {
            let real = dir.real.join(name);
            self.check_real(tool, Access::Write, &real)?;
            let c_name = c_path(Path::new(name))?;
            // SAFETY: `dir.file` is an open directory and `c_name` NUL-terminated.
            let made = unsafe { libc::mkdirat(dir.file.as_raw_fd(), c_name.as_ptr(), 0o777) };
            if made != 0 {
                let error = io::Error::last_os_error();
                if error.kind() != io::ErrorKind::AlreadyExists {
                    return Err(error.into());
                }
            }
            let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW;
            let file = open_at(dir.file.as_raw_fd(), Path::new(name), flags)?;
            dir = OpenDir { file, real };
        }
        Ok(dir)
    }
}

/// Replaces the content of `file` (open for writing as `name` in `dir`): in place when it has
/// one name, else through a new file renamed over `name`.
fn replace_content(dir: &OpenDir, name: &Path, mut file: File, bytes: &[u8]) -> io::Result<()> {
    let meta = file.metadata()?;
    if meta.nlink() <= 1 {
        file.set_len(0)?;
        return file.write_all(bytes);
    }
    drop(file);
    let mode = meta.permissions().mode() & 0o7777;
    let (temp_name, mut temp) = create_sibling(dir, name)?;
    let written = temp
        .write_all(bytes)
        .and_then(|()| temp.set_permissions(std::fs::Permissions::from_mode(mode)))
        .and_then(|()| rename_at(dir, &temp_name, name));
    if written.is_err() {
        // SAFETY: `dir.file` is an open directory and `temp_name` NUL-terminated.
        unsafe { libc::unlinkat(dir.file.as_raw_fd(), temp_name.as_ptr(), 0) };
    }
    written
}

/// Creates `.<name>.rho-<hex>.tmp` beside `name`, never reusing an existing entry.
fn create_sibling(dir: &OpenDir, name: &Path) -> io::Result<(CString, File)> {
    let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW;
    for attempt in 0u64..16 {
        let mut temp = b".".to_vec();
        temp.extend_from_slice(name.as_os_str().as_bytes());
        temp.extend_from_slice(
            format!(".rho-{:016x}.tmp", rho_stdx::random::u64(attempt)).as_bytes(),
        );
        let temp_path = PathBuf::from(std::ffi::OsStr::from_bytes(&temp));
        match open_at(dir.file.as_raw_fd(), &temp_path, flags) {
            Ok(file) => return Ok((c_path(&temp_path)?, file)),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
            Err(error) => return Err(error),
        }
    }
    Err(io::Error::from_raw_os_error(libc::EEXIST))
}

/// `renameat(dir, from, dir, to)`.
fn rename_at(dir: &OpenDir, from: &CString, to: &Path) -> io::Result<()> {
    let to = c_path(to)?;
    let fd = dir.file.as_raw_fd();
    // SAFETY: `fd` is an open directory; both names are NUL-terminated.
    if unsafe { libc::renameat(fd, from.as_ptr(), fd, to.as_ptr()) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Writes `bytes` to the regular file `path` (created if missing), without the policy: the
/// tools' path when no gate is installed. A FIFO or device is refused instead of blocking.
pub fn write_regular(path: &Path, bytes: &[u8]) -> Result<(), GuardedOpenError> {
    let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_NONBLOCK;
    let mut file = match open_at(libc::AT_FDCWD, path, flags) {
        Err(error) if error.raw_os_error() == Some(libc::ENXIO) => {
            return Err(Refusal::NotRegular {
                path: path.display().to_string(),
                kind: "a FIFO (named pipe)",
            }
            .into());
        }
        other => other?,
    };
    ensure_regular(&file, path)?;
    file.set_len(0)?;
    file.write_all(bytes).map_err(Into::into)
}
