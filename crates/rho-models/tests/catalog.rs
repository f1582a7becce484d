#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The built-in catalog: generated from Pi 0.73.1's pi-ai catalog, four APIs.

use rho_ai::{Model, ModelCost, ThinkingLevel};
use rho_models::catalog::{builtin_providers, is_builtin_provider};
use rho_models::providers::{DEFAULT_MODEL_PER_PROVIDER, api_key_env_vars, default_model_id};
use rho_models::{ModelEntry, ThinkingLevelMap, builtin_models};
use serde_json::json;

fn builtin(provider: &str, id: &str) -> ModelEntry {
    builtin_models()
        .iter()
        .find(|entry| entry.model.provider == provider && entry.model.id == id)
        .cloned()
        .unwrap_or_else(|| panic!("{provider}/{id} is not in the catalog"))
}

fn levels(map: serde_json::Value) -> Option<ThinkingLevelMap> {
    Some(ThinkingLevelMap::from_json(&map).unwrap())
}

#[test]
fn catalog_holds_every_pi_model_of_the_four_supported_apis() {
    let models = builtin_models();
    assert_eq!(models.len(), 783);
    let supported = [
        "anthropic-messages",
        "openai-completions",
        "openai-responses",
        "google-generative-ai",
    ];
    let unsupported: Vec<&str> = models
        .iter()
        .map(|entry| entry.model.api.as_str())
        .filter(|api| !supported.contains(api))
        .collect();
    assert_eq!(unsupported, Vec::<&str>::new());
}

#[test]
fn catalog_keeps_pi_provider_order() {
    let expected = [
        "anthropic",
        "cerebras",
        "cloudflare-ai-gateway",
        "cloudflare-workers-ai",
        "deepseek",
        "fireworks",
        "github-copilot",
        "google",
        "groq",
        "huggingface",
        "kimi-coding",
        "minimax",
        "minimax-cn",
        "moonshotai",
        "moonshotai-cn",
        "openai",
        "opencode",
        "opencode-go",
        "openrouter",
        "vercel-ai-gateway",
        "xai",
        "xiaomi",
        "xiaomi-token-plan-ams",
        "xiaomi-token-plan-cn",
        "xiaomi-token-plan-sgp",
        "zai",
    ];
    assert_eq!(builtin_providers(), expected);
    assert_eq!(builtin_models()[0].model.id, "claude-3-5-haiku-20241022");
}

#[test]
fn every_default_model_of_a_builtin_provider_is_in_the_catalog() {
    let mut providers_without_catalog = Vec::new();
    for (provider, id) in DEFAULT_MODEL_PER_PROVIDER {
        if is_builtin_provider(provider) {
            assert_eq!(builtin(provider, id).model.id, *id);
        } else {
            providers_without_catalog.push(*provider);
        }
    }
    // Pi's providers whose APIs rho does not speak.
    let expected = [
        "amazon-bedrock",
        "azure-openai-responses",
        "openai-codex",
        "google-vertex",
        "mistral",
    ];
    assert_eq!(providers_without_catalog, expected);
    assert_eq!(default_model_id("anthropic"), Some("claude-opus-4-7"));
    assert_eq!(default_model_id("openai"), Some("gpt-5.4"));
    assert_eq!(default_model_id("google"), Some("gemini-3.1-pro-preview"));
    assert_eq!(default_model_id("local"), None);
}

#[test]
fn claude_opus_4_7_has_pi_facts() {
    let expected = ModelEntry {
        model: Model {
            id: "claude-opus-4-7".into(),
            name: "Claude Opus 4.7".into(),
            api: "anthropic-messages".into(),
            provider: "anthropic".into(),
            base_url: "https://api.anthropic.com".into(),
            reasoning: true,
            input: vec!["text".into(), "image".into()],
            cost: ModelCost {
                input: 5.0,
                output: 25.0,
                cache_read: 0.5,
                cache_write: 6.25,
            },
            context_window: 1_000_000,
            max_tokens: 128_000,
            headers: None,
            compat: None,
        },
        thinking_level_map: levels(json!({"xhigh": "xhigh"})),
    };
    assert_eq!(builtin("anthropic", "claude-opus-4-7"), expected);
}

