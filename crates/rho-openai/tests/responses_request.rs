//! The exact Responses request body: input items, replay of reasoning, message and function-call
//! items, tool-call id rules across models, reasoning switches and headers.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::responses_common;

use std::sync::Arc;

use responses_common::model;
use rho_ai::{
    AssistantMessage, ContentBlock, Context, Message, StopReason, StreamOptions, TextContent,
    ThinkingContent, ThinkingLevel, ToolCall, ToolResultMessage, ToolSpec, UserContent,
    UserMessage,
};
use rho_openai::responses::{request_headers, responses_url, to_responses_request};
use serde_json::{Value, json};

fn user(text: &str) -> Message {
    Message::User(Arc::new(UserMessage {
        content: UserContent::Blocks(vec![ContentBlock::text(text)]),
        timestamp: 1,
    }))
}

fn assistant(provider: &str, api: &str, id: &str, content: Vec<ContentBlock>) -> Message {
    let mut message = AssistantMessage::empty(api, provider, id);
    message.content = content;
    message.stop_reason = if message.tool_calls().next().is_some() {
        StopReason::ToolUse
    } else {
        StopReason::Stop
    };
    Message::Assistant(Arc::new(message))
}

fn result(call_id: &str, text: &str) -> Message {
    Message::ToolResult(Arc::new(ToolResultMessage {
        tool_call_id: call_id.into(),
        tool_name: "get_capital".into(),
        content: vec![ContentBlock::text(text)],
        details: None,
        is_error: false,
        duration_ms: None,
        usage: None,
        timestamp: 1,
    }))
}

fn call(id: &str, country: &str) -> ContentBlock {
    ContentBlock::ToolCall(ToolCall {
        id: id.into(),
        name: "get_capital".into(),
        arguments: json!({"country": country}),
        thought_signature: None,
    })
}

fn signed_text(text: &str, signature: Option<&str>) -> ContentBlock {
    ContentBlock::Text(TextContent {
        text: text.into(),
        text_signature: signature.map(str::to_owned),
    })
}

fn reasoning_item() -> Value {
    json!({"id": "rs_1", "type": "reasoning", "summary": [{"type": "summary_text", "text": "Look it up."}],
           "encrypted_content": "gAAAAABenc"})
}

fn capital_tool() -> ToolSpec {
    ToolSpec {
        name: "get_capital".into(),
        description: "Capital of a country".into(),
        parameters: json!({"type": "object", "properties": {"country": {"type": "string"}}, "required": ["country"]}),
    }
}

