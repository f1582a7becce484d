//! The shape check of `models.json`, reporting problems in TypeBox's words as Pi does
//! (`  - <dotted path>: <message>`), before any rule of `models_json` runs.
//!
//! Nested routing preferences inside `compat` (`openRouterRouting`, `vercelGatewayRouting`) are
//! only checked to be objects; their inner fields are passed through unchecked.

use rho_ai::ThinkingLevel;
use serde_json::{Map, Value};

/// One problem: the dotted path of the offending value and TypeBox's message.
type Problem = (String, String);

/// The problems of a parsed `models.json`, one rendered line each; empty when the shape is right.
pub(crate) fn check(root: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    if let Some(object) = object(root, "", &mut problems) {
        require(object, "", &["providers"], &mut problems);
        // Pi 1.6 ships a JSON Schema; a file may name it.
        optional(object, "", "$schema", &mut problems, |v, p, e| {
            string(v, p, false, e)
        });
        if let Some(providers) = object.get("providers") {
            record(providers, "providers", provider_config, &mut problems);
        }
    }
    problems
        .into_iter()
        .map(|(path, message)| {
            let path = if path.is_empty() { "root" } else { &path };
            format!("  - {path}: {message}")
        })
        .collect()
}

fn provider_config(value: &Value, path: &str, problems: &mut Vec<Problem>) {
    let Some(object) = object(value, path, problems) else {
        return;
    };
    for field in ["name", "baseUrl", "apiKey", "api"] {
        optional(object, path, field, problems, |v, p, e| {
            string(v, p, true, e)
        });
    }
    optional(object, path, "headers", problems, string_record);
    optional(object, path, "compat", problems, compat);
    optional(object, path, "authHeader", problems, boolean);
    optional(object, path, "models", problems, |v, p, e| {
        array(v, p, e, model_definition)
    });
    optional(object, path, "modelOverrides", problems, |v, p, e| {
        record(v, p, model_override, e)
    });
}

fn model_definition(value: &Value, path: &str, problems: &mut Vec<Problem>) {
    let Some(object) = object(value, path, problems) else {
        return;
    };
    require(object, path, &["id"], problems);
    for field in ["id", "name", "api", "baseUrl"] {
        optional(object, path, field, problems, |v, p, e| {
            string(v, p, true, e)
        });
    }
    model_fields(object, path, true, problems);
}

fn model_override(value: &Value, path: &str, problems: &mut Vec<Problem>) {
    let Some(object) = object(value, path, problems) else {
        return;
    };
    optional(object, path, "name", problems, |v, p, e| {
        string(v, p, true, e)
    });
    model_fields(object, path, false, problems);
}

/// The fields a model definition and a model override share; a definition's `cost` must name
/// all four prices, an override's may name any.
fn model_fields(
    object: &Map<String, Value>,
    path: &str,
    full_cost: bool,
    problems: &mut Vec<Problem>,
) {
    optional(object, path, "reasoning", problems, boolean);
    optional(
        object,
        path,
        "thinkingLevelMap",
        problems,
        thinking_level_map,
    );
    optional(object, path, "input", problems, |v, p, e| {
        array(v, p, e, |item, item_path, e| {
            literals(item, item_path, &["text", "image"], e)
        })
    });
    optional(object, path, "cost", problems, |value, path, problems| {
        let Some(cost) = self::object(value, path, problems) else {
            return;
        };
        let prices = ["input", "output", "cacheRead", "cacheWrite"];
        if full_cost {
            require(cost, path, &prices, problems);
        }
        for price in prices {
            optional(cost, path, price, problems, number);
        }
    });
    optional(object, path, "contextWindow", problems, number);
    optional(object, path, "maxTokens", problems, number);
    optional(object, path, "headers", problems, string_record);
    optional(object, path, "compat", problems, compat);
}

fn thinking_level_map(value: &Value, path: &str, problems: &mut Vec<Problem>) {
    let Some(object) = object(value, path, problems) else {
        return;
    };
    for level in ThinkingLevel::ALL.map(ThinkingLevel::as_str) {
        optional(object, path, level, problems, |value, path, problems| {
            if !(value.is_string() || value.is_null()) {
                problems.push((path.to_owned(), "must be string".to_owned()));
                problems.push((path.to_owned(), "must be null".to_owned()));
                problems.push((path.to_owned(), ANY_OF.to_owned()));
            }
        });
    }
}

const ANY_OF: &str = "must match a schema in anyOf";

/// `compat` is a union of the three APIs' switch sets; it is valid when any one accepts it.
fn compat(value: &Value, path: &str, problems: &mut Vec<Problem>) {
    let branches: [fn(&Value, &str, &mut Vec<Problem>); 3] =
        [completions_compat, responses_compat, anthropic_compat];
    let mut branch_problems = Vec::new();
    for branch in branches {
        let mut found = Vec::new();
        branch(value, path, &mut found);
        if found.is_empty() {
            return;
        }
        branch_problems.extend(found);
    }
    problems.extend(branch_problems);
    problems.push((path.to_owned(), ANY_OF.to_owned()));
}

