//! `settings.json` (pi-reference §8.8, contract §4): the global file in `RHO_HOME`, overridden by
//! the project's `.rho/settings.json` (when the project is trusted) with Pi 1.6's deep merge.
//!
//! Pi's key names are kept; keys rho does not know are ignored (a Pi settings file is valid
//! here). rho adds `budget`, `permission`, `allowDirs` and `streamIdleTimeoutMs`. Unlike Pi,
//! which warns and treats a broken file as `{}`, a broken file is an error: a run with half its
//! configuration is worse than no run (contract §3, "bad config" exits 2).

mod merge;
mod model;
mod pi_keys;

use std::path::{Path, PathBuf};

pub use merge::merge_settings;
pub use model::{
    BudgetSettings, CompactionSettings, HttpIdleTimeout, Permission, ProviderRetrySettings,
    RetrySettings, Settings,
};

/// File name of the settings, in `RHO_HOME` and in a project's `.rho/`.
pub const SETTINGS_FILE: &str = "settings.json";

/// A project's settings directory, relative to its root (Pi's is `.pi`).
pub const PROJECT_DIR: &str = ".rho";

/// Why a settings file could not be used; each names the file.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// The file exists but could not be read.
    #[error("cannot read settings file {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O failure.
        source: std::io::Error,
    },
    /// The file is not a JSON object.
    #[error("settings file {path} is not valid JSON: {message}")]
    Syntax {
        /// The file.
        path: PathBuf,
        /// The parser's description, with line and column.
        message: String,
    },
    /// A known key holds a value of the wrong type or an unknown value.
    #[error("settings file {path}: {key}: {message}")]
    Value {
        /// The file.
        path: PathBuf,
        /// The offending key as a dotted path (`retry.maxRetries`).
        key: String,
        /// What is wrong with it.
        message: String,
    },
}

/// Where the two settings files of a run live.
#[derive(Clone, Debug)]
pub struct SettingsPaths {
    /// `<RHO_HOME>/settings.json`, if a home is known.
    pub global: Option<PathBuf>,
    /// `<cwd>/.rho/settings.json`.
    pub project: PathBuf,
    /// Whether the project is trusted; an untrusted project's file is not read.
    pub project_trusted: bool,
}

impl SettingsPaths {
    /// The usual places for a run in `cwd` with the given `RHO_HOME`, the project trusted.
    pub fn new(rho_home: Option<&Path>, cwd: &Path) -> Self {
        SettingsPaths {
            global: rho_home.map(|home| home.join(SETTINGS_FILE)),
            project: cwd.join(PROJECT_DIR).join(SETTINGS_FILE),
            project_trusted: true,
        }
    }

    /// The same places, the project's file read only when `trusted`.
    pub fn with_project_trust(mut self, trusted: bool) -> Self {
        self.project_trusted = trusted;
        self
    }
}

/// The global file alone (what decides trust: `defaultProjectTrust` is read only there).
pub fn load_global_settings(paths: &SettingsPaths) -> Result<Settings, SettingsError> {
    match &paths.global {
        Some(path) => parse(serde_json::Value::Object(read_object(path)?), path),
        None => Ok(Settings::default()),
    }
}

/// Loads and merges the global and the (trusted) project file; a missing file counts as `{}`.
///
/// A project never widens what the user allowed: its `permission` applies only when it is
/// stricter than the global one, its `allowDirs`, `toolEnvironment` and `defaultProjectTrust` are
/// ignored.
pub fn load_settings(paths: &SettingsPaths) -> Result<Settings, SettingsError> {
    let global_object = match &paths.global {
        Some(path) => read_object(path)?,
        None => serde_json::Map::new(),
    };
    let mut unsupported = pi_keys::unsupported_pi_keys(&global_object);
    if !paths.project_trusted {
        let path = paths.global.as_deref().unwrap_or(&paths.project);
        let mut settings = parse(serde_json::Value::Object(global_object), path)?;
        settings.unsupported_pi_keys = unsupported;
        return Ok(settings);
    }
    let global = match &paths.global {
        Some(path) => parse(serde_json::Value::Object(global_object.clone()), path)?,
        None => Settings::default(),
    };
    let mut project = read_object(&paths.project)?;
    for key in pi_keys::unsupported_pi_keys(&project) {
        if !unsupported.contains(&key) {
            unsupported.push(key);
        }
    }
    project.remove("allowDirs");
    project.remove("toolEnvironment");
    project.remove("defaultProjectTrust");
    let merged = merge_settings(global_object, project);
    // Each file was validated on its own, so the merge of two valid objects is valid; should it
    // not be, the project file (the later word) is named.
    let mut settings = parse(serde_json::Value::Object(merged), &paths.project)?;
    let allowed = global.permission.unwrap_or_default();
    if settings
        .permission
        .is_some_and(|asked| permission_rank(asked) > permission_rank(allowed))
    {
        settings.permission = global.permission;
    }
    settings.unsupported_pi_keys = unsupported;
    Ok(settings)
}

/// How much a permission mode allows, for "stricter than".
fn permission_rank(permission: Permission) -> u8 {
    match permission {
        Permission::ReadOnly => 0,
        Permission::WorkspaceWrite => 1,
        Permission::Full => 2,
    }
}

/// Reads one file as a validated JSON object (after Pi's key migrations).
fn read_object(path: &Path) -> Result<serde_json::Map<String, serde_json::Value>, SettingsError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Ok(serde_json::Map::new());
        }
        Err(source) => {
            return Err(SettingsError::Read {
                path: path.to_owned(),
                source,
            });
        }
    };
    parse_settings_text(&text, path)
}

/// Reads the text of one settings file as a validated JSON object, after Pi's key migrations:
/// blank text is `{}`; `path` names the file in errors.
pub fn parse_settings_text(
    text: &str,
    path: &Path,
) -> Result<serde_json::Map<String, serde_json::Value>, SettingsError> {
    if text.trim().is_empty() {
        return Ok(serde_json::Map::new());
    }
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|error| SettingsError::Syntax {
            path: path.to_owned(),
            message: error.to_string(),
        })?;
    let serde_json::Value::Object(mut object) = value else {
        return Err(SettingsError::Syntax {
            path: path.to_owned(),
            message: "the top level must be an object".to_owned(),
        });
    };
    merge::migrate(&mut object);
    parse(serde_json::Value::Object(object.clone()), path)?;
    Ok(object)
}

fn parse(value: serde_json::Value, path: &Path) -> Result<Settings, SettingsError> {
    serde_path_to_error::deserialize(value).map_err(|error| SettingsError::Value {
        path: path.to_owned(),
        key: error.path().to_string(),
        message: error.inner().to_string(),
    })
}

#[cfg(test)]
mod tests;
