//! Pi's merge of project over global settings and its key migrations on load.

use serde_json::{Map, Value};

/// The project object over the global one: nested objects are merged key by key (one level
/// deep, as Pi does), arrays and primitives are replaced.
pub fn merge_settings(
    mut global: Map<String, Value>,
    project: Map<String, Value>,
) -> Map<String, Value> {
    for (key, value) in project {
        match (global.get_mut(&key), value) {
            (Some(Value::Object(base)), Value::Object(over)) => {
                for (inner_key, inner_value) in over {
                    base.insert(inner_key, inner_value);
                }
            }
            (_, value) => {
                global.insert(key, value);
            }
        }
    }
    global
}

/// Pi's migrations of old key names: `queueMode` → `steeringMode` and `retry.maxDelayMs` →
/// `retry.provider.maxRetryDelayMs`, each only when the new key is absent.
pub(super) fn migrate(object: &mut Map<String, Value>) {
    if let Some(mode) = object.remove("queueMode")
        && !object.contains_key("steeringMode")
    {
        object.insert("steeringMode".to_owned(), mode);
    }
    if let Some(Value::Object(retry)) = object.get_mut("retry")
        && let Some(max_delay) = retry.remove("maxDelayMs")
    {
        let provider = retry
            .entry("provider")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(provider) = provider
            && !provider.contains_key("maxRetryDelayMs")
        {
            provider.insert("maxRetryDelayMs".to_owned(), max_delay);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => Map::new(),
        }
    }

    #[test]
    fn project_settings_override_global_ones_merging_nested_objects_key_by_key() {
        let global = object(json!({
            "theme": "dark",
            "compaction": {"enabled": true, "reserveTokens": 16384},
            "enabledModels": ["a", "b"]
        }));
        let project = object(json!({
            "compaction": {"reserveTokens": 8192},
            "enabledModels": ["c"]
        }));
        assert_eq!(
            Value::Object(merge_settings(global, project)),
            json!({
                "theme": "dark",
                "compaction": {"enabled": true, "reserveTokens": 8192},
                "enabledModels": ["c"]
            })
        );
    }

    #[test]
    fn old_key_names_are_migrated_like_pi() {
        let mut settings = object(json!({"queueMode": "all", "retry": {"maxDelayMs": 5}}));
        migrate(&mut settings);
        assert_eq!(
            Value::Object(settings),
            json!({"retry": {"provider": {"maxRetryDelayMs": 5}}, "steeringMode": "all"})
        );
    }
}
