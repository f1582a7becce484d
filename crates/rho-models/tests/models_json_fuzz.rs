#![allow(clippy::unwrap_used, clippy::expect_used)]
//! No `models.json` content makes loading panic: it applies, or leaves the built-in models and
//! one problem.

use std::path::Path;

use proptest::prelude::*;
use rho_models::{ModelRegistry, builtin_models};
use serde_json::json;

const PATH: &str = "/home/u/.rho/models.json";

/// JSON values shaped like `models.json` fragments, with wrong types mixed in.
fn value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(json!(null)),
        any::<bool>().prop_map(|b| json!(b)),
        (-3i64..200_000).prop_map(|n| json!(n)),
        prop::sample::select(vec![
            "",
            "m",
            "text",
            "image",
            "openai-completions",
            "http://localhost/v1",
            "!false",
            "max",
        ])
        .prop_map(|s| json!(s)),
    ];
    let keys = prop::sample::select(vec![
        "providers",
        "x",
        "anthropic",
        "models",
        "modelOverrides",
        "id",
        "name",
        "api",
        "baseUrl",
        "apiKey",
        "headers",
        "compat",
        "authHeader",
        "cost",
        "input",
        "output",
        "contextWindow",
        "maxTokens",
        "thinkingLevelMap",
        "off",
        "xhigh",
        "reasoning",
        "claude-opus-4-7",
        "openRouterRouting",
        "supportsStore",
    ]);
    leaf.prop_recursive(5, 64, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(serde_json::Value::Array),
            prop::collection::vec((keys.clone(), inner), 0..5).prop_map(|pairs| {
                serde_json::Value::Object(
                    pairs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
                )
            }),
        ]
    })
}

proptest! {
    #[test]
    fn any_json_shape_loads_without_panicking(root in value()) {
        let text = json!({"providers": root}).to_string();
        let (registry, problems) = ModelRegistry::from_models_json(&text, Path::new(PATH));
        // Either the file applied, or only the built-ins remain with one problem.
        prop_assert!(problems.len() <= 1);
        if !problems.is_empty() {
            prop_assert_eq!(registry.all(), builtin_models());
        }
    }

    #[test]
    fn any_text_loads_without_panicking(text in "\\PC{0,200}") {
        let (_, problems) = ModelRegistry::from_models_json(&text, Path::new(PATH));
        prop_assert!(problems.len() <= 1);
    }
}
