#![allow(clippy::unwrap_used, clippy::expect_used)]
//! `RHO_HOME/models.json`: custom providers and models, overrides, validation (Pi's rules and
//! texts), and the fallback to built-in models when the file is broken.

use std::path::Path;

use rho_ai::{Model, ModelCost};
use rho_models::{ModelEntry, ModelRegistry, ThinkingLevelMap, builtin_models};
use serde_json::json;

const PATH: &str = "/home/u/.rho/models.json";

fn load(text: &str) -> (ModelRegistry, Vec<String>) {
    let (registry, problems) = ModelRegistry::from_models_json(text, Path::new(PATH));
    (registry, problems.iter().map(ToString::to_string).collect())
}

fn only_builtins_with_problem(text: &str) -> String {
    let (registry, problems) = load(text);
    assert_eq!(registry.all(), builtin_models());
    assert_eq!(problems.len(), 1, "{problems:?}");
    problems.into_iter().next().unwrap()
}

#[test]
fn custom_provider_model_gets_pi_defaults() {
    let (registry, problems) = load(
        r#"{"providers": {"local": {
            "baseUrl": "http://localhost:11434/v1", "apiKey": "ollama", "api": "openai-completions",
            "models": [{"id": "llama3.1:8b"}]}}}"#,
    );
    assert_eq!(problems, Vec::<String>::new());
    let expected = ModelEntry::new(Model {
        id: "llama3.1:8b".into(),
        name: "llama3.1:8b".into(),
        api: "openai-completions".into(),
        provider: "local".into(),
        base_url: "http://localhost:11434/v1".into(),
        reasoning: false,
        input: vec!["text".into()],
        cost: ModelCost::default(),
        context_window: 128_000,
        max_tokens: 16_384,
        headers: None,
        compat: None,
    });
    assert_eq!(registry.find("local", "llama3.1:8b"), Some(&expected));
    // Appended after every built-in model.
    assert_eq!(registry.all().len(), builtin_models().len() + 1);
    assert_eq!(registry.all().last(), Some(&expected));
}

#[test]
fn custom_model_fields_override_provider_fields_and_compat_merges() {
    let (registry, problems) = load(
        r#"{"providers": {"proxy": {
            "baseUrl": "https://proxy.example/v1", "apiKey": "K", "api": "openai-completions",
            "compat": {"supportsDeveloperRole": false, "openRouterRouting": {"only": ["a"]}},
            "models": [{"id": "m", "name": "M", "api": "openai-responses", "baseUrl": "https://other/v1",
                "reasoning": true, "input": ["text", "image"],
                "cost": {"input": 1, "output": 2, "cacheRead": 0.5, "cacheWrite": 0},
                "contextWindow": 32000, "maxTokens": 4096,
                "thinkingLevelMap": {"off": null, "xhigh": "max"},
                "compat": {"supportsStore": false, "openRouterRouting": {"order": ["b"]}}}]}}}"#,
    );
    assert_eq!(problems, Vec::<String>::new());
    let expected = ModelEntry {
        model: Model {
            id: "m".into(),
            name: "M".into(),
            api: "openai-responses".into(),
            provider: "proxy".into(),
            base_url: "https://other/v1".into(),
            reasoning: true,
            input: vec!["text".into(), "image".into()],
            cost: ModelCost {
                input: 1.0,
                output: 2.0,
                cache_read: 0.5,
                cache_write: 0.0,
            },
            context_window: 32_000,
            max_tokens: 4_096,
            headers: None,
            compat: Some(json!({
                "supportsDeveloperRole": false,
                "openRouterRouting": {"only": ["a"], "order": ["b"]},
                "supportsStore": false
            })),
        },
        thinking_level_map: ThinkingLevelMap::from_json(&json!({"off": null, "xhigh": "max"})),
    };
    assert_eq!(registry.find("proxy", "m"), Some(&expected));
}

#[test]
fn model_override_changes_only_the_named_fields_of_a_builtin_model() {
    let (registry, problems) = load(
        r#"{"providers": {"anthropic": {"modelOverrides": {"claude-opus-4-7": {
            "name": "Opus (proxy)", "cost": {"input": 1}, "contextWindow": 500000,
            "thinkingLevelMap": {"off": null, "xhigh": "max"},
            "compat": {"supportsLongCacheRetention": true}}}}}}"#,
    );
    assert_eq!(problems, Vec::<String>::new());
    let mut expected = rho_models::builtin_models()
        .iter()
        .find(|entry| entry.model.id == "claude-opus-4-7")
        .cloned()
        .unwrap();
    expected.model.name = "Opus (proxy)".into();
    expected.model.cost.input = 1.0;
    expected.model.context_window = 500_000;
    expected.model.compat = Some(json!({"supportsLongCacheRetention": true}));
    // Merged over the built-in {"xhigh": "xhigh"}: existing keys keep their place.
    expected.thinking_level_map =
        ThinkingLevelMap::from_json(&json!({"xhigh": "max", "off": null}));
    assert_eq!(
        registry.find("anthropic", "claude-opus-4-7"),
        Some(&expected)
    );
    assert_eq!(registry.all().len(), builtin_models().len());
}

