//! The exact bytes of the Gemini request body for representative contexts, pinned in
//! `tests/golden/` (`RHO_BLESS=1` rewrites them).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use rho_ai::{Context, Model, StreamOptions, ThinkingLevel};
use rho_google::request::google_request_body;
use rho_testkit::golden::{Signatures, check, context, foreign_history, own_history};

use crate::common::model;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn signatures(valid: bool) -> Signatures {
    let sig = |good: &str| Some(if valid { good } else { "not base64!" }.to_owned());
    Signatures {
        thinking: sig("c2lnbmF0dXJl"),
        text: sig("dGV4dA=="),
        tool_call: sig("Y2FsbA=="),
        redacted: None,
    }
}

fn with_id(id: &str) -> Model {
    Model {
        id: id.into(),
        ..model()
    }
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
        &google_request_body(model, context, options).unwrap(),
    );
}

#[test]
fn own_history_bodies_are_byte_for_byte_the_pinned_ones() {
    let pro = model();
    let own = context(own_history(&pro, &signatures(true)));
    pin(
        "gemini_2_5_own_history",
        &pro,
        &own,
        &options(Some(ThinkingLevel::Medium), Some(0.5)),
    );
    let own = context(own_history(&pro, &signatures(false)));
    pin(
        "gemini_2_5_invalid_signatures",
        &pro,
        &own,
        &options(None, None),
    );

    let three = with_id("gemini-3-pro-preview");
    let own = context(own_history(&three, &signatures(true)));
    pin(
        "gemini_3_own_history",
        &three,
        &own,
        &StreamOptions {
            max_tokens: Some(4096),
            ..options(None, Some(1.0))
        },
    );

    let flash = Model {
        reasoning: false,
        input: vec!["text".into()],
        max_tokens: 0,
        ..with_id("gemini-2.0-flash")
    };
    let own = context(own_history(&flash, &signatures(true)));
    pin(
        "gemini_2_text_only",
        &flash,
        &own,
        &options(Some(ThinkingLevel::High), Some(1.0)),
    );

    let gemma = with_id("gemma-4-27b-it");
    pin(
        "gemma_4_empty_context",
        &gemma,
        &Context::default(),
        &options(Some(ThinkingLevel::Low), None),
    );
}

#[test]
fn foreign_history_bodies_are_byte_for_byte_the_pinned_ones() {
    let pro = model();
    pin(
        "gemini_2_5_foreign_history",
        &pro,
        &context(foreign_history(&pro)),
        &StreamOptions::default(),
    );
    let claude = with_id("claude-sonnet-4-5");
    let own = context(own_history(&claude, &signatures(true)));
    pin(
        "claude_own_history",
        &claude,
        &own,
        &StreamOptions::default(),
    );
    pin(
        "claude_foreign_history",
        &claude,
        &context(foreign_history(&claude)),
        &StreamOptions::default(),
    );
    let flash3 = with_id("gemini-3-flash-preview");
    pin(
        "gemini_3_flash_foreign_history",
        &flash3,
        &context(foreign_history(&flash3)),
        &options(None, None),
    );
}
