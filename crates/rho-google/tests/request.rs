//! The request body Pi's `@google/genai` call sends, key for key and in the SDK's key order:
//! contents with replayed thoughts, signatures and function calls, merged function responses,
//! the system instruction, function declarations and the generation config.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::Arc;

use common::model;
use rho_ai::{
    AssistantMessage, ContentBlock, Context, ImageContent, Message, Model, StopReason,
    StreamOptions, TextContent, ThinkingContent, ThinkingLevel, ToolCall, ToolResultMessage,
    ToolSpec, UserContent, UserMessage,
};
use rho_google::{google_headers, stream_url, to_google_request};
use serde_json::{Value, json};

fn assert_json(actual: &Value, expected: &Value) {
    assert_eq!(
        serde_json::to_string_pretty(actual).unwrap(),
        serde_json::to_string_pretty(expected).unwrap()
    );
}

fn user(blocks: Vec<ContentBlock>) -> Message {
    Message::User(Arc::new(UserMessage {
        content: UserContent::Blocks(blocks),
        timestamp: 1,
    }))
}

fn assistant(from: &Model, content: Vec<ContentBlock>, stop: StopReason) -> Message {
    Message::Assistant(Arc::new(AssistantMessage {
        content,
        stop_reason: stop,
        ..AssistantMessage::empty(&from.api, &from.provider, &from.id)
    }))
}

fn result(id: &str, content: Vec<ContentBlock>, is_error: bool) -> Message {
    Message::ToolResult(Arc::new(ToolResultMessage {
        tool_call_id: id.into(),
        tool_name: "lookup".into(),
        content,
        details: None,
        is_error,
        duration_ms: None,
        usage: None,
        timestamp: 2,
    }))
}

fn text(text: &str, signature: Option<&str>) -> ContentBlock {
    ContentBlock::Text(TextContent {
        text: text.into(),
        text_signature: signature.map(Into::into),
    })
}

fn call(id: &str, key: &str, signature: Option<&str>) -> ContentBlock {
    ContentBlock::ToolCall(ToolCall {
        id: id.into(),
        name: "lookup".into(),
        arguments: json!({"key": key}),
        thought_signature: signature.map(Into::into),
    })
}

fn image() -> ContentBlock {
    ContentBlock::Image(ImageContent {
        data: "iVBORw0=".into(),
        mime_type: "image/png".into(),
    })
}

