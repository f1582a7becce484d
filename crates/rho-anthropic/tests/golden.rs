//! The exact bytes of the request body for representative contexts, pinned in `tests/golden/`
//! (`RHO_BLESS=1` rewrites them): key order, escaping, numbers, cache breakpoints.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::Arc;

use rho_ai::{Context, Model, ProviderBlock, StopReason, StreamOptions, ThinkingLevel};
use rho_anthropic::convert::CacheRetention;
use rho_anthropic::request::anthropic_request_body;
use rho_testkit::golden::{
    Signatures, assistant, assistant_with, author, call, check, context, foreign_history,
    own_history, text, thinking, tool_result, user_text,
};
use serde_json::{Value, json};

use crate::common::model;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn signatures() -> Signatures {
    Signatures {
        thinking: Some("sig-own-1".into()),
        text: None,
        tool_call: None,
        redacted: Some("redacted-payload".into()),
    }
}

fn options(reasoning: Option<ThinkingLevel>, temperature: Option<f64>) -> StreamOptions {
    StreamOptions {
        reasoning,
        temperature,
        ..StreamOptions::default()
    }
}

fn with_id(id: &str) -> Model {
    Model {
        id: id.into(),
        ..model()
    }
}

fn text_only() -> Model {
    Model {
        id: "claude-3-5-haiku".into(),
        reasoning: false,
        input: vec!["text".into()],
        compat: Some(json!({"supportsEagerToolInputStreaming": false})),
        ..model()
    }
}

fn body(
    model: &Model,
    context: &Context,
    options: &StreamOptions,
    cache: CacheRetention,
) -> Vec<u8> {
    anthropic_request_body(model, context, options, cache).unwrap()
}

#[test]
fn own_history_bodies_are_byte_for_byte_the_pinned_ones() {
    let sonnet = model();
    let own = context(own_history(&sonnet, &signatures()));
    let medium = options(Some(ThinkingLevel::Medium), Some(0.5));
    check(
        &dir(),
        "own_history_thinking_short_cache",
        &body(&sonnet, &own, &medium, CacheRetention::Short),
    );
    let plain = StreamOptions {
        max_tokens: Some(1000),
        ..options(None, Some(0.7))
    };
    check(
        &dir(),
        "own_history_long_cache",
        &body(&sonnet, &own, &plain, CacheRetention::Long),
    );

    let opus = with_id("claude-opus-4-6");
    let own = context(own_history(&opus, &signatures()));
    let high = options(Some(ThinkingLevel::High), None);
    check(
        &dir(),
        "own_history_adaptive_no_cache",
        &body(&opus, &own, &high, CacheRetention::None),
    );

    let haiku = text_only();
    let own = context(own_history(&haiku, &signatures()));
    check(
        &dir(),
        "own_history_text_only_model",
        &body(
            &haiku,
            &own,
            &options(None, Some(1.0)),
            CacheRetention::Short,
        ),
    );
}

#[test]
fn foreign_history_bodies_are_byte_for_byte_the_pinned_ones() {
    let sonnet = model();
    let foreign = context(foreign_history(&sonnet));
    check(
        &dir(),
        "foreign_history",
        &body(
            &sonnet,
            &foreign,
            &StreamOptions::default(),
            CacheRetention::Short,
        ),
    );
    let haiku = text_only();
    let foreign = context(foreign_history(&haiku));
    check(
        &dir(),
        "foreign_history_text_only_model",
        &body(
            &haiku,
            &foreign,
            &StreamOptions::default(),
            CacheRetention::None,
        ),
    );
}

#[test]
fn cache_breakpoints_and_server_blocks_are_byte_for_byte_the_pinned_ones() {
    let sonnet = model();
    let me = author(&sonnet);
    let default = StreamOptions::default();
    let only_string = Context {
        system_prompt: None,
        messages: Arc::new(vec![user_text("Hi")]),
        tools: Arc::from(Vec::new()),
    };
    check(
        &dir(),
        "last_user_string",
        &body(&sonnet, &only_string, &default, CacheRetention::Short),
    );

    let results_last = context(vec![
        user_text("Read both."),
        assistant(
            me,
            vec![
                call("toolu_1", "read", json!({"path": "a"}), None),
                call("toolu_2", "read", json!({"path": "b"}), None),
            ],
            StopReason::ToolUse,
        ),
        tool_result("toolu_1", "read", vec![text("a")], false),
        tool_result("toolu_2", "read", vec![text("b")], true),
    ]);
    check(
        &dir(),
        "last_tool_results",
        &body(&sonnet, &results_last, &default, CacheRetention::Long),
    );

    let block = |position: usize, value: Value| ProviderBlock {
        position,
        block: Arc::new(value),
    };
    let assistant_last = context(vec![
        user_text("Search the web."),
        assistant_with(
            me,
            vec![
                thinking("Searching.", Some("sig-search")),
                text("Found it."),
            ],
            StopReason::Stop,
            vec![
                block(
                    1,
                    json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "rho"}}),
                ),
                block(
                    1,
                    json!({"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []}),
                ),
                block(
                    9,
                    json!({"type": "text", "text": "trailing", "citations": null}),
                ),
            ],
        ),
    ]);
    check(
        &dir(),
        "last_assistant_with_server_blocks",
        &body(&sonnet, &assistant_last, &default, CacheRetention::Short),
    );

    check(
        &dir(),
        "empty_context",
        &body(
            &sonnet,
            &Context::default(),
            &default,
            CacheRetention::Short,
        ),
    );
}
