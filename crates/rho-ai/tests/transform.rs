//! Cross-provider history transformation (pi-reference §5.0, §10 item 17).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use rho_ai::faux::{FauxProvider, faux_message, faux_text, faux_thinking, faux_tool_call};
use rho_ai::transform::{NO_RESULT, TOOL_IMAGE_OMITTED, USER_IMAGE_OMITTED, transform_messages};
use rho_ai::{
    AssistantMessage, ContentBlock, ImageContent, Message, Model, StopReason, ThinkingContent,
    ToolResultMessage, UserContent, UserMessage,
};
use serde_json::json;

fn model(vision: bool) -> Model {
    let mut model = FauxProvider::new().model();
    model.provider = "anthropic".into();
    model.api = "anthropic-messages".into();
    model.id = "claude-x".into();
    model.input = if vision {
        vec!["text".into(), "image".into()]
    } else {
        vec!["text".into()]
    };
    model
}

fn from(model: &Model, content: Vec<ContentBlock>) -> AssistantMessage {
    let mut message = faux_message(content);
    message.provider = model.provider.clone();
    message.api = model.api.clone();
    message.model = model.id.clone();
    message
}

fn image() -> ContentBlock {
    ContentBlock::Image(ImageContent {
        data: "AAAA".into(),
        mime_type: "image/png".into(),
    })
}

fn result(id: &str, content: Vec<ContentBlock>) -> Message {
    Message::ToolResult(Arc::new(ToolResultMessage {
        tool_call_id: id.into(),
        tool_name: "read".into(),
        content,
        details: None,
        is_error: false,
        duration_ms: Some(1),
        usage: None,
        timestamp: 5,
    }))
}

fn assistant(message: AssistantMessage) -> Message {
    Message::Assistant(Arc::new(message))
}

fn underscore_ids(id: &str) -> String {
    id.replace(['|', ':'], "_")
}

#[test]
fn history_from_another_model_becomes_plain_text_with_normalized_ids() {
    let target = model(true);
    let signed = ContentBlock::Thinking(ThinkingContent {
        thinking: "secret".into(),
        thinking_signature: Some("sig".into()),
        redacted: None,
    });
    let redacted = ContentBlock::Thinking(ThinkingContent {
        thinking: "[Reasoning redacted]".into(),
        thinking_signature: Some("opaque".into()),
        redacted: Some(true),
    });
    // faux_message is from provider "faux": a different model.
    let other = faux_message(vec![
        faux_thinking("plan"),
        signed,
        redacted,
        faux_thinking("  "),
        faux_text("calling"),
        faux_tool_call("call|item:1", "read", json!({"path": "a"})),
    ]);
    let messages = vec![
        assistant(other),
        result("call|item:1", vec![ContentBlock::text("ok")]),
    ];
    let out = transform_messages(&messages, &target, &underscore_ids);
    let Message::Assistant(converted) = &out[0] else {
        panic!()
    };
    assert_eq!(
        converted.content,
        vec![
            ContentBlock::text("plan"),
            ContentBlock::text("secret"),
            ContentBlock::text("calling"),
            faux_tool_call("call_item_1", "read", json!({"path": "a"})),
        ]
    );
    let Message::ToolResult(r) = &out[1] else {
        panic!()
    };
    assert_eq!(r.tool_call_id, "call_item_1");
}

#[test]
fn history_from_the_same_model_is_kept_as_is() {
    let target = model(true);
    let signed_empty = ContentBlock::Thinking(ThinkingContent {
        thinking: String::new(),
        thinking_signature: Some("sig".into()),
        redacted: None,
    });
    let mine = from(
        &target,
        vec![
            signed_empty,
            faux_text("x"),
            faux_tool_call("call|1", "read", json!({})),
        ],
    );
    let messages = vec![
        assistant(mine.clone()),
        result("call|1", vec![ContentBlock::text("ok")]),
    ];
    let out = transform_messages(&messages, &target, &underscore_ids);
    assert_eq!(out, messages);
}

#[test]
fn failed_assistant_messages_are_dropped_and_orphaned_calls_get_a_synthetic_result() {
    let target = model(true);
    let mut failed = from(&target, vec![faux_text("half")]);
    failed.stop_reason = StopReason::Error;
    let calls = from(
        &target,
        vec![
            faux_tool_call("a", "read", json!({})),
            faux_tool_call("b", "read", json!({})),
        ],
    );
    let user = Message::User(Arc::new(UserMessage::text("next")));
    let messages = vec![
        assistant(calls.clone()),
        result("a", vec![ContentBlock::text("ok")]),
        assistant(failed),
        user.clone(),
    ];
    let out = transform_messages(&messages, &target, &underscore_ids);
    assert_eq!(out.len(), 4);
    assert_eq!(out[0], assistant(calls));
    let Message::ToolResult(synthetic) = &out[2] else {
        panic!("no synthetic result")
    };
    assert_eq!(synthetic.tool_call_id, "b");
    assert!(synthetic.is_error);
    assert_eq!(synthetic.content, vec![ContentBlock::text(NO_RESULT)]);
    assert_eq!(out[3], user);
}

#[test]
fn images_become_one_placeholder_per_run_on_a_text_only_model() {
    let target = model(false);
    let user = UserMessage {
        content: UserContent::Blocks(vec![
            ContentBlock::text("look"),
            image(),
            image(),
            ContentBlock::text("and"),
            image(),
        ]),
        timestamp: 1,
    };
    let messages = vec![
        Message::User(Arc::new(user)),
        assistant(from(&target, vec![faux_tool_call("c", "read", json!({}))])),
        result("c", vec![image(), ContentBlock::text("caption")]),
    ];
    let out = transform_messages(&messages, &target, &underscore_ids);
    let Message::User(u) = &out[0] else { panic!() };
    assert_eq!(
        u.content,
        UserContent::Blocks(vec![
            ContentBlock::text("look"),
            ContentBlock::text(USER_IMAGE_OMITTED),
            ContentBlock::text("and"),
            ContentBlock::text(USER_IMAGE_OMITTED),
        ])
    );
    let Message::ToolResult(r) = &out[2] else {
        panic!()
    };
    assert_eq!(
        r.content,
        vec![
            ContentBlock::text(TOOL_IMAGE_OMITTED),
            ContentBlock::text("caption")
        ]
    );
}

#[test]
fn history_that_replays_unchanged_is_shared_not_copied() {
    let target = model(false);
    let mine = from(
        &target,
        vec![faux_text("x"), faux_tool_call("c", "read", json!({}))],
    );
    let foreign_plain = faux_message(vec![
        faux_text("plain"),
        faux_tool_call("d", "ls", json!({})),
    ]);
    let messages = vec![
        Message::User(Arc::new(UserMessage::text("no images here"))),
        assistant(mine),
        result("c", vec![ContentBlock::text("ok")]),
        assistant(foreign_plain),
        result("d", vec![ContentBlock::text("ok")]),
    ];
    let out = transform_messages(&messages, &target, &underscore_ids);
    let shared = |a: &Message, b: &Message| match (a, b) {
        (Message::User(a), Message::User(b)) => Arc::ptr_eq(a, b),
        (Message::Assistant(a), Message::Assistant(b)) => Arc::ptr_eq(a, b),
        (Message::ToolResult(a), Message::ToolResult(b)) => Arc::ptr_eq(a, b),
        _ => false,
    };
    let all_shared =
        out.len() == messages.len() && out.iter().zip(&messages).all(|(a, b)| shared(a, b));
    assert!(all_shared, "{out:?}");
}