#[test]
fn a_multi_turn_context_replays_reasoning_messages_and_paired_function_calls_exactly() {
    let model = model("openai", "gpt-5.5");
    let context = Context {
        system_prompt: Some(Arc::from("Be brief.")),
        messages: Arc::new(vec![
            user("Capital of PotatoLand?"),
            assistant(
                "openai",
                "openai-responses",
                "gpt-5.5",
                vec![
                    ContentBlock::Thinking(ThinkingContent {
                        thinking: "Look it up.".into(),
                        thinking_signature: Some(reasoning_item().to_string()),
                        redacted: None,
                    }),
                    signed_text(
                        "Checking.",
                        Some(r#"{"v":1,"id":"msg_1","phase":"commentary"}"#),
                    ),
                    call("call_A|fc_A", "PotatoLand"),
                ],
            ),
            result("call_A|fc_A", "Spudville"),
            assistant(
                "openai",
                "openai-responses",
                "gpt-5.5",
                vec![signed_text("It is Spudville.", None)],
            ),
            user("Thanks"),
        ]),
        tools: Arc::from(vec![capital_tool()]),
    };
    let options = StreamOptions {
        reasoning: Some(ThinkingLevel::High),
        session_id: Some("sess-1".into()),
        temperature: Some(1.0),
        ..StreamOptions::default()
    };
    let expected = json!({
        "model": "gpt-5.5",
        "input": [
            {"role": "developer", "content": "Be brief."},
            {"role": "user", "content": [{"type": "input_text", "text": "Capital of PotatoLand?"}]},
            reasoning_item(),
            {"type": "message", "role": "assistant",
             "content": [{"type": "output_text", "text": "Checking.", "annotations": []}],
             "status": "completed", "id": "msg_1", "phase": "commentary"},
            {"type": "function_call", "id": "fc_A", "call_id": "call_A", "name": "get_capital",
             "arguments": "{\"country\":\"PotatoLand\"}"},
            {"type": "function_call_output", "call_id": "call_A", "output": "Spudville"},
            {"type": "message", "role": "assistant",
             "content": [{"type": "output_text", "text": "It is Spudville.", "annotations": []}],
             "status": "completed", "id": "msg_3"},
            {"role": "user", "content": [{"type": "input_text", "text": "Thanks"}]}
        ],
        "stream": true,
        "prompt_cache_key": "sess-1",
        "store": false,
        "max_output_tokens": 32000,
        "temperature": 1,
        "tools": [{"type": "function", "name": "get_capital", "description": "Capital of a country",
                   "parameters": capital_tool().parameters}],
        "reasoning": {"effort": "high", "summary": "auto"},
        "include": ["reasoning.encrypted_content"]
    });
    assert_eq!(
        serde_json::to_string_pretty(&to_responses_request(&model, &context, &options)).unwrap(),
        serde_json::to_string_pretty(&expected).unwrap()
    );
}

#[test]
fn calls_from_other_providers_and_models_get_ids_openai_accepts() {
    let model = model("openai", "gpt-5.5");
    let context = Context {
        system_prompt: None,
        messages: Arc::new(vec![
            user("Go"),
            // Anthropic: a plain id, sanitized; no item id to send.
            assistant(
                "anthropic",
                "anthropic-messages",
                "claude-sonnet-4-5",
                vec![
                    ContentBlock::Thinking(ThinkingContent {
                        thinking: "Plan.".into(),
                        thinking_signature: Some("sig".into()),
                        redacted: None,
                    }),
                    call("toolu_01+abc/x=", "A"),
                ],
            ),
            result("toolu_01+abc/x=", "a"),
            // Another Responses provider: its item id is replaced by a hash.
            assistant(
                "azure-openai",
                "azure-openai-responses",
                "gpt-5",
                vec![call("call_X|fc_item+/=", "B")],
            ),
            result("call_X|fc_item+/=", "b"),
            // Another OpenAI model: ids kept, but its `fc_` item id is left out.
            assistant(
                "openai",
                "openai-responses",
                "gpt-5",
                vec![call("call_Y|fc_Y", "C")],
            ),
            result("call_Y|fc_Y", "c"),
        ]),
        tools: Arc::from(vec![]),
    };
    let body = to_responses_request(&model, &context, &StreamOptions::default());
    let output = |call_id: &str, text: &str| json!({"type": "function_call_output", "call_id": call_id, "output": text});
    let message = |text: &str, id: &str| {
        json!({"type": "message", "role": "assistant",
               "content": [{"type": "output_text", "text": text, "annotations": []}],
               "status": "completed", "id": id})
    };
    assert_eq!(
        body["input"],
        json!([
            {"role": "user", "content": [{"type": "input_text", "text": "Go"}]},
            message("Plan.", "msg_1"),
            {"type": "function_call", "call_id": "toolu_01_abc_x", "name": "get_capital", "arguments": "{\"country\":\"A\"}"},
            output("toolu_01_abc_x", "a"),
            {"type": "function_call", "id": "fc_1wnc2h11m67abf", "call_id": "call_X", "name": "get_capital", "arguments": "{\"country\":\"B\"}"},
            output("call_X", "b"),
            {"type": "function_call", "call_id": "call_Y", "name": "get_capital", "arguments": "{\"country\":\"C\"}"},
            output("call_Y", "c"),
        ])
    );
    // A reasoning model asked for no reasoning is told so.
    assert_eq!(
        (body.get("reasoning"), body.get("include")),
        (Some(&json!({"effort": "none"})), None)
    );
}

#[test]
fn a_model_without_reasoning_gets_a_system_item_and_no_reasoning_switch() {
    let mut model = model("openai", "gpt-4o");
    model.reasoning = false;
    let context = Context {
        system_prompt: Some(Arc::from("Sys")),
        messages: Arc::new(vec![user("Hi")]),
        tools: Arc::from(vec![]),
    };
    let options = StreamOptions {
        reasoning: Some(ThinkingLevel::High),
        max_tokens: Some(100),
        ..StreamOptions::default()
    };
    assert_eq!(
        to_responses_request(&model, &context, &options),
        json!({
            "model": "gpt-4o",
            "input": [
                {"role": "system", "content": "Sys"},
                {"role": "user", "content": [{"type": "input_text", "text": "Hi"}]}
            ],
            "stream": true,
            "store": false,
            "max_output_tokens": 100
        })
    );
}

#[test]
fn headers_carry_the_key_model_headers_and_the_session_and_the_url_has_one_slash() {
    let mut model = model("openai", "gpt-5");
    model.base_url = "https://api.openai.com/v1/".into();
    model.headers = Some(json!({"OpenAI-Organization": "org-1", "x-num": 3}));
    let options = StreamOptions {
        session_id: Some("sess-9".into()),
        ..StreamOptions::default()
    };
    let headers = request_headers(&model, Some("sk-1"), &options);
    let pairs: Vec<(&str, &str)> = headers
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect();
    assert_eq!(
        (responses_url(&model), pairs),
        (
            "https://api.openai.com/v1/responses".to_owned(),
            vec![
                ("authorization", "Bearer sk-1"),
                ("OpenAI-Organization", "org-1"),
                ("session_id", "sess-9"),
                ("x-client-request-id", "sess-9"),
            ]
        )
    );
}
