//! The built-in model catalog, and the per-model facts `rho_ai::Model` does not carry.
//!
//! The data file (`data/models.json`) becomes a table of literals at build time (`build.rs`), so
//! a run pays for copying the models it loads, never for parsing the catalog.

use std::sync::LazyLock;

use rho_ai::{Model, ModelCost, ThinkingLevel};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// Per level: absent = the provider's default mapping, `Some(value)` = the provider's own value,
/// `None` = the model does not support that level (Pi's `thinkingLevelMap`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ThinkingLevelMap {
    /// Mapped levels in the order they were written.
    entries: Vec<(ThinkingLevel, Option<String>)>,
}

impl ThinkingLevelMap {
    /// Reads a JSON object; keys that are not level names and values that are neither a string
    /// nor `null` are skipped. `None` when `value` is not an object.
    pub fn from_json(value: &Value) -> Option<Self> {
        let object = value.as_object()?;
        let mut map = ThinkingLevelMap::default();
        for (key, mapped) in object {
            let Some(level) = ThinkingLevel::parse(key) else {
                continue;
            };
            match mapped {
                Value::String(text) => map.set(level, Some(text.clone())),
                Value::Null => map.set(level, None),
                _ => {}
            }
        }
        Some(map)
    }

    /// The map as Pi writes it.
    pub fn to_json(&self) -> Value {
        let object: Map<String, Value> = self
            .entries
            .iter()
            .map(|(level, mapped)| {
                let value = mapped.clone().map_or(Value::Null, Value::String);
                (level.as_str().to_owned(), value)
            })
            .collect();
        Value::Object(object)
    }

    /// `None`: not mapped; `Some(None)`: unsupported; `Some(Some(value))`: the provider's value.
    pub fn get(&self, level: ThinkingLevel) -> Option<Option<&str>> {
        self.entries
            .iter()
            .find(|(mapped, _)| *mapped == level)
            .map(|(_, value)| value.as_deref())
    }

    /// Maps one level, replacing an earlier mapping in place.
    pub fn set(&mut self, level: ThinkingLevel, value: Option<String>) {
        match self.entries.iter_mut().find(|(mapped, _)| *mapped == level) {
            Some(entry) => entry.1 = value,
            None => self.entries.push((level, value)),
        }
    }

    /// `self` with `other`'s mappings laid over it (JavaScript's `{...self, ...other}`).
    pub fn merged(&self, other: &ThinkingLevelMap) -> ThinkingLevelMap {
        let mut merged = self.clone();
        for (level, value) in &other.entries {
            merged.set(*level, value.clone());
        }
        merged
    }

    /// Whether no level is mapped.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

impl Serialize for ThinkingLevelMap {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ThinkingLevelMap {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        ThinkingLevelMap::from_json(&value)
            .ok_or_else(|| serde::de::Error::custom("thinkingLevelMap must be an object"))
    }
}

/// One model of the registry: the model a provider is called with, plus its thinking-level map.
///
/// The map lives here because `rho_ai::Model` has no field for it yet.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelEntry {
    /// The model.
    pub model: Model,
    /// Pi's `thinkingLevelMap`, when the model has one.
    pub thinking_level_map: Option<ThinkingLevelMap>,
}

impl ModelEntry {
    /// A model without a thinking-level map.
    pub fn new(model: Model) -> Self {
        ModelEntry {
            model,
            thinking_level_map: None,
        }
    }

    /// Reads one catalog or `models.json`-shaped model object; `None` if it lacks a field. Only
    /// the tests read the catalog this way now, as the reference for the build-time table.
    #[cfg(test)]
    pub(crate) fn from_json(value: &Value) -> Option<Self> {
        let model = Model::deserialize(value).ok()?;
        let thinking_level_map = value
            .get("thinkingLevelMap")
            .and_then(ThinkingLevelMap::from_json);
        Some(ModelEntry {
            model,
            thinking_level_map,
        })
    }
}

/// One built-in model as the build script writes it from `data/models.json`: literals only, so
/// reading the catalog is copying strings out of the binary, not parsing JSON.
struct BuiltinModel {
    id: &'static str,
    name: &'static str,
    api: &'static str,
    provider: &'static str,
    base_url: &'static str,
    reasoning: bool,
    input: &'static [&'static str],
    /// input, output, cacheRead, cacheWrite.
    cost: [f64; 4],
    context_window: u64,
    max_tokens: u64,
    /// JSON text of the optional objects, in the catalog's key order.
    headers: Option<&'static str>,
    compat: Option<&'static str>,
    thinking_level_map: Option<&'static str>,
}

