//! Reading `RHO_HOME/models.json` (Pi's format, pi-reference §8.9) into what the registry applies.

use std::collections::HashMap;
use std::path::Path;

use rho_ai::{Model, ModelCost};
use serde_json::{Map, Value};

use crate::catalog::{ModelEntry, ThinkingLevelMap, first_builtin_model_of, is_builtin_provider};
use crate::error::ModelsJsonError;
use crate::jsonc::strip_comments_and_trailing_commas;
use crate::schema;

/// Defaults of a custom model's optional fields.
const DEFAULT_CONTEXT_WINDOW: u64 = 128_000;
const DEFAULT_MAX_TOKENS: u64 = 16_384;

/// What a provider entry contributes to every request of that provider.
#[derive(Clone, Debug, Default)]
pub(crate) struct ProviderRequestConfig {
    /// The configured `apiKey` value, resolved at request time.
    pub api_key: Option<String>,
    /// Configured header values, resolved at request time.
    pub headers: Vec<(String, String)>,
    /// Whether to send `Authorization: Bearer <key>`.
    pub auth_header: bool,
}

/// Everything a valid `models.json` asks for.
#[derive(Debug, Default)]
pub(crate) struct CustomConfig {
    /// Per provider: `baseUrl` and `compat` laid over its built-in models.
    pub provider_overrides: HashMap<String, (Option<String>, Option<Value>)>,
    /// Per provider, per built-in model id: the partial model laid over it.
    pub model_overrides: HashMap<String, Map<String, Value>>,
    /// Per provider: key and headers for requests.
    pub request_configs: HashMap<String, ProviderRequestConfig>,
    /// Per `(provider, model id)`: configured header values, resolved at request time.
    pub model_headers: HashMap<(String, String), Vec<(String, String)>>,
    /// The custom models, in file order.
    pub models: Vec<ModelEntry>,
}

/// Parses and validates the file's text; `path` only names the file in errors.
pub(crate) fn parse(text: &str, path: &Path) -> Result<CustomConfig, ModelsJsonError> {
    let stripped = strip_comments_and_trailing_commas(text);
    let root: Value = serde_json::from_str(&stripped).map_err(|error| ModelsJsonError::Parse {
        path: path.to_owned(),
        message: error.to_string(),
    })?;
    let errors = schema::check(&root);
    if !errors.is_empty() {
        return Err(ModelsJsonError::Schema {
            path: path.to_owned(),
            errors,
        });
    }
    let providers = root
        .get("providers")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    validate(&providers).map_err(|message| ModelsJsonError::Invalid {
        path: path.to_owned(),
        message,
    })?;
    Ok(collect(&providers))
}

/// Pi's rules beyond the shape; the first broken rule is the error.
fn validate(providers: &Map<String, Value>) -> Result<(), String> {
    for (name, config) in providers {
        let is_builtin = is_builtin_provider(name);
        let has = |key: &str| config.get(key).is_some_and(is_truthy);
        let models = models_of(config);
        if models.is_empty() {
            let has_overrides = config
                .get("modelOverrides")
                .and_then(Value::as_object)
                .is_some_and(|overrides| !overrides.is_empty());
            if !has("baseUrl") && !has("headers") && !has("compat") && !has_overrides {
                return Err(format!(
                    "Provider {name}: must specify \"baseUrl\", \"headers\", \"compat\", \"modelOverrides\", or \"models\"."
                ));
            }
        } else if !is_builtin {
            if !has("baseUrl") {
                return Err(format!(
                    "Provider {name}: \"baseUrl\" is required when defining custom models."
                ));
            }
            if !has("apiKey") {
                return Err(format!(
                    "Provider {name}: \"apiKey\" is required when defining custom models."
                ));
            }
        }
        for model in models {
            let id = model.get("id").and_then(Value::as_str).unwrap_or_default();
            if !has("api") && !model.get("api").is_some_and(is_truthy) && !is_builtin {
                return Err(format!(
                    "Provider {name}, model {id}: no \"api\" specified. Set at provider or model level."
                ));
            }
            if id.is_empty() {
                return Err(format!("Provider {name}: model missing \"id\""));
            }
            for (field, label) in [
                ("contextWindow", "contextWindow"),
                ("maxTokens", "maxTokens"),
            ] {
                if model
                    .get(field)
                    .and_then(Value::as_f64)
                    .is_some_and(|n| n <= 0.0)
                {
                    return Err(format!("Provider {name}, model {id}: invalid {label}"));
                }
            }
        }
    }
    Ok(())
}

