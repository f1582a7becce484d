//! A conversation started on one provider and continued on another (four APIs, all pairs):
//! the request body the target receives has ids valid for the target, every tool result
//! matched to its call, and no orphan calls (pi-reference §5.0, §10 item 17).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashSet;
use std::sync::Arc;

use rho_ai::faux::{faux_message, faux_text, faux_tool_call};
use rho_ai::{
    AssistantMessage, ContentBlock, Context, Message, Model, ModelCost, StopReason, StreamOptions,
    ThinkingContent, ToolResultMessage, ToolSpec, UserMessage,
};
use serde_json::{Value, json};

const APIS: [(&str, &str); 4] = [
    ("anthropic-messages", "anthropic"),
    ("openai-completions", "openai"),
    ("openai-responses", "openai"),
    ("google-generative-ai", "google"),
];

fn model(api: &str, provider: &str, id: &str) -> Model {
    Model {
        id: id.into(),
        name: "m".into(),
        api: api.into(),
        provider: provider.into(),
        base_url: "https://example.invalid".into(),
        reasoning: true,
        input: vec!["text".into()],
        cost: ModelCost::default(),
        context_window: 100_000,
        max_tokens: 8_000,
        headers: None,
        compat: None,
    }
}

/// A tool-call id as the source API writes it.
fn source_id(api: &str, n: usize) -> String {
    match api {
        "anthropic-messages" => format!("toolu_01A{n}bcdefghijklmnop"),
        "openai-completions" => format!("call_{n}abcdefghijklmnopqrstuvwxyz0123456789ABCDEF"),
        "openai-responses" => format!("call_{n}xyz|fc_0123456789abcdef{n}+/="),
        _ => format!("read_1733234567890_{n}"),
    }
}

fn from(source: &Model, content: Vec<ContentBlock>) -> Message {
    let mut message = faux_message(content);
    message.api = source.api.clone();
    message.provider = source.provider.clone();
    message.model = source.id.clone();
    Message::Assistant(Arc::new(message))
}

fn result(id: &str) -> Message {
    Message::ToolResult(Arc::new(ToolResultMessage {
        tool_call_id: id.into(),
        tool_name: "read".into(),
        content: vec![ContentBlock::text("file contents")],
        details: None,
        is_error: false,
        duration_ms: Some(1),
        usage: None,
        timestamp: 1,
    }))
}

fn user(text: &str) -> Message {
    Message::User(Arc::new(UserMessage::text(text)))
}

/// user → assistant(thinking, text, 2 calls) → 2 results → failed assistant → assistant with an
/// unanswered call → user.
fn conversation(source: &Model) -> Context {
    let (a, b, c) = (
        source_id(&source.api, 1),
        source_id(&source.api, 2),
        source_id(&source.api, 3),
    );
    let signed = ContentBlock::Thinking(ThinkingContent {
        thinking: "I should read both.".into(),
        thinking_signature: Some("c2lnbmF0dXJl".into()),
        redacted: None,
    });
    let Message::Assistant(failed) = from(source, vec![faux_text("partial")]) else {
        unreachable!()
    };
    let failed = AssistantMessage {
        stop_reason: StopReason::Error,
        error_message: Some("529 overloaded".into()),
        ..(*failed).clone()
    };
    Context {
        system_prompt: Some("You are helpful.".into()),
        messages: Arc::new(vec![
            user("read a and b"),
            from(
                source,
                vec![
                    signed,
                    faux_text("Reading."),
                    faux_tool_call(&a, "read", json!({"path": "a"})),
                    faux_tool_call(&b, "read", json!({"path": "b"})),
                ],
            ),
            result(&a),
            result(&b),
            Message::Assistant(Arc::new(failed)),
            from(
                source,
                vec![faux_tool_call(&c, "read", json!({"path": "c"}))],
            ),
            user("continue on another model"),
        ]),
        tools: Arc::from(vec![ToolSpec {
            name: "read".into(),
            description: "Read a file".into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
        }]),
    }
}

