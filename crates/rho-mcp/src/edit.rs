//! Changing an `mcp.json` as Pi 1.6 does (`rho mcp add|remove`, `/mcp` enable, disable and
//! exposure): the file is read (a missing one is `{}`), its `mcpServers` changed, and the whole
//! written back with the indentation of its first indented line (two spaces for a new file).
//! Every other key, and the order of keys, is kept. The file is replaced atomically, keeping its
//! permission bits; a new one is private (0600: headers may hold tokens).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use rho_stdx::fs::{Access, write_atomic};
use serde::Serialize;
use serde_json::ser::PrettyFormatter;
use serde_json::{Map, Value};

pub use crate::config::ServerPatch;
use crate::config::is_override;
use crate::exposure::Exposure;

/// Why an `mcp.json` could not be changed.
#[derive(Debug, thiserror::Error)]
pub enum EditError {
    /// Reading or writing the file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        source: std::io::Error,
    },
    /// The file is not JSON.
    #[error("{}: {source}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// Where the JSON broke.
        source: serde_json::Error,
    },
    /// The JSON is not an object with an `mcpServers` object.
    #[error("{}: expected an object with an \"mcpServers\" object", path.display())]
    Shape {
        /// The file.
        path: PathBuf,
    },
    /// The file has no entry of that name to change.
    #[error("{} does not define MCP server \"{name}\"", path.display())]
    NotDefined {
        /// The file.
        path: PathBuf,
        /// The server.
        name: String,
    },
}

/// Adds `config` as server `name` of the file at `path` (creating the file and its directory),
/// replacing an entry of that name; returns whether one was replaced.
pub fn add_server(path: &Path, name: &str, config: Map<String, Value>) -> Result<bool, EditError> {
    let mut replaced = false;
    edit_servers(path, |servers| {
        replaced = servers
            .insert(name.to_owned(), Value::Object(config))
            .is_some();
        true
    })?;
    Ok(replaced)
}

/// Removes server `name` from the file at `path`; returns false (and writes nothing) when the
/// file does not define it.
pub fn remove_server(path: &Path, name: &str) -> Result<bool, EditError> {
    if !path.exists() {
        return Ok(false);
    }
    let mut removed = false;
    edit_servers(path, |servers| {
        removed = servers.shift_remove(name).is_some();
        removed
    })?;
    Ok(removed)
}

/// Applies `patch` to server `name` in the file at `path`. With `create_override`, a missing
/// entry is added as a project override (`{}` plus the patch). A full entry drops values equal
/// to the defaults (`enabled: true`, `exposure: "codemode"`); an override keeps them, since they
/// replace the global server's.
pub fn update_server(
    path: &Path,
    name: &str,
    patch: ServerPatch,
    create_override: bool,
) -> Result<(), EditError> {
    let mut missing = false;
    edit_servers(path, |servers| {
        if !servers.contains_key(name) && create_override {
            servers.insert(name.to_owned(), Value::Object(Map::new()));
        }
        let Some(Value::Object(server)) = servers.get_mut(name) else {
            missing = true;
            return false;
        };
        let keep_defaults = is_override(server);
        if let Some(enabled) = patch.enabled {
            if enabled && !keep_defaults {
                server.shift_remove("enabled");
            } else {
                server.insert("enabled".to_owned(), Value::Bool(enabled));
            }
        }
        if let Some(exposure) = patch.exposure {
            if exposure == Exposure::Codemode && !keep_defaults {
                server.shift_remove("exposure");
            } else {
                server.insert("exposure".to_owned(), exposure.as_str().into());
            }
        }
        true
    })?;
    if missing {
        return Err(EditError::NotDefined {
            path: path.to_path_buf(),
            name: name.to_owned(),
        });
    }
    Ok(())
}

/// Reads the file, lets `edit` change its `mcpServers` (created when absent), and writes it back
/// when `edit` returns true.
fn edit_servers(
    path: &Path,
    edit: impl FnOnce(&mut Map<String, Value>) -> bool,
) -> Result<(), EditError> {
    let io = |source| EditError::Io {
        path: path.to_path_buf(),
        source,
    };
    let (text, mode) = match std::fs::read_to_string(path) {
        Ok(text) => {
            let mode = std::fs::metadata(path).map_err(io)?.permissions().mode() & 0o7777;
            (Some(text), Some(mode))
        }
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => (None, None),
        Err(error) => return Err(io(error)),
    };
    let body = text
        .as_deref()
        .map(|t| t.strip_prefix('\u{feff}').unwrap_or(t));
    let mut parsed: Value = match body {
        Some(body) => serde_json::from_str(body).map_err(|source| EditError::Parse {
            path: path.to_path_buf(),
            source,
        })?,
        None => Value::Object(Map::new()),
    };
    let shape = || EditError::Shape {
        path: path.to_path_buf(),
    };
    let root = parsed.as_object_mut().ok_or_else(shape)?;
    let servers = root
        .entry("mcpServers")
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or_else(shape)?;
    if !edit(servers) {
        return Ok(());
    }
    let indent = body.and_then(first_indent).unwrap_or("  ");
    let mut bytes = Vec::new();
    let mut serializer = serde_json::Serializer::with_formatter(
        &mut bytes,
        PrettyFormatter::with_indent(indent.as_bytes()),
    );
    parsed
        .serialize(&mut serializer)
        .map_err(|source| EditError::Parse {
            path: path.to_path_buf(),
            source,
        })?;
    bytes.push(b'\n');
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let access = mode.map_or(Access::Private, Access::Mode);
    write_atomic(path, &bytes, access).map_err(io)
}

/// The leading spaces and tabs of the first line that starts with some and has text after them.
fn first_indent(text: &str) -> Option<&str> {
    text.lines().find_map(|line| {
        let rest = line.trim_start_matches([' ', '\t']);
        let indent = &line[..line.len() - rest.len()];
        (!indent.is_empty() && !rest.is_empty() && !rest.starts_with(char::is_whitespace))
            .then_some(indent)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_indented_line_gives_the_indentation() {
        assert_eq!(first_indent("{\n\t\"a\": 1\n}"), Some("\t"));
        assert_eq!(first_indent("{\n \"a\": {\n   \"b\": 1 }\n}"), Some(" "));
        assert_eq!(first_indent("{\"a\": 1}"), None);
        assert_eq!(first_indent("{\n   \n    \"a\": 1}"), Some("    "));
    }
}
