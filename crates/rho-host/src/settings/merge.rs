//! Pi's merge of project over global settings and its key migrations on load.

use serde_json::{Map, Value};

use crate::tool_selection::is_tool_modifier;

/// The project object over the global one, as Pi 1.6 merges them (`deepMergeSettings`): nested
/// objects merge recursively, arrays and primitives are replaced, except a project
/// `defaultTools` made only of `+name`/`-name` entries, which is appended to the global list.
/// rho's `hooks` add up as Claude Code's do: the project's matcher groups of an event follow
/// the global ones.
pub fn merge_settings(
    mut global: Map<String, Value>,
    mut project: Map<String, Value>,
) -> Map<String, Value> {
    let both_hooks = matches!(
        (global.get("hooks"), project.get("hooks")),
        (Some(Value::Object(_)), Some(Value::Object(_)))
    );
    if both_hooks
        && let (Some(Value::Object(base)), Some(Value::Object(over))) =
            (global.get_mut("hooks"), project.remove("hooks"))
    {
        for (event, groups) in over {
            match (base.get_mut(&event), groups) {
                (Some(Value::Array(base)), Value::Array(more)) => base.extend(more),
                (_, groups) => {
                    base.insert(event, groups);
                }
            }
        }
    }
    let default_tools = match (global.get("defaultTools"), project.get("defaultTools")) {
        (Some(Value::Array(base)), Some(Value::Array(over)))
            if over
                .iter()
                .all(|entry| entry.as_str().is_some_and(is_tool_modifier)) =>
        {
            Some(Value::Array(base.iter().chain(over).cloned().collect()))
        }
        _ => None,
    };
    deep_merge(&mut global, project);
    if let Some(tools) = default_tools {
        global.insert("defaultTools".to_owned(), tools);
    }
    global
}

fn deep_merge(base: &mut Map<String, Value>, over: Map<String, Value>) {
    for (key, value) in over {
        match (base.get_mut(&key), value) {
            (Some(Value::Object(base)), Value::Object(over)) => deep_merge(base, over),
            (_, value) => {
                base.insert(key, value);
            }
        }
    }
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
    fn nested_objects_merge_recursively_and_default_tools_modifiers_append() {
        let global = object(json!({
            "retry": {"provider": {"timeoutMs": 1, "maxRetries": 0}},
            "defaultTools": ["read", "+grep"]
        }));
        let project = object(json!({
            "retry": {"provider": {"timeoutMs": 2}},
            "defaultTools": ["-bash"]
        }));
        assert_eq!(
            Value::Object(merge_settings(global.clone(), project)),
            json!({
                "retry": {"provider": {"timeoutMs": 2, "maxRetries": 0}},
                "defaultTools": ["read", "+grep", "-bash"]
            })
        );
        let plain = object(json!({"defaultTools": ["ls"]}));
        assert_eq!(merge_settings(global, plain)["defaultTools"], json!(["ls"]));
    }

    #[test]
    fn project_hooks_follow_the_global_ones_of_their_event() {
        let global = object(json!({"hooks": {
            "PreToolUse": [{"hooks": [{"type": "command", "command": "global"}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "stop"}]}]
        }}));
        let project = object(json!({"hooks": {
            "PreToolUse": [{"matcher": "bash", "hooks": [{"type": "command", "command": "project"}]}],
            "PostToolUse": [{"hooks": [{"type": "command", "command": "post"}]}]
        }}));
        let merged = merge_settings(global, project);
        assert_eq!(
            merged["hooks"],
            json!({
                "PreToolUse": [
                    {"hooks": [{"type": "command", "command": "global"}]},
                    {"matcher": "bash", "hooks": [{"type": "command", "command": "project"}]}
                ],
                "Stop": [{"hooks": [{"type": "command", "command": "stop"}]}],
                "PostToolUse": [{"hooks": [{"type": "command", "command": "post"}]}]
            })
        );
        let only_project = object(json!({"hooks": {"Stop": []}}));
        assert_eq!(
            merge_settings(Map::new(), only_project)["hooks"],
            json!({"Stop": []})
        );
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