/// The catalog, generated at build time by `build.rs` from `data/models.json` (itself generated
/// by `data/generate.py` from Pi's `models.generated.js`).
static BUILTIN: &[BuiltinModel] = include!(concat!(env!("OUT_DIR"), "/catalog_table.rs"));

impl BuiltinModel {
    fn to_entry(&self) -> ModelEntry {
        // The build script wrote this text with serde_json, so it parses; `None` is unreachable.
        let json = |text: Option<&str>| text.and_then(|text| serde_json::from_str(text).ok());
        let [input, output, cache_read, cache_write] = self.cost;
        ModelEntry {
            model: Model {
                id: self.id.to_owned(),
                name: self.name.to_owned(),
                api: self.api.to_owned(),
                provider: self.provider.to_owned(),
                base_url: self.base_url.to_owned(),
                reasoning: self.reasoning,
                input: self.input.iter().map(|kind| (*kind).to_owned()).collect(),
                cost: ModelCost {
                    input,
                    output,
                    cache_read,
                    cache_write,
                },
                context_window: self.context_window,
                max_tokens: self.max_tokens,
                headers: json(self.headers),
                compat: json(self.compat),
            },
            thinking_level_map: json(self.thinking_level_map)
                .as_ref()
                .and_then(ThinkingLevelMap::from_json),
        }
    }
}

static CATALOG: LazyLock<Vec<ModelEntry>> = LazyLock::new(builtin_entries);

static PROVIDERS: LazyLock<Vec<String>> = LazyLock::new(|| {
    let mut providers: Vec<String> = Vec::new();
    for builtin in BUILTIN {
        if !providers.iter().any(|known| known == builtin.provider) {
            providers.push(builtin.provider.to_owned());
        }
    }
    providers
});

/// A fresh copy of every built-in model, for a registry that will change some of them: copying
/// from the literals costs no more than cloning [`builtin_models`], and spares building that
/// shared copy at all on a run that only needs the registry.
pub(crate) fn builtin_entries() -> Vec<ModelEntry> {
    BUILTIN.iter().map(BuiltinModel::to_entry).collect()
}

/// Every built-in model, in Pi's order (provider by provider).
pub fn builtin_models() -> &'static [ModelEntry] {
    &CATALOG
}

/// The built-in providers, in catalog order.
pub fn builtin_providers() -> &'static [String] {
    &PROVIDERS
}

/// Whether `provider` is one of the built-in providers (case-sensitive, as in Pi).
pub fn is_builtin_provider(provider: &str) -> bool {
    BUILTIN.iter().any(|builtin| builtin.provider == provider)
}

/// The built-in models of one provider, in catalog order. A provider that is not built in
/// costs no copy of the catalog.
pub fn builtin_models_of(provider: &str) -> impl Iterator<Item = &'static ModelEntry> {
    let models: &'static [ModelEntry] = if is_builtin_provider(provider) {
        &CATALOG
    } else {
        &[]
    };
    models
        .iter()
        .filter(move |entry| entry.model.provider == provider)
}

/// A copy of the provider's first built-in model, without copying the rest of the catalog.
pub(crate) fn first_builtin_model_of(provider: &str) -> Option<ModelEntry> {
    BUILTIN
        .iter()
        .find(|builtin| builtin.provider == provider)
        .map(BuiltinModel::to_entry)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The catalog as it was read before the build-time table: every entry through a `Value`.
    fn parse_through_values(text: &str) -> Vec<ModelEntry> {
        let root: Value = serde_json::from_str(text).unwrap_or_default();
        root.get("models")
            .and_then(Value::as_array)
            .map(|models| models.iter().filter_map(ModelEntry::from_json).collect())
            .unwrap_or_default()
    }

    #[test]
    fn the_build_time_table_holds_exactly_the_models_of_the_catalog_file() {
        let file = include_str!("../data/models.json");
        let table = builtin_entries();
        assert!(table.len() > 700);
        assert_eq!(table, parse_through_values(file));
        assert_eq!(builtin_models(), table.as_slice());
        let first_openai = table.iter().find(|entry| entry.model.provider == "openai");
        assert_eq!(first_builtin_model_of("openai").as_ref(), first_openai);
        assert_eq!(builtin_models_of("openai").next(), first_openai);
        assert_eq!(first_builtin_model_of("my-server"), None);
        assert_eq!(builtin_models_of("my-server").next(), None);
    }
}
