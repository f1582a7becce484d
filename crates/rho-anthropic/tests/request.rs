//! The exact Anthropic request for a rho context: body, headers and endpoint.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::Arc;

use common::{assert_json, model};
use rho_ai::{
    AssistantMessage, ContentBlock, Context, ImageContent, Message, Model, StopReason,
    StreamOptions, ThinkingContent, ThinkingLevel, ToolCall, ToolResultMessage, ToolSpec,
    UserContent, UserMessage,
};
use rho_anthropic::convert::CacheRetention;
use rho_anthropic::request::{anthropic_headers, messages_url, to_anthropic_request_with};
use rho_anthropic::to_anthropic_request;
use serde_json::{Value, json};

fn user(blocks: Vec<ContentBlock>) -> Message {
    Message::User(Arc::new(UserMessage {
        content: UserContent::Blocks(blocks),
        timestamp: 1,
    }))
}

fn assistant_from(model: &Model, content: Vec<ContentBlock>, stop: StopReason) -> Message {
    let mut message = AssistantMessage::empty(&model.api, &model.provider, &model.id);
    message.content = content;
    message.stop_reason = stop;
    Message::Assistant(Arc::new(message))
}

fn call(id: &str, name: &str, arguments: Value) -> ContentBlock {
    ContentBlock::ToolCall(ToolCall {
        id: id.into(),
        name: name.into(),
        arguments,
        thought_signature: None,
    })
}

fn result(id: &str, name: &str, content: Vec<ContentBlock>, is_error: bool) -> Message {
    Message::ToolResult(Arc::new(ToolResultMessage {
        tool_call_id: id.into(),
        tool_name: name.into(),
        content,
        details: Some(json!({"never": "sent"})),
        is_error,
        duration_ms: Some(3),
        usage: None,
        timestamp: 2,
    }))
}

fn thinking(text: &str, signature: Option<&str>, redacted: Option<bool>) -> ContentBlock {
    ContentBlock::Thinking(ThinkingContent {
        thinking: text.into(),
        thinking_signature: signature.map(Into::into),
        redacted,
    })
}

fn image() -> ContentBlock {
    ContentBlock::Image(ImageContent {
        data: "iVBORw0KGgo=".into(),
        mime_type: "image/png".into(),
    })
}

fn tools() -> Arc<[ToolSpec]> {
    Arc::from(vec![
        ToolSpec {
            name: "read".into(),
            description: "Read a file".into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}},
                "required": ["path"], "additionalProperties": false}),
        },
        ToolSpec {
            name: "now".into(),
            description: "The time".into(),
            // Root combinators stay out (Anthropic answers them with a 400); shared definitions stay.
            parameters: json!({"type": "object", "$defs": {"zone": {"type": "string"}},
                "anyOf": [{"required": []}]}),
        },
    ])
}

fn context(messages: Vec<Message>) -> Context {
    Context {
        system_prompt: Some("You are helpful.".into()),
        messages: Arc::new(messages),
        tools: tools(),
    }
}

fn reasoning(level: Option<ThinkingLevel>) -> StreamOptions {
    StreamOptions {
        reasoning: level,
        temperature: Some(0.5),
        ..StreamOptions::default()
    }
}

#[test]
fn a_full_turn_becomes_the_exact_anthropic_request_with_merged_tool_results() {
    let m = model();
    let context = context(vec![
        user(vec![ContentBlock::text("Describe this"), image()]),
        assistant_from(
            &m,
            vec![
                thinking("I should read it.", Some("sig-1"), None),
                ContentBlock::text("Let me look."),
                call("toolu_1", "read", json!({"path": "a.txt"})),
                call("toolu_2", "now", json!({})),
            ],
            StopReason::ToolUse,
        ),
        result(
            "toolu_1",
            "read",
            vec![ContentBlock::text("line1"), ContentBlock::text("line2")],
            false,
        ),
        result(
            "toolu_2",
            "now",
            vec![ContentBlock::text("Tool now not found")],
            true,
        ),
    ]);
    let body = to_anthropic_request(&m, &context, &reasoning(Some(ThinkingLevel::Medium)));
    let ephemeral = json!({"type": "ephemeral"});
    assert_json(
        &body,
        &json!({
            "model": "claude-sonnet-4-5",
            "messages": [
                {"role": "user", "content": [
                    {"type": "text", "text": "Describe this"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
                ]},
                {"role": "assistant", "content": [
                    {"type": "thinking", "thinking": "I should read it.", "signature": "sig-1"},
                    {"type": "text", "text": "Let me look."},
                    {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "a.txt"}},
                    {"type": "tool_use", "id": "toolu_2", "name": "now", "input": {}},
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": "line1\nline2", "is_error": false},
                    {"type": "tool_result", "tool_use_id": "toolu_2", "content": "Tool now not found", "is_error": true,
                     "cache_control": ephemeral},
                ]},
            ],
            // min(64000, 32000) + the medium budget, capped by the model's 64000.
            "max_tokens": 32000 + 8192,
            "stream": true,
            "system": [{"type": "text", "text": "You are helpful.", "cache_control": ephemeral}],
            // No temperature: thinking is on.
            "tools": [
                {"name": "read", "description": "Read a file", "eager_input_streaming": true,
                 "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"],
                    "additionalProperties": false}},
                {"name": "now", "description": "The time", "eager_input_streaming": true,
                 "input_schema": {"type": "object", "properties": {}, "required": [],
                    "$defs": {"zone": {"type": "string"}}},
                 "cache_control": ephemeral},
            ],
            "thinking": {"type": "enabled", "budget_tokens": 8192, "display": "summarized"},
        }),
    );
}

