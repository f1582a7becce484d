//! The models an RPC client may switch between (`get_available_models`, `set_model`,
//! `cycle_model`), and the provider that follows the switch.
//!
//! The agent holds one provider and one key for its whole life, while Pi's `set_model` may move
//! to a model of another API or provider. So the session is given a [`RoutedProvider`] whose
//! route (provider and key) is replaced together with the agent's model.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rho_ai::{AssistantMessageEventStream, Context, Model, Provider, StreamOptions};
use rho_host::providers::{DEFAULT_IDLE_TIMEOUT, Providers};
use rho_models::{AuthStore, ModelEntry, ModelRegistry};
use rho_stdx::sync::lock;
use serde_json::{Map, Value};

/// Where a model call goes: the provider for the model's API, with the provider's key.
#[derive(Clone)]
pub struct Route {
    /// Speaks the model's API.
    pub provider: Arc<dyn Provider>,
    /// The key, if the provider has one.
    pub api_key: Option<String>,
    /// Request headers from `models.json` and the catalog, merged into the model at call time
    /// so that the model clients see (`get_state`, `set_model`) never carries a secret.
    pub headers: Vec<(String, String)>,
}

/// A provider that forwards each call along the route of the model it is called with, so a run
/// that started before a switch keeps its model's provider and key.
pub struct RoutedProvider {
    /// The route of the first model, used for any model without its own.
    first: Route,
    routes: Mutex<HashMap<(String, String), Route>>,
    /// `retry.provider.maxRetryDelayMs`, given to every call.
    max_retry_delay: Option<std::time::Duration>,
}

impl RoutedProvider {
    /// Starts with `model` on `route`.
    pub fn new(model: &Model, route: Route) -> Self {
        let routes = HashMap::from([(model_key(model), route.clone())]);
        RoutedProvider {
            first: route,
            routes: Mutex::new(routes),
            max_retry_delay: Some(std::time::Duration::from_secs(60)),
        }
    }

    /// Calls fail at once when the server asks to be retried after more than `max` (`None`: no
    /// cap); Pi's default is 60 s.
    pub fn with_max_retry_delay(mut self, max: Option<std::time::Duration>) -> Self {
        self.max_retry_delay = max;
        self
    }

    /// Sends calls of `model` along `route`.
    pub fn add_route(&self, model: &Model, route: Route) {
        lock(&self.routes).insert(model_key(model), route);
    }
}

fn model_key(model: &Model) -> (String, String) {
    (model.provider.clone(), model.id.clone())
}

impl Provider for RoutedProvider {
    fn stream(
        &self,
        model: &Model,
        context: Context,
        mut options: StreamOptions,
    ) -> AssistantMessageEventStream {
        let route = lock(&self.routes)
            .get(&model_key(model))
            .cloned()
            .unwrap_or_else(|| self.first.clone());
        options.api_key = route.api_key;
        options.max_retry_delay = self.max_retry_delay;
        if route.headers.is_empty() {
            return route.provider.stream(model, context, options);
        }
        let mut model = model.clone();
        let mut headers = match model.headers.take() {
            Some(Value::Object(headers)) => headers,
            _ => Map::new(),
        };
        for (name, value) in route.headers {
            headers.insert(name, Value::String(value));
        }
        model.headers = Some(Value::Object(headers));
        route.provider.stream(&model, context, options)
    }
}

/// The models of this process: the faux model of `--faux-script`, or the registry's models that
/// have a key.
pub enum ModelCatalog {
    /// `--faux-script`: one model, one provider.
    Faux {
        /// The faux model.
        entry: ModelEntry,
        /// The scripted provider.
        provider: Arc<dyn Provider>,
    },
    /// The built-in catalog plus `models.json`, with the keys of `auth.json` and the environment.
    Registry {
        /// The models.
        registry: ModelRegistry,
        /// The keys (with `--api-key` as a runtime key).
        auth: AuthStore,
        /// Builds providers on one HTTP client.
        providers: Providers,
    },
}