/// JavaScript truthiness of a present value (the rules test `!config.baseUrl` etc.).
fn is_truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(flag) => *flag,
        Value::Number(number) => number.as_f64().is_some_and(|n| n != 0.0),
        Value::String(text) => !text.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

fn models_of(config: &Value) -> &[Value] {
    config
        .get("models")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

fn str_field<'a>(object: &'a Value, key: &str) -> Option<&'a str> {
    object.get(key).and_then(Value::as_str)
}

fn string_pairs(value: Option<&Value>) -> Vec<(String, String)> {
    value
        .and_then(Value::as_object)
        .map(|headers| {
            headers
                .iter()
                .filter_map(|(name, value)| Some((name.clone(), value.as_str()?.to_owned())))
                .collect()
        })
        .unwrap_or_default()
}

/// Gathers what a validated file asks for.
fn collect(providers: &Map<String, Value>) -> CustomConfig {
    let mut custom = CustomConfig::default();
    for (name, config) in providers {
        let base_url = str_field(config, "baseUrl").filter(|url| !url.is_empty());
        let compat = config.get("compat").filter(|compat| is_truthy(compat));
        if base_url.is_some() || compat.is_some() {
            let entry = (base_url.map(str::to_owned), compat.cloned());
            custom.provider_overrides.insert(name.clone(), entry);
        }
        let request = ProviderRequestConfig {
            api_key: str_field(config, "apiKey").map(str::to_owned),
            headers: string_pairs(config.get("headers")),
            auth_header: config.get("authHeader").and_then(Value::as_bool) == Some(true),
        };
        if request.api_key.is_some() || config.get("headers").is_some() || request.auth_header {
            custom.request_configs.insert(name.clone(), request);
        }
        if let Some(overrides) = config.get("modelOverrides").and_then(Value::as_object) {
            for (id, model_override) in overrides {
                store_headers(&mut custom, name, id, model_override.get("headers"));
            }
            custom
                .model_overrides
                .insert(name.clone(), overrides.clone());
        }
    }
    for (name, config) in providers {
        // Built-in defaults come from the provider's first built-in model.
        let builtin = first_builtin_model_of(name);
        let builtin = builtin.as_ref().map(|entry| &entry.model);
        for definition in models_of(config) {
            let Some(entry) = custom_model(name, config, definition, builtin) else {
                continue;
            };
            store_headers(
                &mut custom,
                name,
                &entry.model.id,
                definition.get("headers"),
            );
            custom.models.push(entry);
        }
    }
    custom
}

fn store_headers(custom: &mut CustomConfig, provider: &str, id: &str, headers: Option<&Value>) {
    let headers = string_pairs(headers);
    let key = (provider.to_owned(), id.to_owned());
    if headers.is_empty() {
        custom.model_headers.remove(&key);
    } else {
        custom.model_headers.insert(key, headers);
    }
}

