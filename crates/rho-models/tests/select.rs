#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Model selection (`--provider`/`--model`, the default model), thinking levels, and the
//! `--list-models` table.

use std::path::Path;
use std::sync::Arc;

use rho_ai::ThinkingLevel;
use rho_models::{
    AuthStore, MapEnvironment, ModelEntry, ModelError, ModelRegistry, Resolved,
    clamp_thinking_level, format_model_list, supported_thinking_levels,
};
use serde_json::Value;

/// One provider `acme` (API openai-completions) with the given models (JSON objects).
fn acme(models: &str) -> ModelRegistry {
    let text = format!(
        r#"{{"providers": {{"acme": {{"baseUrl": "https://acme.example/v1", "apiKey": "K",
            "api": "openai-completions", "models": {models}}}}}}}"#
    );
    let (registry, problems) = ModelRegistry::from_models_json(&text, Path::new("models.json"));
    assert!(problems.is_empty(), "{problems:?}");
    registry
}

fn reference(resolved: &Resolved) -> String {
    format!(
        "{}/{}",
        resolved.model.model.provider, resolved.model.model.id
    )
}

fn auth(vars: &[(&str, &str)]) -> AuthStore {
    let env = vars
        .iter()
        .fold(MapEnvironment::new(), |env, (name, value)| {
            env.with_var(*name, *value)
        });
    AuthStore::empty(Arc::new(env))
}

#[test]
fn exact_id_and_provider_slash_id_resolve_without_warning() {
    let registry = ModelRegistry::builtin();
    let by_id = registry.resolve_cli_model(None, "claude-opus-4-7").unwrap();
    let expected = Resolved {
        model: registry
            .find("anthropic", "claude-opus-4-7")
            .unwrap()
            .clone(),
        thinking_level: None,
        warning: None,
    };
    assert_eq!(by_id, expected);
    let by_reference = registry
        .resolve_cli_model(None, "anthropic/claude-opus-4-7")
        .unwrap();
    assert_eq!(by_reference, expected);
    let by_flag = registry
        .resolve_cli_model(Some("Anthropic"), "claude-opus-4-7")
        .unwrap();
    assert_eq!(by_flag, expected);
}

#[test]
fn fuzzy_match_prefers_aliases_over_dated_ids_then_the_highest_id() {
    let registry = acme(
        r#"[{"id": "turbo-1-20240101"}, {"id": "turbo-2-20250101"}, {"id": "turbo-1"},
            {"id": "turbo-1.5-latest"}, {"id": "other", "name": "Turbo Classic"}]"#,
    );
    let pick =
        |pattern: &str| reference(&registry.resolve_cli_model(Some("acme"), pattern).unwrap());
    // Aliases: turbo-1, turbo-1.5-latest, other (by name); highest id wins.
    assert_eq!(pick("turbo"), "acme/turbo-1.5-latest");
    assert_eq!(pick("TURBO-1"), "acme/turbo-1");
    assert_eq!(pick("urbo-1."), "acme/turbo-1.5-latest");
    // Only dated ids match: the latest date wins.
    assert_eq!(pick("-20"), "acme/turbo-2-20250101");
    assert_eq!(pick("classic"), "acme/other");
}

