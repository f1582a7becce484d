//! What the `/resume` picker does to session files other than the open one: deleting a file
//! (Pi's Ctrl+D: the `trash` command when there is one, else removed for good) and naming a
//! session (Pi's Ctrl+R: a `session_info` entry appended). Both take the file's lock first, so a
//! file another rho process has open is left alone and the user is told why.

use std::path::Path;
use std::process::{Command, Stdio};

use rho_session::SessionFile;
use rho_tui::sessions::Deleted;

/// Deletes the session file `path`: moved to the trash by a `trash` command if one runs and
/// succeeds (as Pi does), else removed. The file is locked meanwhile; `Err` is a message for the
/// user (another rho process has it open, or removing it failed).
pub fn delete_session_file(path: &Path) -> Result<Deleted, String> {
    // Held until the file is gone: no other rho process opens it halfway.
    let (_locked, _warnings) = SessionFile::open(path).map_err(|e| e.to_string())?;
    if trash(path) {
        return Ok(Deleted::Trashed);
    }
    match std::fs::remove_file(path) {
        Ok(()) => Ok(Deleted::Removed),
        Err(e) => Err(e.to_string()),
    }
}

/// Whether the `trash` command moved `path` away (a missing command is a no).
fn trash(path: &Path) -> bool {
    let mut command = Command::new("trash");
    if path.to_string_lossy().starts_with('-') {
        command.arg("--");
    }
    let ran = command
        .arg(path)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    match ran {
        Ok(status) => status.success() || !path.exists(),
        Err(_) => false,
    }
}

/// Names the session in `path` (not the open one): its file is opened (and locked), a
/// `session_info` entry appended and synced, and the file closed.
pub fn rename_session_file(path: &Path, name: &str) -> Result<(), String> {
    let (mut file, _warnings) = SessionFile::open(path).map_err(|e| e.to_string())?;
    file.append_session_info(name).map_err(|e| e.to_string())?;
    file.sync().map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn session(dir: &Path) -> std::path::PathBuf {
        let file = SessionFile::create(dir, "/src", None).unwrap();
        file.path().unwrap().to_path_buf()
    }

    #[test]
    fn a_renamed_file_gets_a_session_info_entry_with_the_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = session(dir.path());
        rename_session_file(&path, "  Poetry ").unwrap();
        let info = rho_session::session_info(&path).unwrap();
        assert_eq!(info.name.as_deref(), Some("Poetry"));
    }

    #[test]
    fn a_file_open_elsewhere_is_neither_renamed_nor_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let path = session(dir.path());
        let (_open, _) = SessionFile::open(&path).unwrap();
        let renamed = rename_session_file(&path, "x").unwrap_err();
        assert!(
            renamed.contains("in use by another rho process"),
            "{renamed}"
        );
        let deleted = delete_session_file(&path).unwrap_err();
        assert!(
            deleted.contains("in use by another rho process"),
            "{deleted}"
        );
        assert!(path.exists());
    }

    #[test]
    fn a_deleted_file_is_gone() {
        let dir = tempfile::tempdir().unwrap();
        let path = session(dir.path());
        delete_session_file(&path).unwrap();
        assert!(!path.exists());
    }
}
