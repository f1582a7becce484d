//! Where a provider's key comes from: `--api-key`, `auth.json`, the environment.
//!
//! The last source of Pi's chain, the `apiKey` of a `models.json` provider, belongs to the
//! [`ModelRegistry`](crate::ModelRegistry), which consults this store first.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use serde_json::{Map, Value};

use crate::env::Environment;
use crate::error::{AuthFileError, KeyError};
use crate::key::{ApiKey, EnvOverrides, is_config_value_configured, resolve_or_fail};
use crate::providers::api_key_env_vars;

/// Keys per provider, in Pi's precedence: runtime override (`--api-key`) > `auth.json` >
/// the provider's environment variable.
///
/// `auth.json` is Pi's format: `{"<provider>": {"type": "api_key", "key": "...", "env": {…}}}`,
/// where `key` is resolved like every configured value (`!command`, or text with `$NAME`
/// references, looked up in the entry's `env` object first, then the environment). OAuth entries
/// (`{"type": "oauth", "access": ..., "expires": <ms>}`) are used as their access token while
/// unexpired; rho cannot refresh them, so an expired or malformed OAuth entry counts as absent
/// and the lookup falls through to the environment. Entries of other types are ignored.
pub struct AuthStore {
    stored: Map<String, Value>,
    runtime: HashMap<String, ApiKey>,
    env: Arc<dyn Environment>,
}

impl std::fmt::Debug for AuthStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Only names: the stored entries hold keys.
        let mut runtime: Vec<&String> = self.runtime.keys().collect();
        runtime.sort();
        f.debug_struct("AuthStore")
            .field("stored_providers", &self.stored.keys().collect::<Vec<_>>())
            .field("runtime_providers", &runtime)
            .finish_non_exhaustive()
    }
}

impl AuthStore {
    /// Reads `<rho_home>/auth.json`. A missing file is no credentials and no problem; an unreadable
    /// or malformed one is no credentials plus the problem, for the caller to print as a warning.
    pub fn load(rho_home: &Path, env: Arc<dyn Environment>) -> (Self, Option<AuthFileError>) {
        let path = rho_home.join(crate::AUTH_FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return (Self::empty(env), None);
            }
            Err(source) => return (Self::empty(env), Some(AuthFileError::Read { path, source })),
        };
        // Pi reads an empty file as `{}`.
        if text.trim().is_empty() {
            return (Self::empty(env), None);
        }
        match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(stored)) => (Self::from_entries(stored, env), None),
            Ok(_) => {
                let message = "expected a JSON object".to_owned();
                (
                    Self::empty(env),
                    Some(AuthFileError::Parse { path, message }),
                )
            }
            Err(error) => {
                let message = error.to_string();
                (
                    Self::empty(env),
                    Some(AuthFileError::Parse { path, message }),
                )
            }
        }
    }

    /// A store with no `auth.json` entries.
    pub fn empty(env: Arc<dyn Environment>) -> Self {
        Self::from_entries(Map::new(), env)
    }

    /// A store over already-parsed `auth.json` entries.
    pub fn from_entries(stored: Map<String, Value>, env: Arc<dyn Environment>) -> Self {
        AuthStore {
            stored,
            runtime: HashMap::new(),
            env,
        }
    }

    /// Sets the `--api-key` override for a provider (never written to disk).
    pub fn set_runtime_api_key(&mut self, provider: impl Into<String>, key: ApiKey) {
        self.runtime.insert(provider.into(), key);
    }

    /// The environment this store reads variables and time from.
    pub fn env(&self) -> &dyn Environment {
        self.env.as_ref()
    }

    /// Whether any of this store's sources has a key for the provider, without running commands
    /// (a stored key naming an unset variable has none).
    pub fn has_auth(&self, provider: &str) -> bool {
        let stored = match self.stored_credential(provider) {
            Some(Stored::ApiKey(raw, overrides)) => {
                is_config_value_configured(raw, self.env(), overrides)
            }
            Some(Stored::OAuth(_)) => true,
            None => false,
        };
        self.runtime.contains_key(provider) || stored || self.env_key(provider).is_some()
    }

    /// The provider's key from the first source that has one; `Ok(None)` when none has.
    ///
    /// A stored `api_key` whose `!command` fails or whose variables are unset is an error rather
    /// than a fall-through, so a broken credential is reported instead of silently replaced.
    pub fn api_key(&self, provider: &str) -> Result<Option<ApiKey>, KeyError> {
        if let Some(key) = self.runtime.get(provider) {
            return Ok(Some(key.clone()));
        }
        match self.stored_credential(provider) {
            Some(Stored::ApiKey(raw, overrides)) => {
                let description = format!("API key for provider \"{provider}\"");
                return resolve_or_fail(raw, &description, self.env(), overrides).map(Some);
            }
            Some(Stored::OAuth(access)) => return Ok(Some(ApiKey::new(access))),
            None => {}
        }
        Ok(self.env_key(provider))
    }

    /// The usable `auth.json` credential of a provider.
    fn stored_credential(&self, provider: &str) -> Option<Stored<'_>> {
        let entry = self.stored.get(provider)?.as_object()?;
        match entry.get("type").and_then(Value::as_str)? {
            "api_key" => entry
                .get("key")
                .and_then(Value::as_str)
                .filter(|key| !key.is_empty())
                .map(|key| {
                    let env = entry.get("env").and_then(Value::as_object);
                    Stored::ApiKey(key, EnvOverrides::from_object(env))
                }),
            "oauth" => {
                let access = entry.get("access").and_then(Value::as_str)?;
                let expires = entry.get("expires").and_then(Value::as_f64)?;
                let unexpired = (self.env.now_ms() as f64) < expires;
                (unexpired && !access.is_empty()).then_some(Stored::OAuth(access))
            }
            _ => None,
        }
    }

    /// The first non-empty key variable of the provider.
    fn env_key(&self, provider: &str) -> Option<ApiKey> {
        api_key_env_vars(provider)
            .iter()
            .find_map(|name| self.env.non_empty_var(name))
            .map(ApiKey::new)
    }
}

/// A usable stored credential.
enum Stored<'a> {
    /// The configured value of an `api_key` entry, not yet resolved, with the entry's `env`.
    ApiKey(&'a str, EnvOverrides<'a>),
    /// The access token of an unexpired OAuth entry.
    OAuth(&'a str),
}