fn schema() -> Value {
    json!({"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]})
}

fn context(messages: Vec<Message>) -> Context {
    Context {
        system_prompt: Some("You are helpful.".into()),
        messages: Arc::new(messages),
        tools: Arc::from(vec![ToolSpec {
            name: "lookup".into(),
            description: "Look a key up".into(),
            parameters: schema(),
        }]),
    }
}

fn other_model() -> Model {
    Model {
        id: "claude-sonnet-4-5".into(),
        api: "anthropic-messages".into(),
        provider: "anthropic".into(),
        ..model()
    }
}

#[test]
fn a_multi_turn_context_replays_thoughts_signatures_calls_and_merged_responses() {
    let gemini = model();
    let messages = vec![
        user(vec![text("Look up alpha", None), image()]),
        assistant(
            &gemini,
            vec![
                ContentBlock::Thinking(ThinkingContent {
                    thinking: "Need the lookup tool.".into(),
                    thinking_signature: Some("c2lnVGhpbms=".into()),
                    redacted: None,
                }),
                text("Checking.", Some("c2lnVGV4dA==")),
                call("lookup#1", "alpha", Some("c2lnQ2FsbA==")),
                call("lookup#2", "beta", None),
            ],
            StopReason::ToolUse,
        ),
        result("lookup#1", vec![text("alpha=42", None)], false),
        result("lookup#2", vec![text("no such key", None)], true),
        // A signature that is not base64 is not sent back; a blank text is not sent at all.
        assistant(
            &gemini,
            vec![text("alpha is 42.", Some("not base64!")), text("  ", None)],
            StopReason::Stop,
        ),
        user(vec![text("And from another model?", None)]),
        // Another model's thinking becomes plain text; its signatures are dropped.
        assistant(
            &other_model(),
            vec![
                ContentBlock::Thinking(ThinkingContent {
                    thinking: "pondering".into(),
                    thinking_signature: Some("c2ln".into()),
                    redacted: None,
                }),
                text("Other.", Some("c2ln")),
                call("toolu_1", "gamma", Some("c2ln")),
            ],
            StopReason::ToolUse,
        ),
        result("toolu_1", vec![text("gamma=7", None)], false),
    ];
    let options = StreamOptions {
        temperature: Some(0.5),
        reasoning: Some(ThinkingLevel::High),
        ..StreamOptions::default()
    };
    let body = to_google_request(&gemini, &context(messages), &options);
    assert_json(
        &body,
        &json!({
            "contents": [
                {"parts": [
                    {"text": "Look up alpha"},
                    {"inlineData": {"data": "iVBORw0=", "mimeType": "image/png"}},
                ], "role": "user"},
                {"parts": [
                    {"text": "Need the lookup tool.", "thought": true, "thoughtSignature": "c2lnVGhpbms="},
                    {"text": "Checking.", "thoughtSignature": "c2lnVGV4dA=="},
                    {"functionCall": {"args": {"key": "alpha"}, "name": "lookup"}, "thoughtSignature": "c2lnQ2FsbA=="},
                    {"functionCall": {"args": {"key": "beta"}, "name": "lookup"}},
                ], "role": "model"},
                {"parts": [
                    {"functionResponse": {"name": "lookup", "response": {"output": "alpha=42"}}},
                    {"functionResponse": {"name": "lookup", "response": {"error": "no such key"}}},
                ], "role": "user"},
                {"parts": [{"text": "alpha is 42."}], "role": "model"},
                {"parts": [{"text": "And from another model?"}], "role": "user"},
                {"parts": [
                    {"text": "pondering"},
                    {"text": "Other."},
                    {"functionCall": {"args": {"key": "gamma"}, "name": "lookup"}},
                ], "role": "model"},
                {"parts": [
                    {"functionResponse": {"name": "lookup", "response": {"output": "gamma=7"}}},
                ], "role": "user"},
            ],
            "systemInstruction": {"parts": [{"text": "You are helpful."}], "role": "user"},
            "tools": [{"functionDeclarations": [
                {"name": "lookup", "description": "Look a key up", "parametersJsonSchema": schema()},
            ]}],
            "generationConfig": {
                "temperature": 0.5,
                "maxOutputTokens": 32000,
                "thinkingConfig": {"includeThoughts": true, "thinkingBudget": 32768},
            },
        }),
    );
}

#[test]
fn tool_images_nest_in_the_response_on_gemini_3_and_follow_as_a_user_turn_before() {
    let messages = |model: &Model| {
        vec![
            user(vec![text("Show it", None)]),
            assistant(model, vec![call("c1", "pic", None)], StopReason::ToolUse),
            result("c1", vec![image()], false),
        ]
    };
    let gemini2 = model();
    let body = to_google_request(
        &gemini2,
        &Context {
            messages: Arc::new(messages(&gemini2)),
            ..Context::default()
        },
        &StreamOptions::default(),
    );
    assert_json(
        &body,
        &json!({
            "contents": [
                {"parts": [{"text": "Show it"}], "role": "user"},
                {"parts": [{"functionCall": {"args": {"key": "pic"}, "name": "lookup"}}], "role": "model"},
                {"parts": [{"functionResponse": {"name": "lookup", "response": {"output": "(see attached image)"}}}],
                 "role": "user"},
                {"parts": [{"text": "Tool result image:"},
                           {"inlineData": {"data": "iVBORw0=", "mimeType": "image/png"}}], "role": "user"},
            ],
            "generationConfig": {"maxOutputTokens": 32000, "thinkingConfig": {"thinkingBudget": 0}},
        }),
    );

    let gemini3 = Model {
        id: "gemini-3-pro-preview".into(),
        ..model()
    };
    let body = to_google_request(
        &gemini3,
        &Context {
            messages: Arc::new(messages(&gemini3)),
            ..Context::default()
        },
        &StreamOptions::default(),
    );
    assert_json(
        &body,
        &json!({
            "contents": [
                {"parts": [{"text": "Show it"}], "role": "user"},
                {"parts": [{"functionCall": {"args": {"key": "pic"}, "name": "lookup"}}], "role": "model"},
                {"parts": [{"functionResponse": {"name": "lookup", "response": {"output": "(see attached image)"},
                    "parts": [{"inlineData": {"mimeType": "image/png", "data": "iVBORw0="}}]}}], "role": "user"},
            ],
            "generationConfig": {"maxOutputTokens": 32000, "thinkingConfig": {"thinkingLevel": "LOW"}},
        }),
    );
}

#[test]
fn claude_and_gpt_oss_targets_carry_call_ids_on_calls_and_responses() {
    let target = Model {
        id: "claude-sonnet-4-5".into(),
        reasoning: false,
        ..model()
    };
    let messages = vec![
        user(vec![text("Go", None)]),
        assistant(
            &target,
            vec![call("toolu_1", "x", None)],
            StopReason::ToolUse,
        ),
        result("toolu_1", vec![text("done", None)], false),
    ];
    let body = to_google_request(
        &target,
        &Context {
            messages: Arc::new(messages),
            ..Context::default()
        },
        &StreamOptions {
            max_tokens: Some(100),
            ..StreamOptions::default()
        },
    );
    assert_json(
        &body,
        &json!({
            "contents": [
                {"parts": [{"text": "Go"}], "role": "user"},
                {"parts": [{"functionCall": {"id": "toolu_1", "args": {"key": "x"}, "name": "lookup"}}],
                 "role": "model"},
                {"parts": [{"functionResponse": {"name": "lookup", "response": {"output": "done"}, "id": "toolu_1"}}],
                 "role": "user"},
            ],
            "generationConfig": {"maxOutputTokens": 100},
        }),
    );
}

#[test]
fn thinking_config_follows_the_model_family_and_the_requested_level() {
    let config = |id: &str, reasoning: Option<ThinkingLevel>| {
        let target = Model {
            id: id.into(),
            ..model()
        };
        let options = StreamOptions {
            reasoning,
            ..StreamOptions::default()
        };
        to_google_request(&target, &Context::default(), &options)["generationConfig"]
            ["thinkingConfig"]
            .clone()
    };
    assert_eq!(
        config("gemini-2.5-flash", None),
        json!({"thinkingBudget": 0})
    );
    assert_eq!(
        config("gemini-2.5-flash", Some(ThinkingLevel::Off)),
        json!({"thinkingBudget": 0})
    );
    assert_eq!(
        config("gemini-2.5-flash", Some(ThinkingLevel::Low)),
        json!({"includeThoughts": true, "thinkingBudget": 2048})
    );
    assert_eq!(
        config("gemini-exp-9", Some(ThinkingLevel::Medium)),
        json!({"includeThoughts": true, "thinkingBudget": -1})
    );
    assert_eq!(
        config("gemini-3-flash-preview", None),
        json!({"thinkingLevel": "MINIMAL"})
    );
    assert_eq!(
        config("gemini-3-flash-preview", Some(ThinkingLevel::Medium)),
        json!({"includeThoughts": true, "thinkingLevel": "MEDIUM"})
    );
    assert_eq!(
        config("gemini-3.1-pro-preview", Some(ThinkingLevel::Minimal)),
        json!({"includeThoughts": true, "thinkingLevel": "LOW"})
    );

    let plain = Model {
        reasoning: false,
        ..model()
    };
    let body = to_google_request(&plain, &Context::default(), &StreamOptions::default());
    assert_json(
        &body,
        &json!({"contents": [], "generationConfig": {"maxOutputTokens": 32000}}),
    );
}

#[test]
fn the_key_travels_in_a_header_never_in_the_url_and_model_headers_are_added() {
    let target = Model {
        headers: Some(json!({"X-Goog-Api-Key": "override", "x-extra": "1"})),
        ..model()
    };
    assert_eq!(
        google_headers(&model(), "AIza-test"),
        vec![("x-goog-api-key".to_owned(), "AIza-test".to_owned())]
    );
    assert_eq!(
        google_headers(&target, "AIza-test"),
        vec![
            ("X-Goog-Api-Key".to_owned(), "override".to_owned()),
            ("x-extra".to_owned(), "1".to_owned()),
        ]
    );
    assert_eq!(
        stream_url(&model().base_url, &model().id),
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
    );
}
