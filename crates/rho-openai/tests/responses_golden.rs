//! The exact bytes of the Responses request body for representative contexts, pinned in
//! `tests/golden/responses/` (`RHO_BLESS=1` rewrites them).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::Arc;

use rho_ai::{Context, Model, StopReason, StreamOptions, ThinkingLevel};
use rho_openai::responses::request::responses_request_body;
use rho_testkit::golden::{
    Signatures, assistant, author, call, check, context, foreign_history, own_history, signed_text,
    text, thinking, tool_result, user_text,
};
use serde_json::json;

use crate::responses_common::model;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/responses")
}

fn signatures() -> Signatures {
    Signatures {
        thinking: Some(
            r#"{"type":"reasoning","id":"rs_own","summary":[{"type":"summary_text","text":"S"}],"encrypted_content":"gAAAA"}"#
                .into(),
        ),
        text: Some(r#"{"v":1,"id":"msg_own","phase":"final_answer"}"#.into()),
        tool_call: None,
        redacted: None,
    }
}

fn vision(mut model: Model) -> Model {
    model.input = vec!["text".into(), "image".into()];
    model
}

fn pin(name: &str, model: &Model, context: &Context, options: &StreamOptions) {
    check(
        &dir(),
        name,
        &responses_request_body(model, context, options).unwrap(),
    );
}

#[test]
fn own_history_bodies_are_byte_for_byte_the_pinned_ones() {
    let gpt = vision(model("openai", "gpt-5"));
    let own = context(own_history(&gpt, &signatures()));
    let opts = StreamOptions {
        reasoning: Some(ThinkingLevel::High),
        session_id: Some("session-1".into()),
        temperature: Some(0.25),
        max_tokens: Some(2048),
        ..StreamOptions::default()
    };
    pin("own_history", &gpt, &own, &opts);
    pin(
        "own_history_reasoning_off",
        &gpt,
        &own,
        &StreamOptions::default(),
    );

    let copilot = model("github-copilot", "gpt-5");
    let own = context(own_history(&copilot, &signatures()));
    pin(
        "copilot_reasoning_off",
        &copilot,
        &own,
        &StreamOptions::default(),
    );

    let plain = Model {
        reasoning: false,
        ..model("openai", "gpt-4.1")
    };
    let own = context(own_history(&plain, &signatures()));
    let opts = StreamOptions {
        temperature: Some(1.0),
        ..StreamOptions::default()
    };
    pin("text_only_non_reasoning", &plain, &own, &opts);
    pin(
        "empty_context",
        &gpt,
        &Context::default(),
        &StreamOptions::default(),
    );
}

#[test]
fn ids_and_signatures_are_byte_for_byte_the_pinned_ones() {
    let gpt = vision(model("openai", "gpt-5"));
    pin(
        "foreign_history_openai",
        &gpt,
        &context(foreign_history(&gpt)),
        &StreamOptions::default(),
    );
    let router = model("openrouter", "openai/gpt-5");
    pin(
        "foreign_history_openrouter",
        &router,
        &context(foreign_history(&router)),
        &StreamOptions::default(),
    );

    let me = author(&gpt);
    let long_id = format!("msg_{}", "z".repeat(70));
    let items = context(vec![
        user_text("Go."),
        assistant(
            me,
            vec![
                thinking("Not JSON.", Some("not json")),
                signed_text("Legacy id.", Some("msg_legacy")),
                signed_text("Too long.", Some(&long_id)),
                signed_text(
                    "Other phase.",
                    Some(r#"{"v":1,"id":"msg_p","phase":"other"}"#),
                ),
                call("call_a|fc_a", "read", json!({"path": "a"}), None),
                call("call_b|fc_b", "ls", json!({}), None),
            ],
            StopReason::ToolUse,
        ),
        tool_result("call_a|fc_a", "read", vec![text("a")], false),
        tool_result("call_b|fc_b", "ls", vec![], true),
    ]);
    pin("own_item_ids", &gpt, &items, &StreamOptions::default());
    let no_system = Context {
        system_prompt: None,
        tools: Arc::from(Vec::new()),
        ..items
    };
    pin(
        "own_item_ids_no_system_no_tools",
        &gpt,
        &no_system,
        &StreamOptions::default(),
    );
}