/// Why a model cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ModelSwitchError {
    /// No available model has this provider and id.
    #[error("Model not found: {provider}/{id}")]
    NotFound {
        /// The requested provider.
        provider: String,
        /// The requested id.
        id: String,
    },
    /// The model's API is not spoken by this build.
    #[error("model {provider}/{id} uses the {api} API, which this version of rho does not speak")]
    UnsupportedApi {
        /// The model's provider.
        provider: String,
        /// The model's id.
        id: String,
        /// The model's API.
        api: String,
    },
    /// The key could not be resolved.
    #[error("cannot resolve the API key of provider {provider}: {reason}")]
    Key {
        /// The model's provider.
        provider: String,
        /// Why.
        reason: String,
    },
}

impl ModelCatalog {
    /// The registry's catalog.
    pub fn registry(registry: ModelRegistry, auth: AuthStore) -> Self {
        ModelCatalog::Registry {
            registry,
            auth,
            providers: Providers::new(DEFAULT_IDLE_TIMEOUT),
        }
    }

    /// The models a client may switch to, in registry order (Pi's `getAvailable`).
    pub fn available(&self) -> Vec<ModelEntry> {
        match self {
            ModelCatalog::Faux { entry, .. } => vec![entry.clone()],
            ModelCatalog::Registry { registry, auth, .. } => {
                registry.available(auth).into_iter().cloned().collect()
            }
        }
    }

    /// The catalog entry of `model` (for thinking levels); a model not in the catalog is taken
    /// as it is, without a thinking-level map.
    pub fn entry_of(&self, model: &Model) -> ModelEntry {
        let found = match self {
            ModelCatalog::Faux { entry, .. } => (entry.model.provider == model.provider
                && entry.model.id == model.id)
                .then(|| entry.clone()),
            ModelCatalog::Registry { registry, .. } => {
                registry.find(&model.provider, &model.id).cloned()
            }
        };
        found.unwrap_or_else(|| ModelEntry::new(model.clone()))
    }

    /// The available model with this provider and id, with its route.
    pub fn resolve(
        &self,
        provider: &str,
        id: &str,
    ) -> Result<(ModelEntry, Route), ModelSwitchError> {
        let entry = self
            .available()
            .into_iter()
            .find(|entry| entry.model.provider == provider && entry.model.id == id)
            .ok_or_else(|| ModelSwitchError::NotFound {
                provider: provider.to_owned(),
                id: id.to_owned(),
            })?;
        let route = self.route(&entry)?;
        Ok((entry, route))
    }

    /// The route of `entry`'s model.
    pub fn route(&self, entry: &ModelEntry) -> Result<Route, ModelSwitchError> {
        match self {
            ModelCatalog::Faux { provider, .. } => Ok(Route {
                provider: provider.clone(),
                api_key: None,
                headers: Vec::new(),
            }),
            ModelCatalog::Registry {
                registry,
                auth,
                providers,
            } => {
                let model = &entry.model;
                let provider = providers.for_api(&model.api).ok_or_else(|| {
                    ModelSwitchError::UnsupportedApi {
                        provider: model.provider.clone(),
                        id: model.id.clone(),
                        api: model.api.clone(),
                    }
                })?;
                let request =
                    registry
                        .request_auth(entry, auth)
                        .map_err(|error| ModelSwitchError::Key {
                            provider: model.provider.clone(),
                            reason: error.to_string(),
                        })?;
                Ok(Route {
                    provider,
                    api_key: request.api_key.map(|key| key.expose().to_owned()),
                    headers: request.headers,
                })
            }
        }
    }
}
/// A model as the protocol shows it: the catalog object, with its `thinkingLevelMap` after
/// `reasoning` when it has one.
pub fn model_json(entry: &ModelEntry) -> Value {
    let Ok(Value::Object(mut model)) = serde_json::to_value(&entry.model) else {
        return Value::Null;
    };
    // JavaScript prints a whole number without a fraction: `0`, not `0.0`.
    if let Some(Value::Object(cost)) = model.get_mut("cost") {
        for value in cost.values_mut() {
            if let Some(number) = value.as_f64() {
                *value = rho_stdx::js::number_value(number);
            }
        }
    }
    let Some(map) = &entry.thinking_level_map else {
        return Value::Object(model);
    };
    let mut out = Map::new();
    for (key, value) in model {
        let after = key == "reasoning";
        out.insert(key, value);
        if after {
            out.insert("thinkingLevelMap".into(), map.to_json());
        }
    }
    Value::Object(out)
}
