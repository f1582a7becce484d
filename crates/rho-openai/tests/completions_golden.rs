//! The exact bytes of the Chat Completions request body for representative contexts and compat
//! switches, pinned in `tests/golden/completions/` (`RHO_BLESS=1` rewrites them).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::Arc;

use rho_ai::{Context, Model, StopReason, StreamOptions, ThinkingLevel};
use rho_openai::completions::request::completions_request_body;
use rho_testkit::golden::{
    Signatures, assistant, author, call, check, context, foreign_history, own_history, text,
    tool_result, user_text,
};
use serde_json::{Value, json};

use crate::common::model;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/completions")
}

fn signatures(reasoning_field: &str) -> Signatures {
    Signatures {
        thinking: Some(reasoning_field.into()),
        text: None,
        tool_call: Some(r#"{"type":"reasoning.encrypted","id":"call_1","data":"opaque"}"#.into()),
        redacted: None,
    }
}

fn at(provider: &str, id: &str, base_url: &str, compat: Option<Value>) -> Model {
    Model {
        base_url: base_url.into(),
        compat,
        ..model(provider, id)
    }
}

fn vision(mut model: Model) -> Model {
    model.input = vec!["text".into(), "image".into()];
    model
}

fn options(reasoning: Option<ThinkingLevel>, temperature: Option<f64>) -> StreamOptions {
    StreamOptions {
        reasoning,
        temperature,
        ..StreamOptions::default()
    }
}

fn pin(name: &str, model: &Model, context: &Context, options: &StreamOptions) {
    check(
        &dir(),
        name,
        &completions_request_body(model, context, options).unwrap(),
    );
}

#[test]
fn openai_bodies_are_byte_for_byte_the_pinned_ones() {
    let gpt = vision(at(
        "openai",
        "gpt-5-mini",
        "https://api.openai.com/v1",
        None,
    ));
    let own = context(own_history(&gpt, &signatures("reasoning_content")));
    let opts = StreamOptions {
        session_id: Some("session-1".into()),
        ..options(Some(ThinkingLevel::Medium), Some(0.5))
    };
    pin("openai_own_history", &gpt, &own, &opts);
    pin(
        "openai_foreign_history",
        &gpt,
        &context(foreign_history(&gpt)),
        &options(None, Some(1.0)),
    );

    let plain = Model {
        reasoning: false,
        ..at("openai", "gpt-4o", "https://api.openai.com/v1", None)
    };
    let own = context(own_history(&plain, &signatures("reasoning")));
    pin(
        "non_reasoning_text_only_model",
        &plain,
        &own,
        &options(Some(ThinkingLevel::High), None),
    );
    pin(
        "empty_context",
        &gpt,
        &Context::default(),
        &StreamOptions::default(),
    );
}

#[test]
fn compat_variants_are_byte_for_byte_the_pinned_ones() {
    let mistral = at(
        "mistral",
        "mistral-large",
        "https://api.mistral.ai/v1",
        None,
    );
    let own = context(own_history(&mistral, &signatures("reasoning_content")));
    pin(
        "mistral_own_history",
        &mistral,
        &own,
        &options(Some(ThinkingLevel::Low), Some(0.3)),
    );

    let deepseek = at(
        "deepseek",
        "deepseek-reasoner",
        "https://api.deepseek.com",
        None,
    );
    let own = context(own_history(&deepseek, &signatures("reasoning")));
    pin(
        "deepseek_own_history",
        &deepseek,
        &own,
        &options(Some(ThinkingLevel::Xhigh), None),
    );
    pin(
        "deepseek_thinking_off",
        &deepseek,
        &own,
        &options(None, None),
    );

    let zai = at("zai", "glm-4.6", "https://api.z.ai/api/paas/v4", None);
    let own = context(own_history(&zai, &signatures("reasoning_text")));
    pin("zai_own_history", &zai, &own, &options(None, Some(1.0)));

    let qwen = vision(at(
        "custom",
        "qwen3",
        "http://localhost:8080/v1",
        Some(json!({
            "thinkingFormat": "qwen-chat-template",
            "requiresAssistantAfterToolResult": true,
            "supportsStrictMode": false,
            "supportsUsageInStreaming": false,
            "supportsStore": false,
            "maxTokensField": "max_tokens",
            "requiresThinkingAsText": true,
        })),
    ));
    let own = context(own_history(&qwen, &signatures("reasoning_content")));
    pin(
        "qwen_chat_template_own_history",
        &qwen,
        &own,
        &options(Some(ThinkingLevel::Minimal), Some(0.25)),
    );
    pin(
        "qwen_chat_template_foreign_history",
        &qwen,
        &context(foreign_history(&qwen)),
        &options(None, None),
    );

    let qwen_plain = at(
        "custom",
        "qwen3",
        "http://localhost:8080/v1",
        Some(json!({"thinkingFormat": "qwen"})),
    );
    pin(
        "qwen_enable_thinking",
        &qwen_plain,
        &Context::default(),
        &options(Some(ThinkingLevel::High), None),
    );

    let router = at(
        "openrouter",
        "anthropic/claude-sonnet-4.5",
        "https://openrouter.ai/api/v1",
        Some(json!({"reasoningEffortMap": {"high": "max"}, "requiresToolResultName": true})),
    );
    let own = context(own_history(&router, &signatures("reasoning")));
    pin(
        "openrouter_own_history",
        &router,
        &own,
        &options(None, None),
    );
    pin(
        "openrouter_effort_map",
        &router,
        &own,
        &options(Some(ThinkingLevel::High), Some(0.1)),
    );
}

#[test]
fn tool_history_without_tools_is_byte_for_byte_the_pinned_one() {
    let gpt = at("openai", "gpt-5-mini", "https://api.openai.com/v1", None);
    let me = author(&gpt);
    let no_tools = Context {
        system_prompt: Some("sys".into()),
        messages: Arc::new(vec![
            user_text("Read it."),
            assistant(
                me,
                vec![call("call_1", "read", json!({"path": "a"}), None)],
                StopReason::ToolUse,
            ),
            tool_result("call_1", "read", vec![text("a")], false),
            user_text("Now without tools."),
        ]),
        tools: Arc::from(Vec::new()),
    };
    pin(
        "tool_history_without_tools",
        &gpt,
        &no_tools,
        &StreamOptions::default(),
    );
}