#[test]
fn a_thinking_suffix_is_split_off_only_when_the_whole_pattern_matches_nothing() {
    let registry = acme(r#"[{"id": "m1"}, {"id": "m2:high"}]"#);
    let resolved = registry.resolve_cli_model(None, "m1:high").unwrap();
    assert_eq!(reference(&resolved), "acme/m1");
    assert_eq!(resolved.thinking_level, Some(ThinkingLevel::High));
    assert_eq!(resolved.warning, None);
    let literal = registry.resolve_cli_model(None, "m2:high").unwrap();
    assert_eq!(reference(&literal), "acme/m2:high");
    assert_eq!(literal.thinking_level, None);
    assert_eq!(
        registry.resolve_cli_model(None, "m1:loud"),
        Err(ModelError::NotFound {
            model: "m1:loud".into()
        })
    );
}

#[test]
fn unknown_provider_and_unknown_model_have_pi_texts() {
    let registry = ModelRegistry::builtin();
    let unknown_provider = registry.resolve_cli_model(Some("nope"), "x").unwrap_err();
    assert_eq!(
        unknown_provider.to_string(),
        "Unknown provider \"nope\". Use --list-models to see available providers/models."
    );
    let unknown_model = registry
        .resolve_cli_model(None, "nonexistent-model")
        .unwrap_err();
    assert_eq!(
        unknown_model.to_string(),
        "Model \"nonexistent-model\" not found. Use --list-models to see available models."
    );
}

#[test]
fn an_unknown_id_of_a_known_provider_is_synthesised_from_its_default_model() {
    let registry = ModelRegistry::builtin();
    let resolved = registry
        .resolve_cli_model(Some("anthropic"), "claude-foo")
        .unwrap();
    let mut model = registry
        .find("anthropic", "claude-opus-4-7")
        .unwrap()
        .clone();
    model.model.id = "claude-foo".into();
    model.model.name = "claude-foo".into();
    let expected = Resolved {
        model,
        thinking_level: None,
        warning: Some(
            "Model \"claude-foo\" not found for provider \"anthropic\". Using custom model id."
                .into(),
        ),
    };
    assert_eq!(resolved, expected);
}

#[test]
fn an_empty_pattern_is_not_a_model() {
    let registry = ModelRegistry::builtin();
    assert_eq!(
        registry.resolve_cli_model(Some("openai"), ""),
        Err(ModelError::NotFound { model: "".into() })
    );
}

/// Pi 0.73.1's own `resolveCliModel` answers over the same catalog (its dist code run under
/// node on pi-ai 0.73.1's catalog filtered to rho's four APIs). Each line:
/// `[provider, pattern, "provider/id" | null, thinkingLevel | null, warning | null, error | null]`.
#[test]
fn resolution_matches_pi_on_recorded_cases() {
    let registry = ModelRegistry::builtin();
    let cases = include_str!("data/pi_resolve_cli_model.jsonl");
    let mut checked = 0;
    for line in cases.lines() {
        let case: Vec<Value> = serde_json::from_str(line).unwrap();
        let provider = case[0].as_str();
        let pattern = case[1].as_str().unwrap();
        let actual = match registry.resolve_cli_model(provider, pattern) {
            Ok(resolved) => vec![
                case[0].clone(),
                case[1].clone(),
                Value::String(reference(&resolved)),
                serde_json::to_value(resolved.thinking_level).unwrap(),
                serde_json::to_value(resolved.warning).unwrap(),
                Value::Null,
            ],
            Err(error) => vec![
                case[0].clone(),
                case[1].clone(),
                Value::Null,
                Value::Null,
                Value::Null,
                Value::String(error.to_string()),
            ],
        };
        assert_eq!(actual, case, "{line}");
        checked += 1;
    }
    assert_eq!(checked, 175);
}

#[test]
fn default_model_prefers_settings_then_provider_defaults_in_pi_order_then_the_first_available() {
    let registry = ModelRegistry::builtin();
    let keys = auth(&[("OPENAI_API_KEY", "k"), ("GEMINI_API_KEY", "k")]);
    let pick = |provider, model| {
        registry
            .default_model(&keys, provider, model)
            .map(|entry| format!("{}/{}", entry.model.provider, entry.model.id))
    };
    // Settings win, like Pi, even for a provider without a key.
    assert_eq!(
        pick(Some("anthropic"), Some("claude-sonnet-4-6")),
        Some("anthropic/claude-sonnet-4-6".into())
    );
    // Unknown settings model: openai comes before google in Pi's default table.
    assert_eq!(
        pick(Some("openai"), Some("nope")),
        Some("openai/gpt-5.4".into())
    );
    assert_eq!(pick(None, None), Some("openai/gpt-5.4".into()));

    let google_only = auth(&[("GEMINI_API_KEY", "k")]);
    let default = registry.default_model(&google_only, None, None).unwrap();
    assert_eq!(default.model.id, "gemini-3.1-pro-preview");
    assert_eq!(registry.default_model(&auth(&[]), None, None), None);
}

#[test]
fn default_model_falls_back_to_the_first_available_model() {
    let registry = acme(r#"[{"id": "b"}, {"id": "a"}]"#);
    let default = registry.default_model(&auth(&[]), None, None).unwrap();
    assert_eq!(default.model.id, "b");
}

fn entry(reasoning: bool, map: Option<Value>) -> ModelEntry {
    let mut entry = acme(r#"[{"id": "m"}]"#).find("acme", "m").unwrap().clone();
    entry.model.reasoning = reasoning;
    entry.thinking_level_map =
        map.map(|map| rho_models::ThinkingLevelMap::from_json(&map).unwrap());
    entry
}

#[test]
fn supported_levels_follow_reasoning_and_the_thinking_level_map() {
    use ThinkingLevel::*;
    assert_eq!(supported_thinking_levels(&entry(false, None)), vec![Off]);
    assert_eq!(
        supported_thinking_levels(&entry(true, None)),
        vec![Off, Minimal, Low, Medium, High]
    );
    let gemini = serde_json::json!({"off": null, "minimal": null, "low": "LOW", "medium": null, "high": "HIGH"});
    assert_eq!(
        supported_thinking_levels(&entry(true, Some(gemini))),
        vec![Low, High]
    );
    let gpt = serde_json::json!({"off": null, "xhigh": "xhigh"});
    assert_eq!(
        supported_thinking_levels(&entry(true, Some(gpt))),
        vec![Minimal, Low, Medium, High, Xhigh]
    );
    let opus = serde_json::json!({"xhigh": "xhigh", "max": "max"});
    assert_eq!(
        supported_thinking_levels(&entry(true, Some(opus))),
        vec![Off, Minimal, Low, Medium, High, Xhigh, Max]
    );
}

#[test]
fn clamping_picks_the_level_else_the_next_higher_else_the_next_lower() {
    use ThinkingLevel::*;
    let gemini = entry(
        true,
        Some(
            serde_json::json!({"off": null, "minimal": null, "low": "LOW", "medium": null, "high": "HIGH"}),
        ),
    );
    let cases = [
        (Off, Low),
        (Minimal, Low),
        (Low, Low),
        (Medium, High),
        (High, High),
        (Xhigh, High),
        (Max, High),
    ];
    for (requested, expected) in cases {
        assert_eq!(
            clamp_thinking_level(&gemini, requested),
            expected,
            "{requested:?}"
        );
    }
    assert_eq!(clamp_thinking_level(&entry(false, None), High), Off);
    assert_eq!(clamp_thinking_level(&entry(true, None), Xhigh), High);
    // `max` is supported only where the map gives it a value, like `xhigh`.
    let gpt = entry(true, Some(serde_json::json!({"xhigh": "xhigh"})));
    assert_eq!(clamp_thinking_level(&gpt, Max), Xhigh);
    let opus = entry(true, Some(serde_json::json!({"max": "max"})));
    assert_eq!(clamp_thinking_level(&opus, Max), Max);
    assert_eq!(clamp_thinking_level(&opus, Xhigh), Max);
}

#[test]
fn model_list_is_an_aligned_table_sorted_by_provider_then_id() {
    let registry = acme(
        r#"[{"id": "zeta", "contextWindow": 131072, "maxTokens": 999, "reasoning": true},
            {"id": "Alpha-1", "contextWindow": 1250, "maxTokens": 2000000, "input": ["text", "image"]}]"#,
    );
    let acme_models: Vec<&ModelEntry> = registry
        .all()
        .iter()
        .filter(|entry| entry.model.provider == "acme")
        .collect();
    let expected = "\
provider  model    context  max-out  thinking  images
acme      Alpha-1  1.3K     2M       no        yes   
acme      zeta     131.1K   999      yes       no    
";
    assert_eq!(
        format_model_list(acme_models.iter().copied(), None),
        expected
    );
    assert_eq!(
        format_model_list(acme_models.iter().copied(), Some("acme zt")),
        "\
provider  model  context  max-out  thinking  images
acme      zeta   131.1K   999      yes       no    
"
    );
    assert_eq!(
        format_model_list(acme_models.iter().copied(), Some("nothing")),
        "No models matching \"nothing\"\n"
    );
    assert_eq!(
        format_model_list(std::iter::empty(), None),
        "No models available. Set a provider API key (environment variable, auth.json or --api-key) or add models to models.json.\n"
    );
}

/// Pi 0.73.1's `listModels(registry, "sonnet")` output with every catalog model available.
#[test]
fn model_list_search_matches_pi_output() {
    let registry = ModelRegistry::builtin();
    assert_eq!(
        format_model_list(registry.all(), Some("sonnet")),
        include_str!("data/pi_list_models_sonnet.txt")
    );
}

#[test]
fn model_list_orders_ids_as_javascript_locale_compare_does() {
    // Node's `localeCompare` order: punctuation before letters, case decided last.
    let registry = acme(
        r#"[{"id": "ab"}, {"id": "a.b"}, {"id": "A-b"}, {"id": "a-b"}, {"id": "a_b"}, {"id": "a1"}]"#,
    );
    let acme_models = registry
        .all()
        .iter()
        .filter(|entry| entry.model.provider == "acme");
    let listed: Vec<String> = format_model_list(acme_models, None)
        .lines()
        .skip(1)
        .map(|line| line.split_whitespace().nth(1).unwrap().to_owned())
        .collect();
    assert_eq!(listed, ["a_b", "a-b", "A-b", "a.b", "a1", "ab"]);
}
