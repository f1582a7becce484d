//! The models rho knows: the built-in catalog with `models.json` applied, and what a request to
//! one of them needs (key, headers).

use std::collections::HashMap;
use std::fmt;
use std::net::IpAddr;
use std::path::Path;

use serde_json::Value;

use crate::auth::AuthStore;
use crate::catalog::{ModelEntry, builtin_entries};
use crate::error::{KeyError, ModelsJsonError};
use crate::key::{self, ApiKey, EnvOverrides, is_config_value_configured};
use crate::models_json::{self, CustomConfig, ProviderRequestConfig};
use crate::providers::DEFAULT_MODEL_PER_PROVIDER;

/// Built-in and custom models, and the request configuration `models.json` gave their providers.
#[derive(Clone, Debug)]
pub struct ModelRegistry {
    models: Vec<ModelEntry>,
    request_configs: HashMap<String, ProviderRequestConfig>,
    model_headers: HashMap<(String, String), Vec<(String, String)>>,
}

/// The key and extra headers of one request. `Debug` hides the key and every header value.
#[derive(Clone, PartialEq, Eq)]
pub struct RequestAuth {
    /// The provider's key, if any source has one.
    pub api_key: Option<ApiKey>,
    /// Extra headers in order: the model's built-in headers, then the `models.json` provider's,
    /// then the `models.json` model's (a later value replaces an earlier one of the same name),
    /// then `Authorization` when the provider asks for `authHeader`.
    pub headers: Vec<(String, String)>,
}

impl fmt::Debug for RequestAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let headers: Vec<(&str, &str)> = self
            .headers
            .iter()
            .map(|(name, _)| (name.as_str(), "***"))
            .collect();
        f.debug_struct("RequestAuth")
            .field("api_key", &self.api_key)
            .field("headers", &headers)
            .finish()
    }
}

impl ModelRegistry {
    /// Only the built-in models.
    pub fn builtin() -> Self {
        Self::with_custom(CustomConfig::default())
    }

    /// The built-in models plus `<rho_home>/models.json`. A missing file is no problem; a broken
    /// one leaves only the built-in models and is returned as a problem for the caller to print.
    pub fn load(rho_home: &Path) -> (Self, Vec<ModelsJsonError>) {
        Self::load_file(&rho_home.join(crate::MODELS_FILE))
    }

    /// Like [`ModelRegistry::load`], for a `models.json` at any path.
    pub fn load_file(path: &Path) -> (Self, Vec<ModelsJsonError>) {
        match std::fs::read_to_string(path) {
            Ok(text) => Self::from_models_json(&text, path),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => (Self::builtin(), vec![]),
            Err(source) => {
                let path = path.to_owned();
                (
                    Self::builtin(),
                    vec![ModelsJsonError::Read { path, source }],
                )
            }
        }
    }

    /// The built-in models plus the given `models.json` text; `path` only names it in problems.
    pub fn from_models_json(text: &str, path: &Path) -> (Self, Vec<ModelsJsonError>) {
        match models_json::parse(text, path) {
            Ok(custom) => (Self::with_custom(custom), vec![]),
            Err(problem) => (Self::builtin(), vec![problem]),
        }
    }

    fn with_custom(custom: CustomConfig) -> Self {
        let mut models: Vec<ModelEntry> = builtin_entries()
            .into_iter()
            .map(|mut entry| {
                let provider = entry.model.provider.as_str();
                if let Some((base_url, compat)) = custom.provider_overrides.get(provider) {
                    if let Some(base_url) = base_url {
                        entry.model.base_url = base_url.clone();
                    }
                    let merged =
                        models_json::merge_compat(entry.model.compat.as_ref(), compat.as_ref());
                    entry.model.compat = merged;
                }
                let over = custom
                    .model_overrides
                    .get(&entry.model.provider)
                    .and_then(|overrides| overrides.get(&entry.model.id))
                    .cloned();
                if let Some(over) = over {
                    models_json::apply_model_override(&mut entry, &over);
                }
                entry
            })
            .collect();
        // Custom models replace a model with the same provider and id, else are appended.
        for entry in custom.models {
            let same = |existing: &&mut ModelEntry| {
                existing.model.provider == entry.model.provider
                    && existing.model.id == entry.model.id
            };
            match models.iter_mut().find(same) {
                Some(existing) => *existing = entry,
                None => models.push(entry),
            }
        }
        ModelRegistry {
            models,
            request_configs: custom.request_configs,
            model_headers: custom.model_headers,
        }
    }

    /// Every model, with or without a key, in registry order.
    pub fn all(&self) -> &[ModelEntry] {
        &self.models
    }

    /// The model with exactly this provider and id.
    pub fn find(&self, provider: &str, id: &str) -> Option<&ModelEntry> {
        self.models
            .iter()
            .find(|entry| entry.model.provider == provider && entry.model.id == id)
    }

    /// Whether a key is configured for the model's provider — `--api-key`, `auth.json`, an
    /// environment variable or a `models.json` `apiKey` whose variables are set — without
    /// running any command.
    pub fn has_configured_auth(&self, entry: &ModelEntry, auth: &AuthStore) -> bool {
        let provider = entry.model.provider.as_str();
        auth.has_auth(provider)
            || self
                .request_configs
                .get(provider)
                .and_then(|config| config.api_key.as_deref())
                .is_some_and(|raw| is_config_value_configured(raw, auth.env(), EnvOverrides::NONE))
    }

