//! Where rho keeps the whole output of a command cut short for the model (`bash`'s full
//! output, a user's `!command`): a directory of this user's own in the temp dir, mode 0700,
//! each file 0600 and at most [`MAX_OUTPUT_FILE_BYTES`]. The results name the file, so the
//! model may `read` it (the gate allows reading there, see [`GatePolicy`](crate::GatePolicy));
//! no tool writes it: it lies outside the roots and the sandbox's writable directories.
//!
//! The shared temp dir is everyone's: a directory of that name that is not this user's own
//! private directory (a symlink, another owner, looser permissions) is never used; a fresh,
//! randomly named one is made instead.

use std::fs::File;
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::realpath::real_path;

/// The most bytes of one output kept on disk; what comes after is counted, not saved.
pub const MAX_OUTPUT_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// The process's output directory, once made.
static DIR: OnceLock<Result<PathBuf, String>> = OnceLock::new();

/// This user's output directory, made on first use: `<tmp>/rho-<uid>`, or
/// `<tmp>/rho-<uid>-<hex>` when that name is taken by something else. Symlinks resolved.
pub fn output_dir() -> io::Result<PathBuf> {
    DIR.get_or_init(|| make_dir().map_err(|error| error.to_string()))
        .clone()
        .map_err(io::Error::other)
}

/// Whether `real` (a real path) is a file in this user's output directory: the one this
/// process made, or the stable one an earlier process made (a resumed session's results name
/// files there).
pub(crate) fn is_output_file(real: &Path) -> bool {
    let Some(parent) = real.parent() else {
        return false;
    };
    let made = DIR.get().and_then(|made| made.as_ref().ok());
    if made.is_some_and(|dir| dir == parent) {
        return true;
    }
    // SAFETY: `geteuid` cannot fail.
    let uid = unsafe { libc::geteuid() };
    parent == stable_dir(uid) && is_private_dir(parent, uid)
}

/// `<tmp>/rho-<uid>`, symlinks resolved in the temp dir's path.
fn stable_dir(uid: u32) -> PathBuf {
    let temp = std::env::temp_dir();
    real_path(&temp).unwrap_or(temp).join(format!("rho-{uid}"))
}

/// Creates `<output dir>/<prefix>-<16 hex><extension>` (`extension` with its dot), mode 0600,
/// never reusing an existing file.
pub fn create_output_file(prefix: &str, extension: &str) -> io::Result<(PathBuf, File)> {
    let dir = output_dir()?;
    for attempt in 0u64..16 {
        let name = format!(
            "{prefix}-{:016x}{extension}",
            rho_stdx::random::u64(attempt)
        );
        let path = dir.join(name);
        let opened = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&path);
        match opened {
            Ok(file) => return Ok((path, file)),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
            Err(error) => return Err(error),
        }
    }
    Err(io::Error::from_raw_os_error(libc::EEXIST))
}

fn make_dir() -> io::Result<PathBuf> {
    // SAFETY: `geteuid` cannot fail.
    let uid = unsafe { libc::geteuid() };
    let stable = stable_dir(uid);
    let temp = stable.parent().map(Path::to_path_buf).unwrap_or_default();
    match std::fs::DirBuilder::new().mode(0o700).create(&stable) {
        Ok(()) => return Ok(stable),
        Err(error) if error.kind() != io::ErrorKind::AlreadyExists => return Err(error),
        Err(_) => {}
    }
    if is_private_dir(&stable, uid) {
        return Ok(stable);
    }
    for attempt in 0u64..16 {
        let dir = temp.join(format!("rho-{uid}-{:016x}", rho_stdx::random::u64(attempt)));
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok(dir),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
            Err(error) => return Err(error),
        }
    }
    Err(io::Error::from_raw_os_error(libc::EEXIST))
}

/// A real directory (not a symlink) owned by `uid` that nobody else may enter.
fn is_private_dir(path: &Path, uid: u32) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|meta| {
        meta.is_dir() && meta.uid() == uid && meta.permissions().mode() & 0o077 == 0
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn output_files_are_private_in_a_private_directory() {
        let (path, _file) = create_output_file("rho-test", ".log").unwrap();
        let dir = path.parent().unwrap();
        // SAFETY: `geteuid` cannot fail.
        let uid = unsafe { libc::geteuid() };
        assert!(is_private_dir(dir, uid), "{}", dir.display());
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert!(is_output_file(&path));
        assert!(!is_output_file(&dir.with_file_name("elsewhere.log")));
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn a_directory_that_is_not_private_is_not_used() {
        let dir = tempfile::tempdir().unwrap();
        let open = dir.path().join("open");
        std::fs::DirBuilder::new()
            .mode(0o777)
            .create(&open)
            .unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(dir.path(), &link).unwrap();
        // SAFETY: `geteuid` cannot fail.
        let uid = unsafe { libc::geteuid() };
        assert!(!is_private_dir(&open, uid));
        assert!(!is_private_dir(&link, uid));
        assert!(!is_private_dir(dir.path(), uid + 1));
    }
}
