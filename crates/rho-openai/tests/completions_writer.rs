//! A conversation's writer reuses the text of messages written by its earlier requests; every
//! body it sends must be byte for byte the body written from scratch.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_ai::{Context, Message, Model, StreamOptions, ThinkingLevel};
use rho_openai::completions::{CompletionsWriter, completions_request_body};
use rho_testkit::golden::{Signatures, context, foreign_history, own_history, user_text};
use serde_json::json;

use crate::common::model;

fn models() -> Vec<Model> {
    let openai = Model {
        base_url: "https://api.openai.com/v1".into(),
        input: vec!["text".into(), "image".into()],
        ..model("openai", "gpt-5-mini")
    };
    let bridged = Model {
        input: vec!["text".into(), "image".into()],
        compat: Some(json!({
            "requiresAssistantAfterToolResult": true,
            "requiresThinkingAsText": true,
            "requiresToolResultName": true,
        })),
        ..model("custom", "qwen3")
    };
    let mistral = Model {
        base_url: "https://api.mistral.ai/v1".into(),
        ..model("mistral", "mistral-large")
    };
    vec![openai, bridged, mistral]
}

fn signatures() -> Signatures {
    Signatures {
        thinking: Some("reasoning_content".into()),
        text: None,
        tool_call: Some(r#"{"type":"reasoning.encrypted","data":"x"}"#.into()),
        redacted: None,
    }
}

/// Every prefix of `history`, in order, through one writer: each body equals a fresh one.
fn check_growing(writer: &mut CompletionsWriter, model: &Model, history: &[Message]) {
    let options = StreamOptions {
        reasoning: Some(ThinkingLevel::Medium),
        ..StreamOptions::default()
    };
    for end in 1..=history.len() {
        let context: Context = context(history[..end].to_vec());
        let sent = writer.body(model, &context, &options).unwrap();
        let fresh = completions_request_body(model, &context, &options).unwrap();
        assert!(
            sent == fresh,
            "{} messages for {}: {}\n!=\n{}",
            end,
            model.id,
            String::from_utf8_lossy(&sent),
            String::from_utf8_lossy(&fresh)
        );
    }
}

#[test]
fn every_body_of_a_growing_conversation_is_the_one_written_from_scratch() {
    for model in models() {
        let mut writer = CompletionsWriter::default();
        let mut history = own_history(&model, &signatures());
        history.extend(foreign_history(&model));
        check_growing(&mut writer, &model, &history);
    }
}

#[test]
fn rewritten_history_and_another_model_are_written_anew() {
    let models = models();
    let mut writer = CompletionsWriter::default();
    let history = own_history(&models[0], &signatures());
    check_growing(&mut writer, &models[0], &history);
    // Compaction: the same tail behind a new first message.
    let mut compacted = vec![user_text("Summary of the earlier conversation.")];
    compacted.extend(history[history.len() - 4..].iter().cloned());
    check_growing(&mut writer, &models[0], &compacted);
    // The same conversation continued on a model with other compat switches.
    check_growing(&mut writer, &models[1], &history);
}
