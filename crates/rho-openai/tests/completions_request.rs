//! The exact Chat Completions request bodies rho sends (pi-reference §5.3 "Request").
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use rho_ai::{
    AssistantMessage, ContentBlock, Context, ImageContent, Message, Model, ModelCost, StopReason,
    StreamOptions, ThinkingContent, ThinkingLevel, ToolCall, ToolResultMessage, ToolSpec,
    UserContent, UserMessage,
};
use rho_openai::completions::{completions_url, request_headers, to_completions_request};
use serde_json::{Value, json};

fn model(provider: &str, id: &str, base_url: &str) -> Model {
    Model {
        id: id.into(),
        name: id.into(),
        api: "openai-completions".into(),
        provider: provider.into(),
        base_url: base_url.into(),
        reasoning: true,
        input: vec!["text".into(), "image".into()],
        cost: ModelCost::default(),
        context_window: 400_000,
        max_tokens: 128_000,
        headers: None,
        compat: None,
    }
}

fn user(blocks: Vec<ContentBlock>) -> Message {
    Message::User(Arc::new(UserMessage {
        content: UserContent::Blocks(blocks),
        timestamp: 1,
    }))
}

fn image() -> ContentBlock {
    ContentBlock::Image(ImageContent {
        data: "iVBORw0KGgo=".into(),
        mime_type: "image/png".into(),
    })
}

fn thinking(text: &str, signature: &str) -> ContentBlock {
    ContentBlock::Thinking(ThinkingContent {
        thinking: text.into(),
        thinking_signature: Some(signature.into()),
        redacted: None,
    })
}

fn call(id: &str, name: &str, arguments: Value) -> ContentBlock {
    ContentBlock::ToolCall(ToolCall {
        id: id.into(),
        name: name.into(),
        arguments,
        thought_signature: None,
    })
}

/// An assistant turn written by `model` (so its thinking replays as thinking).
fn assistant(model: &Model, content: Vec<ContentBlock>) -> Message {
    let mut message = AssistantMessage::empty(&model.api, &model.provider, &model.id);
    message.content = content;
    message.stop_reason = StopReason::ToolUse;
    Message::Assistant(Arc::new(message))
}

fn result(id: &str, name: &str, content: Vec<ContentBlock>, is_error: bool) -> Message {
    Message::ToolResult(Arc::new(ToolResultMessage {
        tool_call_id: id.into(),
        tool_name: name.into(),
        content,
        details: None,
        is_error,
        duration_ms: Some(3),
        usage: None,
        timestamp: 2,
    }))
}

fn read_tool() -> ToolSpec {
    ToolSpec {
        name: "read".into(),
        description: "Read a file".into(),
        parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
    }
}

fn context(system: Option<&str>, messages: Vec<Message>, tools: Vec<ToolSpec>) -> Context {
    Context {
        system_prompt: system.map(Arc::from),
        messages: Arc::new(messages),
        tools: tools.into(),
    }
}

/// Compares pretty-printed JSON, so key order counts and a failure shows a line diff.
fn assert_json(actual: &Value, expected: &Value) {
    assert_eq!(
        serde_json::to_string_pretty(actual).unwrap(),
        serde_json::to_string_pretty(expected).unwrap()
    );
}