fn completions_compat(value: &Value, path: &str, problems: &mut Vec<Problem>) {
    let Some(object) = object(value, path, problems) else {
        return;
    };
    let flags_before = [
        "supportsStore",
        "supportsDeveloperRole",
        "supportsReasoningEffort",
        "supportsUsageInStreaming",
    ];
    for flag in flags_before {
        optional(object, path, flag, problems, boolean);
    }
    optional(object, path, "maxTokensField", problems, |v, p, e| {
        literals(v, p, &["max_completion_tokens", "max_tokens"], e)
    });
    let flags_middle = [
        "requiresToolResultName",
        "requiresAssistantAfterToolResult",
        "requiresThinkingAsText",
        "requiresReasoningContentOnAssistantMessages",
    ];
    for flag in flags_middle {
        optional(object, path, flag, problems, boolean);
    }
    optional(object, path, "thinkingFormat", problems, |v, p, e| {
        let formats = [
            "openai",
            "openrouter",
            "deepseek",
            "zai",
            "qwen",
            "qwen-chat-template",
        ];
        literals(v, p, &formats, e)
    });
    optional(object, path, "cacheControlFormat", problems, |v, p, e| {
        literals(v, p, &["anthropic"], e)
    });
    for routing in ["openRouterRouting", "vercelGatewayRouting"] {
        optional(object, path, routing, problems, |v, p, e| {
            self::object(v, p, e);
        });
    }
    optional(object, path, "supportsStrictMode", problems, boolean);
    optional(
        object,
        path,
        "supportsLongCacheRetention",
        problems,
        boolean,
    );
}

fn responses_compat(value: &Value, path: &str, problems: &mut Vec<Problem>) {
    let Some(object) = object(value, path, problems) else {
        return;
    };
    optional(object, path, "sendSessionIdHeader", problems, boolean);
    optional(
        object,
        path,
        "supportsLongCacheRetention",
        problems,
        boolean,
    );
}

fn anthropic_compat(value: &Value, path: &str, problems: &mut Vec<Problem>) {
    let Some(object) = object(value, path, problems) else {
        return;
    };
    optional(
        object,
        path,
        "supportsEagerToolInputStreaming",
        problems,
        boolean,
    );
    optional(
        object,
        path,
        "supportsLongCacheRetention",
        problems,
        boolean,
    );
}

// ---- the TypeBox building blocks ----

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

fn object<'a>(
    value: &'a Value,
    path: &str,
    problems: &mut Vec<Problem>,
) -> Option<&'a Map<String, Value>> {
    let object = value.as_object();
    if object.is_none() {
        problems.push((path.to_owned(), "must be object".to_owned()));
    }
    object
}

/// TypeBox names the first missing property in the path and lists them all in the message.
fn require(object: &Map<String, Value>, path: &str, names: &[&str], problems: &mut Vec<Problem>) {
    let missing: Vec<&str> = names
        .iter()
        .copied()
        .filter(|name| !object.contains_key(*name))
        .collect();
    if let Some(first) = missing.first() {
        let message = format!("must have required properties {}", missing.join(", "));
        problems.push((join(path, first), message));
    }
}

fn optional(
    object: &Map<String, Value>,
    path: &str,
    key: &str,
    problems: &mut Vec<Problem>,
    check: impl Fn(&Value, &str, &mut Vec<Problem>),
) {
    if let Some(value) = object.get(key) {
        check(value, &join(path, key), problems);
    }
}

fn record(
    value: &Value,
    path: &str,
    check: impl Fn(&Value, &str, &mut Vec<Problem>),
    problems: &mut Vec<Problem>,
) {
    if let Some(object) = object(value, path, problems) {
        for (key, item) in object {
            check(item, &join(path, key), problems);
        }
    }
}

fn array(
    value: &Value,
    path: &str,
    problems: &mut Vec<Problem>,
    check: impl Fn(&Value, &str, &mut Vec<Problem>),
) {
    match value.as_array() {
        Some(items) => {
            for (index, item) in items.iter().enumerate() {
                check(item, &join(path, &index.to_string()), problems);
            }
        }
        None => problems.push((path.to_owned(), "must be array".to_owned())),
    }
}

fn string_record(value: &Value, path: &str, problems: &mut Vec<Problem>) {
    record(value, path, |v, p, e| string(v, p, false, e), problems);
}

fn string(value: &Value, path: &str, non_empty: bool, problems: &mut Vec<Problem>) {
    match value.as_str() {
        None => problems.push((path.to_owned(), "must be string".to_owned())),
        Some("") if non_empty => {
            let message = "must not have fewer than 1 characters".to_owned();
            problems.push((path.to_owned(), message));
        }
        Some(_) => {}
    }
}

fn boolean(value: &Value, path: &str, problems: &mut Vec<Problem>) {
    if !value.is_boolean() {
        problems.push((path.to_owned(), "must be boolean".to_owned()));
    }
}

fn number(value: &Value, path: &str, problems: &mut Vec<Problem>) {
    if !value.is_number() {
        problems.push((path.to_owned(), "must be number".to_owned()));
    }
}

/// A literal, or a union of literals: one "equal to constant" failure per literal, then the
/// union's own message when there are several.
fn literals(value: &Value, path: &str, allowed: &[&str], problems: &mut Vec<Problem>) {
    if value.as_str().is_some_and(|text| allowed.contains(&text)) {
        return;
    }
    for _ in allowed {
        problems.push((path.to_owned(), "must be equal to constant".to_owned()));
    }
    if allowed.len() > 1 {
        problems.push((path.to_owned(), ANY_OF.to_owned()));
    }
}
