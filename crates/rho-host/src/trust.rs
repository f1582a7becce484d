//! Project trust (Pi 1.6's `dist/core/trust-manager.js`, security.md): a project's own
//! configuration — everything under `.rho/` and any `.agents/skills` up the tree — applies only
//! once the project is trusted, by `--approve`, by the trust store `RHO_HOME/trust.json`, or by
//! `defaultProjectTrust` in `RHO_HOME/settings.json`. Nothing inside a project can mark it
//! trusted: the store and the default are read from `RHO_HOME` only.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rho_stdx::fs::{Access, write_atomic};
use serde_json::Value;

use crate::settings::PROJECT_DIR;

/// File name of the trust store in `RHO_HOME`.
pub const TRUST_FILE: &str = "trust.json";

/// The project resources that need trust, relative to the project's `.rho/` (Pi's list, plus
/// rho's `rules.toml` and `hooks`).
pub const TRUST_REQUIRING_RESOURCES: [&str; 10] = [
    "settings.json",
    "rules.toml",
    "mcp.json",
    "hooks",
    "extensions",
    "skills",
    "prompts",
    "themes",
    "SYSTEM.md",
    "APPEND_SYSTEM.md",
];

/// Why the trust store could not be used, in Pi's words.
#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    /// The file exists but is unreadable or not JSON.
    #[error("Failed to read trust store {path}: {message}")]
    Read {
        /// The store.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The top level is not an object.
    #[error("Invalid trust store {path}: expected an object")]
    NotAnObject {
        /// The store.
        path: PathBuf,
    },
    /// A value is not `true`, `false` or `null`.
    #[error("Invalid trust store {path}: value for {key:?} must be true, false, or null")]
    BadValue {
        /// The store.
        path: PathBuf,
        /// The directory the value is for.
        key: String,
    },
    /// The store could not be written.
    #[error("Failed to write trust store {path}: {source}")]
    Write {
        /// The store.
        path: PathBuf,
        /// The I/O failure.
        source: std::io::Error,
    },
}

/// `defaultProjectTrust`: what to do with a project the store has no decision for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DefaultProjectTrust {
    /// Ask in the interactive mode; skip the project's configuration in the others (Pi's default).
    #[default]
    Ask,
    /// Trust every project.
    Always,
    /// Trust no project.
    Never,
}

/// `RHO_HOME/trust.json`: `{"<canonical directory>": true | false | null}`; a decision for a
/// directory covers the directories below it, the nearest one deciding.
#[derive(Clone, Debug)]
pub struct TrustStore {
    path: PathBuf,
}

impl TrustStore {
    /// The store in `rho_home`.
    pub fn new(rho_home: &Path) -> Self {
        TrustStore {
            path: rho_home.join(TRUST_FILE),
        }
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn read(&self) -> Result<BTreeMap<String, Value>, TrustError> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Ok(BTreeMap::new());
            }
            Err(error) => {
                return Err(TrustError::Read {
                    path: self.path.clone(),
                    message: error.to_string(),
                });
            }
        };
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let value: Value = serde_json::from_str(text).map_err(|error| TrustError::Read {
            path: self.path.clone(),
            message: error.to_string(),
        })?;
        let Value::Object(object) = value else {
            return Err(TrustError::NotAnObject {
                path: self.path.clone(),
            });
        };
        let mut data = BTreeMap::new();
        for (key, value) in object {
            if !matches!(value, Value::Bool(_) | Value::Null) {
                return Err(TrustError::BadValue {
                    path: self.path.clone(),
                    key,
                });
            }
            data.insert(key, value);
        }
        Ok(data)
    }

    /// The decision of the nearest directory at or above `cwd` that has one.
    pub fn get(&self, cwd: &Path) -> Result<Option<bool>, TrustError> {
        let data = self.read()?;
        let cwd = canonical(cwd);
        Ok(cwd.ancestors().find_map(|dir| {
            data.get(dir.to_string_lossy().as_ref())
                .and_then(Value::as_bool)
        }))
    }

    /// Records decisions (`None` clears a directory's own), written as Pi writes the file:
    /// keys sorted, two-space indented, a final newline.
    pub fn set_many(&self, decisions: &[(PathBuf, Option<bool>)]) -> Result<(), TrustError> {
        let mut data = self.read()?;
        for (dir, decision) in decisions {
            let key = canonical(dir).to_string_lossy().into_owned();
            data.insert(key, decision.map_or(Value::Null, Value::Bool));
        }
        let object: serde_json::Map<String, Value> = data.into_iter().collect();
        let write = |text: String| -> std::io::Result<()> {
            if let Some(parent) = self.path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            write_atomic(&self.path, text.as_bytes(), Access::Shared)
        };
        let text = serde_json::to_string_pretty(&Value::Object(object)).unwrap_or_default();
        write(format!("{text}\n")).map_err(|source| TrustError::Write {
            path: self.path.clone(),
            source,
        })
    }
}