#[test]
fn a_full_openai_turn_with_image_thinking_two_calls_and_two_results_converts_exactly() {
    let model = model("openai", "gpt-5", "https://api.openai.com/v1/");
    let messages = vec![
        user(vec![
            ContentBlock::text("Describe this and list files"),
            image(),
        ]),
        assistant(
            &model,
            vec![
                thinking("I should look.", "reasoning_content"),
                ContentBlock::text("Looking."),
                call("call_1", "read", json!({"path": "a.txt"})),
                call("call_2", "ls", json!({})),
            ],
        ),
        result("call_1", "read", vec![ContentBlock::text("hello")], false),
        result(
            "call_2",
            "ls",
            vec![ContentBlock::text("ls failed: permission denied")],
            true,
        ),
    ];
    let options = StreamOptions {
        reasoning: Some(ThinkingLevel::Medium),
        session_id: Some("sess-1".into()),
        ..StreamOptions::default()
    };
    let body = to_completions_request(
        &model,
        &context(Some("You are helpful."), messages, vec![read_tool()]),
        &options,
    );
    assert_json(
        &body,
        &json!({
            "model": "gpt-5",
            "messages": [
                {"role": "developer", "content": "You are helpful."},
                {"role": "user", "content": [
                    {"type": "text", "text": "Describe this and list files"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
                ]},
                {"role": "assistant", "content": "Looking.", "reasoning_content": "I should look.", "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"a.txt\"}"}},
                    {"id": "call_2", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
                ]},
                {"role": "tool", "content": "hello", "tool_call_id": "call_1"},
                {"role": "tool", "content": "ls failed: permission denied", "tool_call_id": "call_2"}
            ],
            "stream": true,
            "stream_options": {"include_usage": true},
            "store": false,
            "max_completion_tokens": 32000,
            "tools": [{"type": "function", "function": {
                "name": "read",
                "description": "Read a file",
                "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
            }}],
            "reasoning_effort": "medium",
            "prompt_cache_key": "sess-1"
        }),
    );
}

#[test]
fn endpoint_and_headers_carry_the_key_and_model_headers() {
    let mut model = model("openai", "gpt-5", "https://api.openai.com/v1/");
    model.headers = Some(json!({"x-title": "rho", "Authorization": "Custom abc", "x-bad": 1}));
    assert_eq!(
        completions_url(&model),
        "https://api.openai.com/v1/chat/completions"
    );
    assert_eq!(
        request_headers(&model, Some("sk-1")),
        vec![
            ("x-title".to_owned(), "rho".to_owned()),
            ("Authorization".to_owned(), "Custom abc".to_owned()),
        ]
    );
    model.headers = None;
    assert_eq!(
        request_headers(&model, Some("sk-1")),
        vec![("authorization".to_owned(), "Bearer sk-1".to_owned())]
    );
    assert_eq!(request_headers(&model, None), vec![]);
}

#[test]
fn deepseek_uses_system_role_no_store_thinking_switch_and_empty_reasoning_on_replays() {
    let model = model("deepseek", "deepseek-reasoner", "https://api.deepseek.com");
    let messages = vec![
        user(vec![ContentBlock::text("hi")]),
        assistant(&model, vec![ContentBlock::text("Hello")]),
        assistant(
            &model,
            vec![
                thinking("Hm.", "reasoning_content"),
                ContentBlock::text("Again"),
            ],
        ),
    ];
    let options = StreamOptions {
        reasoning: Some(ThinkingLevel::High),
        max_tokens: Some(1000),
        ..StreamOptions::default()
    };
    let body = to_completions_request(&model, &context(Some("sys"), messages, vec![]), &options);
    assert_json(
        &body,
        &json!({
            "model": "deepseek-reasoner",
            "messages": [
                {"role": "system", "content": "sys"},
                {"role": "user", "content": [{"type": "text", "text": "hi"}]},
                {"role": "assistant", "content": "Hello", "reasoning_content": ""},
                {"role": "assistant", "content": "Again", "reasoning_content": "Hm."}
            ],
            "stream": true,
            "stream_options": {"include_usage": true},
            "max_completion_tokens": 1000,
            "thinking": {"type": "enabled"},
            "reasoning_effort": "high"
        }),
    );
}

