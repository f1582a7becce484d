//! The local model's tool policy: a call is forced on the first turn of a prompt, allowed after
//! a result, and refused once the model repeats itself or has made three calls.

use std::sync::Arc;

use rho_ai::faux::{faux_message, faux_tool_call};
use rho_ai::{ContentBlock, Context, Message, ToolResultMessage, ToolSpec, UserMessage};
use rho_llama::{ToolChoice, tool_choice_for};
use serde_json::json;

fn read_tool() -> ToolSpec {
    ToolSpec {
        name: "read".into(),
        description: "Read a file.".into(),
        parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
    }
}

fn call(id: &str, path: &str) -> Message {
    Message::Assistant(Arc::new(faux_message(vec![faux_tool_call(
        id,
        "read",
        json!({"path": path}),
    )])))
}

fn result(id: &str) -> Message {
    Message::ToolResult(Arc::new(ToolResultMessage {
        tool_call_id: id.into(),
        tool_name: "read".into(),
        content: vec![ContentBlock::text("fn main() {}")],
        details: None,
        is_error: false,
        duration_ms: None,
        usage: None,
        timestamp: 0,
    }))
}

fn context(messages: Vec<Message>) -> Context {
    Context {
        system_prompt: None,
        messages: Arc::new(messages),
        tools: Arc::from([read_tool()]),
    }
}

fn user() -> Message {
    Message::User(Arc::new(UserMessage::text("Check src/main.rs")))
}

#[test]
fn the_first_turn_of_a_prompt_must_call_a_tool() {
    assert_eq!(
        tool_choice_for(&context(vec![user()])),
        ToolChoice::Required
    );
}

#[test]
fn after_a_result_the_model_may_call_again_or_answer() {
    let ctx = context(vec![user(), call("a", "src/main.rs"), result("a")]);
    assert_eq!(tool_choice_for(&ctx), ToolChoice::Auto);
}

#[test]
fn a_repeated_call_makes_the_next_turn_text_only() {
    let ctx = context(vec![
        user(),
        call("a", "src/main.rs"),
        result("a"),
        call("b", "src/main.rs"),
        result("b"),
    ]);
    assert_eq!(tool_choice_for(&ctx), ToolChoice::None);
}

#[test]
fn three_calls_for_one_prompt_make_the_next_turn_text_only() {
    let ctx = context(vec![
        user(),
        call("a", "a.rs"),
        result("a"),
        call("b", "b.rs"),
        result("b"),
        call("c", "c.rs"),
        result("c"),
    ]);
    assert_eq!(tool_choice_for(&ctx), ToolChoice::None);
}

#[test]
fn calls_before_the_last_user_message_do_not_count() {
    let ctx = context(vec![
        user(),
        call("a", "src/main.rs"),
        result("a"),
        user(),
        call("b", "src/main.rs"),
        result("b"),
    ]);
    assert_eq!(tool_choice_for(&ctx), ToolChoice::Auto);
}