#[test]
fn provider_base_url_replaces_the_base_url_of_every_builtin_model_of_that_provider() {
    let (registry, problems) =
        load(r#"{"providers": {"openai": {"baseUrl": "https://gateway.example/v1"}}}"#);
    assert_eq!(problems, Vec::<String>::new());
    let openai_urls: Vec<&str> = registry
        .all()
        .iter()
        .filter(|entry| entry.model.provider == "openai")
        .map(|entry| entry.model.base_url.as_str())
        .collect();
    assert!(!openai_urls.is_empty());
    assert!(
        openai_urls
            .iter()
            .all(|url| *url == "https://gateway.example/v1")
    );
    let anthropic = registry.find("anthropic", "claude-opus-4-7").unwrap();
    assert_eq!(anthropic.model.base_url, "https://api.anthropic.com");
}

#[test]
fn custom_model_with_a_builtin_id_replaces_it_in_place_and_inherits_the_provider_api() {
    let (registry, problems) = load(
        r#"{"providers": {"anthropic": {"models": [{"id": "claude-opus-4-7", "name": "Mine"}, {"id": "claude-next"}]}}}"#,
    );
    assert_eq!(problems, Vec::<String>::new());
    let position = |id: &str| {
        registry
            .all()
            .iter()
            .position(|entry| entry.model.provider == "anthropic" && entry.model.id == id)
    };
    let builtin_position = builtin_models()
        .iter()
        .position(|entry| entry.model.id == "claude-opus-4-7");
    assert_eq!(position("claude-opus-4-7"), builtin_position);
    let replaced = registry.find("anthropic", "claude-opus-4-7").unwrap();
    let expected = ModelEntry::new(Model {
        id: "claude-opus-4-7".into(),
        name: "Mine".into(),
        api: "anthropic-messages".into(),
        provider: "anthropic".into(),
        base_url: "https://api.anthropic.com".into(),
        reasoning: false,
        input: vec!["text".into()],
        cost: ModelCost::default(),
        context_window: 128_000,
        max_tokens: 16_384,
        headers: None,
        compat: None,
    });
    assert_eq!(replaced, &expected);
    assert_eq!(position("claude-next"), Some(builtin_models().len()));
}

#[test]
fn comments_and_trailing_commas_are_tolerated_but_not_inside_strings() {
    let (registry, problems) = load(
        "{\n  // local server\n  \"providers\": {\n    \"local\": {\n      \"baseUrl\": \"http://h/v1\", // trailing comment\n      \"apiKey\": \"k\",\n      \"api\": \"openai-completions\",\n      \"models\": [{\"id\": \"m\", \"name\": \"a // b, ]\"},],\n    },\n  },\n}\n",
    );
    assert_eq!(problems, Vec::<String>::new());
    assert_eq!(registry.find("local", "m").unwrap().model.name, "a // b, ]");
}

#[test]
fn garbage_leaves_only_builtin_models_and_reports_a_parse_problem() {
    assert_eq!(
        only_builtins_with_problem("garbage {"),
        format!("Failed to parse models.json: expected value at line 1 column 1\n\nFile: {PATH}")
    );
}

#[test]
fn schema_problems_are_reported_in_typebox_words() {
    let cases = [
        (
            "{}",
            vec!["  - providers: must have required properties providers"],
        ),
        ("[1]", vec!["  - root: must be object"]),
        (r#"{"providers": 5}"#, vec!["  - providers: must be object"]),
        (
            r#"{"providers": {"x": {"models": [{"id": 5, "name": "", "reasoning": "yes", "input": ["text", "audio"], "cost": {"input": 1}, "contextWindow": "big"}]}}}"#,
            vec![
                "  - providers.x.models.0.id: must be string",
                "  - providers.x.models.0.name: must not have fewer than 1 characters",
                "  - providers.x.models.0.reasoning: must be boolean",
                "  - providers.x.models.0.input.1: must be equal to constant",
                "  - providers.x.models.0.input.1: must be equal to constant",
                "  - providers.x.models.0.input.1: must match a schema in anyOf",
                "  - providers.x.models.0.cost.output: must have required properties output, cacheRead, cacheWrite",
                "  - providers.x.models.0.contextWindow: must be number",
            ],
        ),
        (
            r#"{"providers": {"x": {"models": [{"name": 3}]}}}"#,
            vec![
                "  - providers.x.models.0.id: must have required properties id",
                "  - providers.x.models.0.name: must be string",
            ],
        ),
        (
            r#"{"providers": {"x": {"compat": {"supportsLongCacheRetention": 1, "supportsStore": "no"}}}}"#,
            vec![
                "  - providers.x.compat.supportsStore: must be boolean",
                "  - providers.x.compat.supportsLongCacheRetention: must be boolean",
                "  - providers.x.compat.supportsLongCacheRetention: must be boolean",
                "  - providers.x.compat.supportsLongCacheRetention: must be boolean",
                "  - providers.x.compat: must match a schema in anyOf",
            ],
        ),
        (
            r#"{"providers": {"x": {"headers": {"a": 1}, "authHeader": "yes", "models": {}}}}"#,
            vec![
                "  - providers.x.headers.a: must be string",
                "  - providers.x.authHeader: must be boolean",
                "  - providers.x.models: must be array",
            ],
        ),
        (
            r#"{"providers": {"x": {"models": [{"id": "m", "thinkingLevelMap": {"high": 3}}]}}}"#,
            vec![
                "  - providers.x.models.0.thinkingLevelMap.high: must be string",
                "  - providers.x.models.0.thinkingLevelMap.high: must be null",
                "  - providers.x.models.0.thinkingLevelMap.high: must match a schema in anyOf",
            ],
        ),
        (
            r#"{"providers": {"x": {"modelOverrides": {"m": {"cost": {"input": "1"}, "name": 3}}}}}"#,
            vec![
                "  - providers.x.modelOverrides.m.name: must be string",
                "  - providers.x.modelOverrides.m.cost.input: must be number",
            ],
        ),
    ];
    for (text, lines) in cases {
        let expected = format!(
            "Invalid models.json schema:\n{}\n\nFile: {PATH}",
            lines.join("\n")
        );
        assert_eq!(only_builtins_with_problem(text), expected, "{text}");
    }
}

#[test]
fn compat_switches_of_another_api_are_accepted() {
    // The compat union accepts an object any one API's switch set accepts.
    let (_, problems) = load(
        r#"{"providers": {"x": {"compat": {"maxTokensField": "foo", "cacheControlFormat": "other"}}}}"#,
    );
    assert_eq!(problems, Vec::<String>::new());
}

#[test]
fn each_validation_rule_has_pi_wording() {
    let cases = [
        (
            r#"{"providers": {"x": {"baseUrl": "http://h", "models": [{"id": "m"}]}}}"#,
            r#"Provider x: "apiKey" is required when defining custom models."#,
        ),
        (
            r#"{"providers": {"x": {"apiKey": "K", "models": [{"id": "m"}]}}}"#,
            r#"Provider x: "baseUrl" is required when defining custom models."#,
        ),
        (
            r#"{"providers": {"x": {"apiKey": "K", "baseUrl": "http://h", "models": [{"id": "m", "api": "openai-completions"}, {"id": "n"}]}}}"#,
            r#"Provider x, model n: no "api" specified. Set at provider or model level."#,
        ),
        (
            r#"{"providers": {"x": {"apiKey": "K"}}}"#,
            r#"Provider x: must specify "baseUrl", "headers", "compat", "modelOverrides", or "models"."#,
        ),
        (
            r#"{"providers": {"x": {"apiKey": "K", "baseUrl": "http://h", "api": "openai-completions", "models": [{"id": "m", "contextWindow": 0}]}}}"#,
            "Provider x, model m: invalid contextWindow",
        ),
        (
            r#"{"providers": {"x": {"apiKey": "K", "baseUrl": "http://h", "api": "openai-completions", "models": [{"id": "m", "maxTokens": -1}]}}}"#,
            "Provider x, model m: invalid maxTokens",
        ),
    ];
    for (text, message) in cases {
        let expected = format!("Failed to load models.json: {message}\n\nFile: {PATH}");
        assert_eq!(only_builtins_with_problem(text), expected, "{text}");
    }
}

#[test]
fn a_missing_file_is_no_problem() {
    let home = tempfile::tempdir().unwrap();
    let (registry, problems) = ModelRegistry::load(home.path());
    assert!(problems.is_empty());
    assert_eq!(registry.all(), builtin_models());
}

#[test]
fn the_file_in_rho_home_is_read() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join("models.json"),
        r#"{"providers": {"openai": {"baseUrl": "http://127.0.0.1:9/v1"}}}"#,
    )
    .unwrap();
    let (registry, problems) = ModelRegistry::load(home.path());
    assert!(problems.is_empty());
    let model = registry.find("openai", "gpt-5.4").unwrap();
    assert_eq!(model.model.base_url, "http://127.0.0.1:9/v1");
}

#[test]
fn an_unreadable_file_leaves_builtins_and_reports_a_load_problem() {
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir(home.path().join("models.json")).unwrap();
    let (registry, problems) = ModelRegistry::load(home.path());
    assert_eq!(registry.all(), builtin_models());
    let text = problems.iter().map(ToString::to_string).collect::<Vec<_>>();
    assert_eq!(text.len(), 1);
    let path = home.path().join("models.json");
    assert!(
        text[0].starts_with("Failed to load models.json: "),
        "{}",
        text[0]
    );
    assert!(
        text[0].ends_with(&format!("\n\nFile: {}", path.display())),
        "{}",
        text[0]
    );
}