#[test]
fn compat_switches_select_max_tokens_drop_usage_streaming_store_and_strict() {
    let mut model = model("local", "qwen3", "http://localhost:8080/v1");
    model.reasoning = false;
    model.compat = Some(json!({
        "maxTokensField": "max_tokens",
        "supportsUsageInStreaming": false,
        "supportsStore": false,
        "supportsStrictMode": false,
        "supportsDeveloperRole": false
    }));
    let options = StreamOptions {
        reasoning: Some(ThinkingLevel::High),
        max_tokens: Some(500),
        temperature: Some(0.2),
        ..StreamOptions::default()
    };
    let body = to_completions_request(
        &model,
        &context(
            Some("sys"),
            vec![user(vec![ContentBlock::text("q")])],
            vec![read_tool()],
        ),
        &options,
    );
    assert_json(
        &body,
        &json!({
            "model": "qwen3",
            "messages": [
                {"role": "system", "content": "sys"},
                {"role": "user", "content": [{"type": "text", "text": "q"}]}
            ],
            "stream": true,
            "max_tokens": 500,
            "temperature": 0.2,
            "tools": [{"type": "function", "function": {
                "name": "read",
                "description": "Read a file",
                "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
            }}]
        }),
    );
}

#[test]
fn strict_servers_get_tool_names_a_bridge_turn_and_empty_string_content() {
    let mut model = model("custom", "devstral", "https://gateway.example/v1");
    model.compat = Some(json!({
        "requiresToolResultName": true,
        "requiresAssistantAfterToolResult": true,
        "requiresThinkingAsText": true
    }));
    let messages = vec![
        user(vec![ContentBlock::text("go")]),
        assistant(&model, vec![call("c1", "ls", json!({}))]),
        result("c1", "ls", vec![ContentBlock::text("a\nb")], false),
        user(vec![ContentBlock::text("now think")]),
        assistant(
            &model,
            vec![
                thinking("Plan.", "reasoning_content"),
                ContentBlock::text("Done."),
            ],
        ),
    ];
    let body = to_completions_request(
        &model,
        &context(None, messages, vec![]),
        &StreamOptions::default(),
    );
    assert_json(
        &body["messages"],
        &json!([
            {"role": "user", "content": [{"type": "text", "text": "go"}]},
            {"role": "assistant", "content": "", "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
            ]},
            {"role": "tool", "content": "a\nb", "tool_call_id": "c1", "name": "ls"},
            {"role": "assistant", "content": "I have processed the tool results."},
            {"role": "user", "content": [{"type": "text", "text": "now think"}]},
            {"role": "assistant", "content": "Plan.\n\nDone."}
        ]),
    );
    // No tools offered, but the history has tool calls: `tools: []` keeps proxies happy.
    assert_eq!(body["tools"], json!([]));
}

#[test]
fn tool_result_images_follow_the_run_of_results_as_one_user_message() {
    let model = model("openai", "gpt-4o", "https://api.openai.com/v1");
    let messages = vec![
        user(vec![ContentBlock::text("shoot")]),
        assistant(
            &model,
            vec![
                call("s1", "screenshot", json!({})),
                call("s2", "screenshot", json!({})),
            ],
        ),
        result(
            "s1",
            "screenshot",
            vec![ContentBlock::text("taken"), image()],
            false,
        ),
        result("s2", "screenshot", vec![image()], false),
    ];
    let body = to_completions_request(
        &model,
        &context(None, messages, vec![]),
        &StreamOptions::default(),
    );
    let url = "data:image/png;base64,iVBORw0KGgo=";
    assert_json(
        &body["messages"],
        &json!([
            {"role": "user", "content": [{"type": "text", "text": "shoot"}]},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "s1", "type": "function", "function": {"name": "screenshot", "arguments": "{}"}},
                {"id": "s2", "type": "function", "function": {"name": "screenshot", "arguments": "{}"}}
            ]},
            {"role": "tool", "content": "taken", "tool_call_id": "s1"},
            {"role": "tool", "content": "(see attached image)", "tool_call_id": "s2"},
            {"role": "user", "content": [
                {"type": "text", "text": "Attached image(s) from tool result:"},
                {"type": "image_url", "image_url": {"url": url}},
                {"type": "image_url", "image_url": {"url": url}}
            ]}
        ]),
    );
}