/// `path` made absolute and canonical where it exists (Pi's `canonicalizePath(resolvePath())`).
fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The trust-requiring resources present in the project at `cwd`, as displayed paths
/// (`.rho/settings.json`, `.agents/skills`): `.rho/<resource>` in `cwd`, and `.agents/skills`
/// in `cwd` or an ancestor, except the user's own `~/.agents/skills`.
pub fn trust_requiring_resources(cwd: &Path, home: Option<&Path>) -> Vec<String> {
    let cwd = canonical(cwd);
    let mut found: Vec<String> = TRUST_REQUIRING_RESOURCES
        .iter()
        .filter(|name| cwd.join(PROJECT_DIR).join(name).exists())
        .map(|name| format!("{PROJECT_DIR}/{name}"))
        .collect();
    let user_skills = home.map(|home| canonical(home).join(".agents").join("skills"));
    for dir in cwd.ancestors() {
        let skills = dir.join(".agents").join("skills");
        if Some(&skills) != user_skills.as_ref() && skills.exists() {
            found.push(if dir == cwd {
                ".agents/skills".to_owned()
            } else {
                skills.display().to_string()
            });
        }
    }
    found
}

/// The outcome of [`resolve_project_trust`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrustDecision {
    /// The project's configuration applies.
    Trusted,
    /// It does not.
    Untrusted,
    /// Nothing decided: the interactive mode asks; the other modes skip the configuration.
    Ask,
}

/// What decides a project's trust.
#[derive(Clone, Copy, Debug)]
pub struct TrustInputs<'a> {
    /// `--approve` (`Some(true)`) / `--no-approve` (`Some(false)`).
    pub flag: Option<bool>,
    /// The store in `RHO_HOME`, if a home is known.
    pub store: Option<&'a TrustStore>,
    /// `defaultProjectTrust` from `RHO_HOME/settings.json`.
    pub default: DefaultProjectTrust,
    /// Whether the project has trust-requiring resources.
    pub has_resources: bool,
}

/// Pi's `resolveProjectTrusted`: the flag; a project without trust-requiring resources is
/// trusted unless the store says otherwise; the store's nearest decision; the default.
pub fn resolve_project_trust(
    inputs: &TrustInputs<'_>,
    cwd: &Path,
) -> Result<TrustDecision, TrustError> {
    let decision = |trusted: bool| {
        if trusted {
            TrustDecision::Trusted
        } else {
            TrustDecision::Untrusted
        }
    };
    if let Some(flag) = inputs.flag {
        return Ok(decision(flag));
    }
    let stored = match inputs.store {
        Some(store) => store.get(cwd)?,
        None => None,
    };
    if !inputs.has_resources {
        return Ok(decision(stored.unwrap_or(true)));
    }
    if let Some(stored) = stored {
        return Ok(decision(stored));
    }
    Ok(match inputs.default {
        DefaultProjectTrust::Always => TrustDecision::Trusted,
        DefaultProjectTrust::Never => TrustDecision::Untrusted,
        DefaultProjectTrust::Ask => TrustDecision::Ask,
    })
}

/// One answer of the interactive trust question (Pi's `getProjectTrustOptions`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrustOption {
    /// What the user sees.
    pub label: String,
    /// Whether the project is trusted for this run.
    pub trusted: bool,
    /// What to record in the store (`None` clears a directory's own decision); empty for the
    /// "this session only" answers.
    pub updates: Vec<(PathBuf, Option<bool>)>,
}

/// Pi's answers, in Pi's order: Trust, Trust parent folder (`<parent>`), Trust (this session
/// only), Do not trust, Do not trust (this session only).
pub fn trust_options(cwd: &Path) -> Vec<TrustOption> {
    let cwd = canonical(cwd);
    let option = |label: String, trusted: bool, updates| TrustOption {
        label,
        trusted,
        updates,
    };
    let mut options = vec![option(
        "Trust".to_owned(),
        true,
        vec![(cwd.clone(), Some(true))],
    )];
    if let Some(parent) = cwd.parent() {
        options.push(option(
            format!("Trust parent folder ({})", parent.display()),
            true,
            vec![(parent.to_path_buf(), Some(true)), (cwd.clone(), None)],
        ));
    }
    options.push(option("Trust (this session only)".to_owned(), true, vec![]));
    options.push(option(
        "Do not trust".to_owned(),
        false,
        vec![(cwd.clone(), Some(false))],
    ));
    options.push(option(
        "Do not trust (this session only)".to_owned(),
        false,
        vec![],
    ));
    options
}

#[cfg(test)]
#[path = "trust_tests.rs"]
mod tests;