#[test]
fn cache_markers_follow_the_retention_and_land_on_a_trailing_user_message_only() {
    let m = model();
    let string_user = Message::User(Arc::new(UserMessage {
        content: UserContent::Text("Hi".into()),
        timestamp: 1,
    }));
    let ctx = Context {
        system_prompt: None,
        messages: Arc::new(vec![string_user.clone()]),
        tools: Arc::from(vec![]),
    };
    let options = StreamOptions::default();
    let long = to_anthropic_request_with(&m, &ctx, &options, CacheRetention::Long);
    assert_json(
        &long["messages"],
        &json!([{"role": "user", "content": [
            {"type": "text", "text": "Hi", "cache_control": {"type": "ephemeral", "ttl": "1h"}}]}]),
    );
    let none = to_anthropic_request_with(
        &m,
        &context(vec![string_user.clone()]),
        &options,
        CacheRetention::None,
    );
    assert_json(
        &none["messages"],
        &json!([{"role": "user", "content": "Hi"}]),
    );
    assert_json(
        &none["system"],
        &json!([{"type": "text", "text": "You are helpful."}]),
    );
    assert_eq!(none["tools"][1].get("cache_control"), None);
    // A transcript ending with the assistant carries no message marker.
    let ends_with_assistant = Context {
        messages: Arc::new(vec![
            string_user,
            assistant_from(&m, vec![ContentBlock::text("Hello")], StopReason::Stop),
        ]),
        ..ctx
    };
    let body = to_anthropic_request(&m, &ends_with_assistant, &options);
    assert_json(
        &body["messages"],
        &json!([{"role": "user", "content": "Hi"},
                {"role": "assistant", "content": [{"type": "text", "text": "Hello"}]}]),
    );
}

#[test]
fn blank_and_unreplayable_blocks_are_dropped_or_downgraded() {
    let m = model();
    let ctx = Context {
        system_prompt: Some("".into()),
        messages: Arc::new(vec![
            user(vec![ContentBlock::text("  ")]),
            Message::User(Arc::new(UserMessage {
                content: UserContent::Text("\n".into()),
                timestamp: 1,
            })),
            user(vec![ContentBlock::text(""), ContentBlock::text("Go")]),
            assistant_from(
                &m,
                vec![
                    thinking("[Reasoning redacted]", Some("opaque"), Some(true)),
                    thinking("   ", Some("sig"), None),
                    thinking("half a thought", None, None),
                    ContentBlock::text(" "),
                    ContentBlock::text("Done."),
                ],
                StopReason::Stop,
            ),
            assistant_from(&m, vec![ContentBlock::text("")], StopReason::Stop),
        ]),
        tools: Arc::from(vec![]),
    };
    let body = to_anthropic_request_with(&m, &ctx, &StreamOptions::default(), CacheRetention::None);
    assert_json(
        &body,
        &json!({
            "model": "claude-sonnet-4-5",
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "Go"}]},
                {"role": "assistant", "content": [
                    {"type": "redacted_thinking", "data": "opaque"},
                    {"type": "text", "text": "half a thought"},
                    {"type": "text", "text": "Done."},
                ]},
            ],
            "max_tokens": 32000, "stream": true, "thinking": {"type": "disabled"},
        }),
    );
}

#[test]
fn a_tool_result_with_images_is_a_block_array_led_by_a_placeholder_when_it_has_no_text() {
    let m = model();
    let ctx = Context {
        system_prompt: None,
        messages: Arc::new(vec![
            assistant_from(
                &m,
                vec![
                    call("toolu_1", "read", json!({"path": "a.png"})),
                    call("toolu_2", "read", json!({"path": "b.png"})),
                ],
                StopReason::ToolUse,
            ),
            result("toolu_1", "read", vec![image()], false),
            result(
                "toolu_2",
                "read",
                vec![ContentBlock::text("b.png:"), image()],
                false,
            ),
        ]),
        tools: Arc::from(vec![]),
    };
    let body = to_anthropic_request_with(&m, &ctx, &StreamOptions::default(), CacheRetention::None);
    let png = json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}});
    assert_json(
        &body["messages"][1],
        &json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": [
                {"type": "text", "text": "(see attached image)"}, png], "is_error": false},
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": [
                {"type": "text", "text": "b.png:"}, png], "is_error": false},
        ]}),
    );
}