#[test]
fn another_models_turn_replays_thinking_as_text_and_shortens_pipe_ids_in_calls_and_results() {
    let model = model("openai", "gpt-4o", "https://api.openai.com/v1");
    let other = {
        let mut m = model.clone();
        m.provider = "openai-codex".into();
        m.api = "openai-responses".into();
        m
    };
    let messages = vec![
        user(vec![ContentBlock::text("go")]),
        assistant(
            &other,
            vec![
                thinking("Let me think.", "{\"type\":\"reasoning\"}"),
                ContentBlock::text("Answer."),
                call("call_9|fc_+/=abc", "ls", json!({})),
            ],
        ),
        result(
            "call_9|fc_+/=abc",
            "ls",
            vec![ContentBlock::text("x")],
            false,
        ),
        // A failed turn is dropped before conversion.
        Message::Assistant(Arc::new({
            let mut failed = AssistantMessage::empty(&model.api, &model.provider, &model.id);
            failed.stop_reason = StopReason::Error;
            failed.content = vec![ContentBlock::text("partial")];
            failed
        })),
    ];
    let body = to_completions_request(
        &model,
        &context(None, messages, vec![]),
        &StreamOptions::default(),
    );
    assert_json(
        &body["messages"],
        &json!([
            {"role": "user", "content": [{"type": "text", "text": "go"}]},
            {"role": "assistant", "content": "Let me think.Answer.", "tool_calls": [
                {"id": "call_9", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
            ]},
            {"role": "tool", "content": "x", "tool_call_id": "call_9"}
        ]),
    );
}

#[test]
fn thinking_formats_switch_reasoning_on_and_off() {
    let cases = [
        ("openrouter", None, json!({"reasoning": {"effort": "none"}})),
        (
            "openrouter",
            Some(ThinkingLevel::Low),
            json!({"reasoning": {"effort": "low"}}),
        ),
        ("zai", None, json!({"enable_thinking": false})),
        (
            "qwen",
            Some(ThinkingLevel::High),
            json!({"enable_thinking": true}),
        ),
        (
            "qwen-chat-template",
            Some(ThinkingLevel::Minimal),
            json!({"chat_template_kwargs": {"enable_thinking": true, "preserve_thinking": true}}),
        ),
        ("deepseek", None, json!({"thinking": {"type": "disabled"}})),
        (
            "openai",
            Some(ThinkingLevel::Xhigh),
            json!({"reasoning_effort": "high"}),
        ),
        ("openai", None, json!({})),
    ];
    for (format, level, expected) in cases {
        let mut model = model("custom", "m", "https://llm.example/v1");
        model.compat = Some(
            json!({"thinkingFormat": format, "supportsUsageInStreaming": false, "supportsStore": false}),
        );
        let options = StreamOptions {
            reasoning: level,
            max_tokens: Some(0),
            ..StreamOptions::default()
        };
        let mut body = to_completions_request(&model, &context(None, vec![], vec![]), &options);
        let body = body.as_object_mut().unwrap();
        for key in ["model", "messages", "stream"] {
            body.remove(key);
        }
        assert_eq!((format, Value::Object(body.clone())), (format, expected));
    }
}

#[test]
fn a_non_reasoning_model_gets_no_reasoning_parameters_and_an_empty_assistant_is_skipped() {
    let mut model = model("openai", "gpt-4o", "https://api.openai.com/v1");
    model.reasoning = false;
    let messages = vec![
        user(vec![ContentBlock::text("q")]),
        assistant(&model, vec![ContentBlock::text("  ")]),
        Message::User(Arc::new(UserMessage {
            content: UserContent::Text("plain".into()),
            timestamp: 3,
        })),
    ];
    let options = StreamOptions {
        reasoning: Some(ThinkingLevel::High),
        ..StreamOptions::default()
    };
    let body = to_completions_request(&model, &context(Some("sys"), messages, vec![]), &options);
    assert_json(
        &body,
        &json!({
            "model": "gpt-4o",
            "messages": [
                {"role": "system", "content": "sys"},
                {"role": "user", "content": [{"type": "text", "text": "q"}]},
                {"role": "user", "content": "plain"}
            ],
            "stream": true,
            "stream_options": {"include_usage": true},
            "store": false,
            "max_completion_tokens": 32000
        }),
    );
}
