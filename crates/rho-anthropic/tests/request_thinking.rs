//! Reasoning in the Anthropic request: budgets per level, adaptive effort, disabled thinking,
//! and `temperature` only while thinking is off.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{assert_json, model};
use rho_ai::{Context, Model, StreamOptions, ThinkingLevel};
use rho_anthropic::{anthropic_headers, to_anthropic_request};
use serde_json::json;

fn reasoning(level: Option<ThinkingLevel>) -> StreamOptions {
    StreamOptions {
        reasoning: level,
        temperature: Some(0.5),
        ..StreamOptions::default()
    }
}

#[test]
fn thinking_budgets_follow_the_level_and_shrink_to_fit_a_small_model() {
    let m = model();
    let ctx = Context::default();
    let plan = |model: &Model, level| {
        let body = to_anthropic_request(model, &ctx, &reasoning(Some(level)));
        (body["max_tokens"].clone(), body["thinking"].clone())
    };
    let enabled =
        |budget: u64| json!({"type": "enabled", "budget_tokens": budget, "display": "summarized"});
    let cases = [
        (ThinkingLevel::Minimal, 1024),
        (ThinkingLevel::Low, 2048),
        (ThinkingLevel::Medium, 8192),
        (ThinkingLevel::High, 16384),
        (ThinkingLevel::Xhigh, 16384),
    ];
    for (level, budget) in cases {
        assert_eq!(
            plan(&m, level),
            (json!(32000 + budget), enabled(budget)),
            "{level:?}"
        );
    }
    // A model capped at 8192 output tokens: the cap holds and the budget leaves 1024 to answer.
    let small = Model {
        max_tokens: 8192,
        ..model()
    };
    assert_eq!(
        plan(&small, ThinkingLevel::High),
        (json!(8192), enabled(7168))
    );
    // An explicit maxTokens is the base the budget is added to.
    let body = to_anthropic_request(
        &m,
        &ctx,
        &StreamOptions {
            max_tokens: Some(1000),
            reasoning: Some(ThinkingLevel::Low),
            ..StreamOptions::default()
        },
    );
    assert_eq!(body["max_tokens"], json!(3048));
}

#[test]
fn adaptive_models_get_an_effort_instead_of_a_budget_and_no_interleaved_beta() {
    let opus = Model {
        id: "claude-opus-4-6".into(),
        ..model()
    };
    let ctx = Context::default();
    let body = to_anthropic_request(&opus, &ctx, &reasoning(Some(ThinkingLevel::Minimal)));
    assert_json(
        &body,
        &json!({
            "model": "claude-opus-4-6", "messages": [], "max_tokens": 32000, "stream": true,
            "thinking": {"type": "adaptive", "display": "summarized"},
            "output_config": {"effort": "low"},
        }),
    );
    for (level, effort) in [
        (ThinkingLevel::Medium, "medium"),
        (ThinkingLevel::High, "high"),
        (ThinkingLevel::Xhigh, "high"),
    ] {
        let body = to_anthropic_request(&opus, &ctx, &reasoning(Some(level)));
        assert_eq!(body["output_config"], json!({"effort": effort}));
    }
    assert_eq!(
        anthropic_headers(
            &opus,
            &ctx,
            &reasoning(Some(ThinkingLevel::High)),
            "sk-test"
        ),
        vec![
            ("x-api-key".to_owned(), "sk-test".to_owned()),
            ("anthropic-version".to_owned(), "2023-06-01".to_owned()),
        ]
    );
}

#[test]
fn without_reasoning_thinking_is_disabled_and_temperature_is_sent() {
    let ctx = Context::default();
    for level in [None, Some(ThinkingLevel::Off)] {
        let body = to_anthropic_request(&model(), &ctx, &reasoning(level));
        assert_json(
            &body,
            &json!({"model": "claude-sonnet-4-5", "messages": [], "max_tokens": 32000,
                    "stream": true, "temperature": 0.5, "thinking": {"type": "disabled"}}),
        );
    }
    // A model that cannot reason gets no thinking field at all, whatever the level.
    let plain = Model {
        reasoning: false,
        ..model()
    };
    let body = to_anthropic_request(&plain, &ctx, &reasoning(Some(ThinkingLevel::High)));
    assert_json(
        &body,
        &json!({"model": "claude-sonnet-4-5", "messages": [], "max_tokens": 32000,
                "stream": true, "temperature": 0.5}),
    );
}