/// One custom model with Pi's defaults; `None` when neither it nor its provider names an API or
/// a base URL.
fn custom_model(
    provider: &str,
    config: &Value,
    definition: &Value,
    builtin: Option<&Model>,
) -> Option<ModelEntry> {
    let pick = |key: &str, fallback: Option<&str>| {
        str_field(definition, key)
            .or_else(|| str_field(config, key))
            .or(fallback)
            .map(str::to_owned)
    };
    let api = pick("api", builtin.map(|model| model.api.as_str()))?;
    let base_url = pick("baseUrl", builtin.map(|model| model.base_url.as_str()))?;
    let id = str_field(definition, "id")?.to_owned();
    let count = |key: &str, default: u64| {
        definition
            .get(key)
            .and_then(Value::as_f64)
            .map_or(default, |n| n as u64)
    };
    let model = Model {
        name: str_field(definition, "name").unwrap_or(&id).to_owned(),
        id,
        api,
        provider: provider.to_owned(),
        base_url,
        reasoning: definition.get("reasoning").and_then(Value::as_bool) == Some(true),
        input: definition
            .get("input")
            .and_then(|input| serde_json::from_value(input.clone()).ok())
            .unwrap_or_else(|| vec!["text".to_owned()]),
        cost: definition
            .get("cost")
            .map(|cost| cost_with(cost, &ModelCost::default()))
            .unwrap_or_default(),
        context_window: count("contextWindow", DEFAULT_CONTEXT_WINDOW),
        max_tokens: count("maxTokens", DEFAULT_MAX_TOKENS),
        headers: None,
        compat: merge_compat(config.get("compat"), definition.get("compat")),
    };
    let thinking_level_map = definition
        .get("thinkingLevelMap")
        .and_then(ThinkingLevelMap::from_json);
    Some(ModelEntry {
        model,
        thinking_level_map,
    })
}

/// Prices from `cost`, each missing one taken from `base`.
fn cost_with(cost: &Value, base: &ModelCost) -> ModelCost {
    let price =
        |key: &str, fallback: f64| cost.get(key).and_then(Value::as_f64).unwrap_or(fallback);
    ModelCost {
        input: price("input", base.input),
        output: price("output", base.output),
        cache_read: price("cacheRead", base.cache_read),
        cache_write: price("cacheWrite", base.cache_write),
    }
}

/// `{...base, ...over}`, with the routing preferences merged one level deeper (Pi's
/// `mergeCompat`).
pub(crate) fn merge_compat(base: Option<&Value>, over: Option<&Value>) -> Option<Value> {
    let Some(over) = over.and_then(Value::as_object) else {
        return base.cloned();
    };
    let base = base.and_then(Value::as_object);
    let mut merged = base.cloned().unwrap_or_default();
    for (key, value) in over {
        merged.insert(key.clone(), value.clone());
    }
    for routing in ["openRouterRouting", "vercelGatewayRouting"] {
        let from_base = base
            .and_then(|base| base.get(routing))
            .and_then(Value::as_object);
        let from_over = over.get(routing).and_then(Value::as_object);
        if from_base.is_some() || from_over.is_some() {
            let mut inner = from_base.cloned().unwrap_or_default();
            for (key, value) in from_over.into_iter().flatten() {
                inner.insert(key.clone(), value.clone());
            }
            merged.insert(routing.to_owned(), Value::Object(inner));
        }
    }
    Some(Value::Object(merged))
}

/// Lays a `modelOverrides` entry over a built-in model (Pi's `applyModelOverride`).
pub(crate) fn apply_model_override(entry: &mut ModelEntry, over: &Value) {
    let model = &mut entry.model;
    if let Some(name) = str_field(over, "name") {
        model.name = name.to_owned();
    }
    if let Some(reasoning) = over.get("reasoning").and_then(Value::as_bool) {
        model.reasoning = reasoning;
    }
    if let Some(map) = over
        .get("thinkingLevelMap")
        .and_then(ThinkingLevelMap::from_json)
    {
        let base = entry.thinking_level_map.take().unwrap_or_default();
        entry.thinking_level_map = Some(base.merged(&map));
    }
    if let Some(input) = over
        .get("input")
        .and_then(|input| serde_json::from_value(input.clone()).ok())
    {
        model.input = input;
    }
    if let Some(window) = over.get("contextWindow").and_then(Value::as_f64) {
        model.context_window = window as u64;
    }
    if let Some(max_tokens) = over.get("maxTokens").and_then(Value::as_f64) {
        model.max_tokens = max_tokens as u64;
    }
    if let Some(cost) = over.get("cost") {
        model.cost = cost_with(cost, &model.cost);
    }
    model.compat = merge_compat(model.compat.as_ref(), over.get("compat"));
}
