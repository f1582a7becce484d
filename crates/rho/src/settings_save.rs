//! Keeping a setting the user changed in the interactive mode (`/settings`) in the global
//! `RHO_HOME/settings.json`, as Pi's settings manager does: read the file, change one key of
//! the JSON object (one key of a nested object for `compaction.enabled`), write it back with
//! Pi's two-space layout; every other key stays as it was, in its place. A file that is not a
//! JSON object is never overwritten: the user's hand-written settings come first.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use rho_stdx::fs::{Access, write_atomic};
use serde_json::{Map, Value};

/// Why a setting was not saved.
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    /// The file exists but could not be read.
    #[error("Cannot read {}: {source}", path.display())]
    Read {
        /// The settings file.
        path: PathBuf,
        /// The failure.
        source: std::io::Error,
    },
    /// The file is not valid JSON; it was left untouched.
    #[error("{} is not valid JSON, setting not saved: {source}", path.display())]
    Parse {
        /// The settings file.
        path: PathBuf,
        /// The parser's complaint.
        source: serde_json::Error,
    },
    /// The file is valid JSON but not an object; it was left untouched.
    #[error("{} does not hold a JSON object, setting not saved", path.display())]
    NotAnObject {
        /// The settings file.
        path: PathBuf,
    },
    /// The file could not be written.
    #[error("Cannot write {}: {source}", path.display())]
    Write {
        /// The settings file.
        path: PathBuf,
        /// The failure.
        source: std::io::Error,
    },
}

/// Sets each key (a top-level key, or `[outer, inner]` inside a nested object) to its value in
/// the settings file at `path`, in one read and one write (a model is its provider and its
/// id), creating the file (and its directory) when there is none.
pub fn save_settings(path: &Path, changes: &[(&[&str], Value)]) -> Result<(), SaveError> {
    let mut settings = read_object(path)?;
    for (key, value) in changes {
        set_at(&mut settings, key, value.clone());
    }
    let written = serde_json::to_string_pretty(&Value::Object(settings))
        .map_err(std::io::Error::other)
        .and_then(|text| write_whole(path, &text));
    written.map_err(|source| SaveError::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// The file's object; an absent or blank file is an empty one.
fn read_object(path: &Path) -> Result<Map<String, Value>, SaveError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Map::new()),
        Err(source) => {
            return Err(SaveError::Read {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str(&text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(SaveError::NotAnObject {
            path: path.to_path_buf(),
        }),
        Err(source) => Err(SaveError::Parse {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Sets the value under `key`; a nested key's parent that is not an object becomes one, as
/// Pi's `setCompactionEnabled` starts from `{}` then.
fn set_at(settings: &mut Map<String, Value>, key: &[&str], value: Value) {
    match key {
        [] => {}
        [last] => {
            settings.insert((*last).to_owned(), value);
        }
        [first, rest @ ..] => {
            let child = settings
                .entry((*first).to_owned())
                .or_insert_with(|| Value::Object(Map::new()));
            if !child.is_object() {
                *child = Value::Object(Map::new());
            }
            if let Value::Object(map) = child {
                set_at(map, rest, value);
            }
        }
    }
}

/// Replaces the file whole (`rho_stdx::fs::write_atomic`), so a crash or a full disk never
/// leaves half a settings file. A symlinked settings file (dotfile managers) stays a link: its
/// target is what gets replaced, keeping the target's permissions.
fn write_whole(path: &Path, text: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let existing = std::fs::canonicalize(path).ok();
    let access = existing
        .as_deref()
        .and_then(|real| std::fs::metadata(real).ok())
        .map_or(Access::Shared, |m| Access::Mode(m.permissions().mode()));
    write_atomic(existing.as_deref().unwrap_or(path), text.as_bytes(), access)
}

#[cfg(test)]
#[path = "settings_save_tests.rs"]
mod tests;