#[test]
fn history_from_another_model_is_transformed_before_conversion() {
    let m = model();
    let other = Model {
        id: "gpt-5".into(),
        api: "openai-responses".into(),
        provider: "openai".into(),
        ..model()
    };
    let ctx = Context {
        system_prompt: None,
        messages: Arc::new(vec![
            user(vec![ContentBlock::text("Go")]),
            assistant_from(
                &other,
                vec![
                    thinking("foreign thought", Some("{\"id\":\"rs_1\"}"), None),
                    call("call_abc|fc_123", "read", json!({"path": "a.txt"})),
                ],
                StopReason::ToolUse,
            ),
            result(
                "call_abc|fc_123",
                "read",
                vec![ContentBlock::text("data")],
                false,
            ),
            // A failed response is never replayed; its orphaned call gets no synthetic result.
            assistant_from(
                &m,
                vec![call("toolu_9", "read", json!({}))],
                StopReason::Error,
            ),
        ]),
        tools: Arc::from(vec![]),
    };
    let body = to_anthropic_request_with(&m, &ctx, &StreamOptions::default(), CacheRetention::None);
    assert_json(
        &body["messages"],
        &json!([
            {"role": "user", "content": [{"type": "text", "text": "Go"}]},
            {"role": "assistant", "content": [
                {"type": "text", "text": "foreign thought"},
                {"type": "tool_use", "id": "call_abc_fc_123", "name": "read", "input": {"path": "a.txt"}},
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "call_abc_fc_123", "content": "data", "is_error": false},
            ]},
        ]),
    );
}

#[test]
fn headers_carry_key_version_betas_and_the_models_own_headers() {
    let m = Model {
        compat: Some(json!({"supportsEagerToolInputStreaming": false})),
        headers: Some(json!({"Anthropic-Version": "2099-01-01", "x-team": "rho"})),
        ..model()
    };
    let ctx = context(vec![]);
    let thinking = StreamOptions {
        reasoning: Some(ThinkingLevel::Medium),
        ..StreamOptions::default()
    };
    assert_eq!(
        anthropic_headers(&m, &ctx, &thinking, "sk-ant-test"),
        vec![
            ("x-api-key".to_owned(), "sk-ant-test".to_owned()),
            (
                "anthropic-beta".to_owned(),
                "fine-grained-tool-streaming-2025-05-14,interleaved-thinking-2025-05-14".to_owned()
            ),
            ("Anthropic-Version".to_owned(), "2099-01-01".to_owned()),
            ("x-team".to_owned(), "rho".to_owned()),
        ]
    );
    // Without the eager field the tool definitions omit it.
    let body = to_anthropic_request(&m, &ctx, &StreamOptions::default());
    assert_eq!(body["tools"][0].get("eager_input_streaming"), None);
    // Eager streaming supported (the default): only the interleaved-thinking beta.
    assert_eq!(
        anthropic_headers(&model(), &ctx, &thinking, "k")[2],
        (
            "anthropic-beta".to_owned(),
            "interleaved-thinking-2025-05-14".to_owned()
        )
    );
}

#[test]
fn interleaved_thinking_is_asked_for_only_when_the_call_thinks_as_pi_1_6_asks() {
    let ctx = context(vec![]);
    let level = |reasoning| StreamOptions {
        reasoning,
        ..StreamOptions::default()
    };
    let betas = |model: &Model, options: &StreamOptions| {
        anthropic_headers(model, &ctx, options, "k")
            .into_iter()
            .filter(|(name, _)| name == "anthropic-beta")
            .map(|(_, value)| value)
            .collect::<Vec<_>>()
    };
    let interleaved = vec!["interleaved-thinking-2025-05-14".to_owned()];
    assert_eq!(
        betas(&model(), &level(Some(ThinkingLevel::Low))),
        interleaved
    );
    assert_eq!(betas(&model(), &level(None)), Vec::<String>::new());
    assert_eq!(
        betas(&model(), &level(Some(ThinkingLevel::Off))),
        Vec::<String>::new()
    );
    let plain = Model {
        reasoning: false,
        ..model()
    };
    assert_eq!(
        betas(&plain, &level(Some(ThinkingLevel::High))),
        Vec::<String>::new()
    );
}

#[test]
fn the_endpoint_appends_v1_messages_once() {
    assert_eq!(
        messages_url("https://api.anthropic.com"),
        "https://api.anthropic.com/v1/messages"
    );
    assert_eq!(
        messages_url("https://api.anthropic.com/"),
        "https://api.anthropic.com/v1/messages"
    );
    assert_eq!(
        messages_url("https://proxy.example/anthropic/v1/"),
        "https://proxy.example/anthropic/v1/messages"
    );
}