fn request(target: &Model, context: &Context) -> Value {
    let options = StreamOptions::default();
    match target.api.as_str() {
        "anthropic-messages" => rho_anthropic::to_anthropic_request(target, context, &options),
        "openai-completions" => {
            rho_openai::completions::to_completions_request(target, context, &options)
        }
        "openai-responses" => {
            rho_openai::responses::to_responses_request(target, context, &options)
        }
        _ => rho_google::to_google_request(target, context, &options),
    }
}

fn valid_chars(id: &str, max: usize) -> bool {
    !id.is_empty()
        && id.len() <= max
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// (calls, results) in wire order, each as an id (or, for Gemini, the function name).
fn calls_and_results(api: &str, body: &Value) -> (Vec<String>, Vec<String>) {
    let (mut calls, mut results) = (Vec::new(), Vec::new());
    match api {
        "anthropic-messages" => {
            for message in body["messages"].as_array().unwrap() {
                for block in message["content"].as_array().into_iter().flatten() {
                    match block["type"].as_str() {
                        Some("tool_use") => calls.push(block["id"].as_str().unwrap().to_owned()),
                        Some("tool_result") => {
                            results.push(block["tool_use_id"].as_str().unwrap().to_owned())
                        }
                        _ => {}
                    }
                }
            }
        }
        "openai-completions" => {
            for message in body["messages"].as_array().unwrap() {
                for call in message["tool_calls"].as_array().into_iter().flatten() {
                    calls.push(call["id"].as_str().unwrap().to_owned());
                }
                if message["role"] == "tool" {
                    results.push(message["tool_call_id"].as_str().unwrap().to_owned());
                }
            }
        }
        "openai-responses" => {
            for item in body["input"].as_array().unwrap() {
                match item["type"].as_str() {
                    Some("function_call") => {
                        calls.push(item["call_id"].as_str().unwrap().to_owned())
                    }
                    Some("function_call_output") => {
                        results.push(item["call_id"].as_str().unwrap().to_owned())
                    }
                    _ => {}
                }
            }
        }
        _ => {
            for content in body["contents"].as_array().unwrap() {
                for part in content["parts"].as_array().into_iter().flatten() {
                    if let Some(call) = part.get("functionCall") {
                        calls.push(call["name"].as_str().unwrap().to_owned());
                    }
                    if let Some(response) = part.get("functionResponse") {
                        results.push(response["name"].as_str().unwrap().to_owned());
                    }
                }
            }
        }
    }
    (calls, results)
}

#[test]
fn every_pair_of_apis_gets_valid_ids_matched_results_and_no_orphans() {
    for (source_api, source_provider) in APIS {
        let source = model(source_api, source_provider, "source-model");
        let context = conversation(&source);
        for (target_api, target_provider) in APIS {
            // Always another model than the source's, so its history is "foreign".
            let target = model(target_api, target_provider, "target-model");
            let body = request(&target, &context);
            let pair = format!("{source_api} → {target_api}");
            let (calls, results) = calls_and_results(target_api, &body);
            assert_eq!(
                calls.len(),
                3,
                "{pair}: three calls replayed (the failed turn dropped)"
            );
            assert_eq!(
                results.len(),
                3,
                "{pair}: every call answered, the orphan synthetically"
            );
            assert_eq!(
                calls, results,
                "{pair}: results in call order with the same ids"
            );
            let unique: HashSet<_> = calls.iter().collect();
            if target_api != "google-generative-ai" {
                assert_eq!(unique.len(), 3, "{pair}: ids stay distinct");
            }
            for id in &calls {
                let ok = match target_api {
                    "anthropic-messages" => valid_chars(id, 64),
                    "openai-completions" => id.len() <= 40 && !id.contains('|'),
                    "openai-responses" => valid_chars(id, 64),
                    _ => true,
                };
                assert!(ok, "{pair}: id {id:?} is not valid for the target");
            }
            let text = body.to_string();
            assert!(
                !text.contains("partial"),
                "{pair}: the failed turn is dropped"
            );
            assert!(
                text.contains("No result provided"),
                "{pair}: the orphan call gets a synthetic result"
            );
            assert!(
                text.contains("I should read both."),
                "{pair}: foreign thinking survives as text"
            );
            assert!(
                !text.contains("c2lnbmF0dXJl"),
                "{pair}: a foreign signature is never replayed"
            );
        }
    }
}
