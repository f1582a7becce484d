//! Files written whole.

use std::fs::{File, OpenOptions, Permissions};
use std::io::{self, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Who may read a file [`write_atomic`] writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// The owner only (mode 0600): keys and tokens.
    Private,
    /// As the umask allows (0666 & !umask): settings, session files.
    Shared,
    /// Exactly these permission bits, whatever the umask: those of the file being replaced,
    /// so a user's `chmod` survives the rewrite.
    Mode(u32),
}

/// Replaces `path` with `contents` so that a crash or power loss leaves either the old file or
/// the new one, never a mix: the bytes go to a sibling temporary file, which is synced, renamed
/// over `path`, and the directory synced so the rename itself survives. The directory must exist.
pub fn write_atomic(path: &Path, contents: &[u8], access: Access) -> io::Result<()> {
    let temporary = sibling(path, ".tmp");
    let written =
        write_synced(&temporary, contents, access).and_then(|()| std::fs::rename(&temporary, path));
    if let Err(error) = written {
        let _ = std::fs::remove_file(&temporary);
        return Err(error);
    }
    sync_parent(path)
}

/// Syncs the directory holding `path`, so a file created or renamed there survives a power loss.
pub fn sync_parent(path: &Path) -> io::Result<()> {
    match path.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(dir) => File::open(dir)?.sync_all(),
        None => File::open(".")?.sync_all(),
    }
}

fn write_synced(path: &Path, contents: &[u8], access: Access) -> io::Result<()> {
    let mut options = OpenOptions::new();
    options.write(true).create(true).truncate(true);
    if access == Access::Private {
        options.mode(0o600);
    }
    let mut file = options.open(path)?;
    if let Access::Mode(mode) = access {
        file.set_permissions(Permissions::from_mode(mode))?;
    }
    file.write_all(contents)?;
    file.sync_all()
}

/// `path` with `suffix` and the process id appended to its file name, so two processes
/// replacing the same file never share a temporary.
fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_owned();
    name.push(format!("{suffix}.{}", std::process::id()));
    path.with_file_name(name)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn replaces_the_contents_and_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, "old").unwrap();
        write_atomic(&path, b"new", Access::Shared).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn private_files_are_owner_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("auth.json");
        write_atomic(&path, b"{}", Access::Private).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    #[test]
    fn a_mode_given_is_the_mode_written_whatever_the_umask() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        write_atomic(&path, b"{}", Access::Mode(0o640)).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o640);
    }

    #[test]
    fn a_missing_directory_is_an_error_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gone").join("x.json");
        assert!(write_atomic(&path, b"x", Access::Shared).is_err());
        assert!(!dir.path().join("gone").exists());
    }
}