    /// Whether the model can be used: its provider has a key, or it is served from this machine
    /// (a loopback base URL — local servers need no key; a rho addition to Pi's rule).
    pub fn is_available(&self, entry: &ModelEntry, auth: &AuthStore) -> bool {
        self.has_configured_auth(entry, auth) || is_loopback_url(&entry.model.base_url)
    }

    /// The available models, in registry order.
    pub fn available(&self, auth: &AuthStore) -> Vec<&ModelEntry> {
        self.models
            .iter()
            .filter(|entry| self.is_available(entry, auth))
            .collect()
    }

    /// The provider's key: the [`AuthStore`]'s sources first, then the `models.json` `apiKey`
    /// (resolved now: `!command`, or text with `$NAME` references).
    pub fn api_key(&self, provider: &str, auth: &AuthStore) -> Result<Option<ApiKey>, KeyError> {
        if let Some(key) = auth.api_key(provider)? {
            return Ok(Some(key));
        }
        match self
            .request_configs
            .get(provider)
            .and_then(|c| c.api_key.as_deref())
        {
            Some(raw) => {
                let description = format!("API key for provider \"{provider}\"");
                resolve_or_fail(raw, &description, auth).map(Some)
            }
            None => Ok(None),
        }
    }

    /// Key and headers for one request to `entry` (Pi's `getApiKeyAndHeaders`).
    pub fn request_auth(
        &self,
        entry: &ModelEntry,
        auth: &AuthStore,
    ) -> Result<RequestAuth, KeyError> {
        let provider = entry.model.provider.as_str();
        let config = self.request_configs.get(provider);
        let api_key = self.api_key(provider, auth)?;
        let mut headers: Vec<(String, String)> = Vec::new();
        if let Some(Value::Object(builtin)) = &entry.model.headers {
            for (name, value) in builtin {
                if let Some(value) = value.as_str() {
                    set_header(&mut headers, name, value.to_owned());
                }
            }
        }
        for (name, raw) in config.map(|c| c.headers.as_slice()).unwrap_or_default() {
            let description = format!("provider \"{provider}\" header \"{name}\"");
            let value = resolve_or_fail(raw, &description, auth)?;
            set_header(&mut headers, name, value.expose().to_owned());
        }
        let key = (provider.to_owned(), entry.model.id.clone());
        for (name, raw) in self
            .model_headers
            .get(&key)
            .map(Vec::as_slice)
            .unwrap_or_default()
        {
            let id = &entry.model.id;
            let description = format!("model \"{provider}/{id}\" header \"{name}\"");
            let value = resolve_or_fail(raw, &description, auth)?;
            set_header(&mut headers, name, value.expose().to_owned());
        }
        if config.is_some_and(|c| c.auth_header) {
            let Some(key) = &api_key else {
                return Err(KeyError::NoApiKey {
                    provider: provider.to_owned(),
                });
            };
            set_header(
                &mut headers,
                "Authorization",
                format!("Bearer {}", key.expose()),
            );
        }
        Ok(RequestAuth { api_key, headers })
    }

    /// The model to start with when `--model` is absent: the settings' `defaultProvider` /
    /// `defaultModel` if that model exists (as in Pi, even without a key — the request then
    /// fails with a clear message instead of silently switching provider), else the first
    /// available model among the per-provider defaults, else the first available model.
    pub fn default_model(
        &self,
        auth: &AuthStore,
        default_provider: Option<&str>,
        default_model: Option<&str>,
    ) -> Option<&ModelEntry> {
        if let (Some(provider), Some(id)) = (default_provider, default_model)
            && let Some(found) = self.find(provider, id)
        {
            return Some(found);
        }
        let available = self.available(auth);
        DEFAULT_MODEL_PER_PROVIDER
            .iter()
            .find_map(|(provider, id)| {
                available
                    .iter()
                    .find(|entry| entry.model.provider == *provider && entry.model.id == *id)
            })
            .or_else(|| available.first())
            .copied()
    }
}

/// Pi's `resolveConfigValueOrThrow`: a failing `!command` or an unset variable is an error.
fn resolve_or_fail(raw: &str, description: &str, auth: &AuthStore) -> Result<ApiKey, KeyError> {
    key::resolve_or_fail(raw, description, auth.env(), EnvOverrides::NONE)
}

/// Sets a header, replacing the value of an earlier one with the same name in its place.
fn set_header(headers: &mut Vec<(String, String)>, name: &str, value: String) {
    match headers.iter_mut().find(|(existing, _)| existing == name) {
        Some(header) => header.1 = value,
        None => headers.push((name.to_owned(), value)),
    }
}

/// Whether the URL's host is this machine: `localhost` (or a `*.localhost` name), `127.0.0.0/8`
/// or `::1`.
pub(crate) fn is_loopback_url(url: &str) -> bool {
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = after_scheme
        .split(['/', '?', '#'])
        .next()
        .unwrap_or_default();
    let host_port = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let host = match host_port.strip_prefix('[') {
        Some(bracketed) => bracketed.split(']').next().unwrap_or_default(),
        None => host_port.split(':').next().unwrap_or_default(),
    };
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    host == "localhost"
        || host.ends_with(".localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}