#[test]
fn gpt_5_4_has_pi_facts() {
    let expected = ModelEntry {
        model: Model {
            id: "gpt-5.4".into(),
            name: "GPT-5.4".into(),
            api: "openai-responses".into(),
            provider: "openai".into(),
            base_url: "https://api.openai.com/v1".into(),
            reasoning: true,
            input: vec!["text".into(), "image".into()],
            cost: ModelCost {
                input: 2.5,
                output: 15.0,
                cache_read: 0.25,
                cache_write: 0.0,
            },
            context_window: 272_000,
            max_tokens: 128_000,
            headers: None,
            compat: None,
        },
        thinking_level_map: levels(json!({"off": null, "xhigh": "xhigh"})),
    };
    assert_eq!(builtin("openai", "gpt-5.4"), expected);
}

#[test]
fn gemini_3_1_pro_preview_has_pi_facts() {
    let expected = ModelEntry {
        model: Model {
            id: "gemini-3.1-pro-preview".into(),
            name: "Gemini 3.1 Pro Preview".into(),
            api: "google-generative-ai".into(),
            provider: "google".into(),
            base_url: "https://generativelanguage.googleapis.com/v1beta".into(),
            reasoning: true,
            input: vec!["text".into(), "image".into()],
            cost: ModelCost {
                input: 2.0,
                output: 12.0,
                cache_read: 0.2,
                cache_write: 0.0,
            },
            context_window: 1_048_576,
            max_tokens: 65_536,
            headers: None,
            compat: None,
        },
        thinking_level_map: levels(
            json!({"off": null, "minimal": null, "low": "LOW", "medium": null, "high": "HIGH"}),
        ),
    };
    assert_eq!(builtin("google", "gemini-3.1-pro-preview"), expected);
}

#[test]
fn catalog_prices_keep_every_digit_of_pi_numbers() {
    // 0.44999999999999996 is a different f64 from 0.45; a lossy float parser would merge them.
    let model = builtin("openrouter", "alibaba/tongyi-deepresearch-30b-a3b").model;
    assert_eq!(model.cost.output, 0.449_999_999_999_999_96);
    assert_ne!(model.cost.output, 0.45);
}

#[test]
fn catalog_models_carry_pi_headers_and_compat() {
    let kimi = builtin("kimi-coding", "kimi-for-coding").model;
    assert_eq!(kimi.headers, Some(json!({"User-Agent": "KimiCLI/1.5"})));
    let deepseek = builtin("deepseek", "deepseek-v4-pro").model;
    assert_eq!(
        deepseek.compat,
        Some(
            json!({"requiresReasoningContentOnAssistantMessages": true, "thinkingFormat": "deepseek"})
        )
    );
}

#[test]
fn thinking_level_map_reads_strings_nulls_and_skips_the_rest() {
    let map =
        ThinkingLevelMap::from_json(&json!({"off": null, "high": "HIGH", "bogus": "x", "low": 3}))
            .unwrap();
    assert_eq!(map.get(ThinkingLevel::Off), Some(None));
    assert_eq!(map.get(ThinkingLevel::High), Some(Some("HIGH")));
    assert_eq!(map.get(ThinkingLevel::Low), None);
    assert_eq!(map.to_json(), json!({"off": null, "high": "HIGH"}));
    assert_eq!(ThinkingLevelMap::from_json(&json!([1])), None);
}

#[test]
fn key_variables_follow_pi_table() {
    assert_eq!(
        api_key_env_vars("anthropic"),
        ["ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"]
    );
    assert_eq!(api_key_env_vars("openai"), ["OPENAI_API_KEY"]);
    assert_eq!(api_key_env_vars("google"), ["GEMINI_API_KEY"]);
    assert_eq!(api_key_env_vars("openrouter"), ["OPENROUTER_API_KEY"]);
    assert_eq!(api_key_env_vars("zai"), ["ZAI_API_KEY"]);
    assert_eq!(api_key_env_vars("local"), [] as [&str; 0]);
}
