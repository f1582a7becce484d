//! The Chat Completions request (pi-reference §5.3 "Request"): endpoint, headers and JSON body.

use rho_ai::transform::transform_messages;
use rho_ai::{Context, Message, Model, StreamOptions, ToolSpec};
use serde_json::{Map, Number, Value, json};

use super::compat::{CompletionsCompat, ThinkingFormat};
use super::convert::{convert_messages, normalize_tool_call_id};

/// Pi's cap on the default output budget when the caller sets none (pi-reference §2.1).
const DEFAULT_MAX_TOKENS_CAP: u64 = 32_000;

/// `POST {base_url}/chat/completions`, without a doubled slash.
pub fn completions_url(model: &Model) -> String {
    format!("{}/chat/completions", model.base_url.trim_end_matches('/'))
}

/// The request headers: `authorization: Bearer <key>` when there is a key, then `model.headers`
/// (string values only; a same-named one replaces the default). The HTTP client adds
/// `content-type`.
pub fn request_headers(model: &Model, api_key: Option<&str>) -> Vec<(String, String)> {
    let mut headers = Vec::new();
    if let Some(key) = api_key.filter(|k| !k.is_empty()) {
        headers.push(("authorization".to_owned(), format!("Bearer {key}")));
    }
    if let Some(Value::Object(extra)) = &model.headers {
        for (name, value) in extra {
            let Some(value) = value.as_str() else {
                continue;
            };
            headers.retain(|(existing, _)| !existing.eq_ignore_ascii_case(name));
            headers.push((name.clone(), value.to_owned()));
        }
    }
    headers
}

/// A JSON number written as JavaScript would (`1`, not `1.0`); `None` for NaN and infinities.
fn js_number(value: f64) -> Option<Value> {
    if value.fract() == 0.0 && value.abs() < 9.0e15 {
        return Some(Value::Number(Number::from(value as i64)));
    }
    Number::from_f64(value).map(Value::Number)
}

fn has_tool_history(messages: &[Message]) -> bool {
    messages.iter().any(|message| match message {
        Message::ToolResult(_) => true,
        Message::Assistant(assistant) => assistant.tool_calls().next().is_some(),
        Message::User(_) => false,
    })
}

fn convert_tools(tools: &[ToolSpec], compat: &CompletionsCompat) -> Value {
    let tools = tools
        .iter()
        .map(|tool| {
            let mut function = json!({
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters,
            });
            if compat.supports_strict_mode {
                function["strict"] = Value::Bool(false);
            }
            json!({"type": "function", "function": function})
        })
        .collect();
    Value::Array(tools)
}

/// Builds the streaming request body for `model` with the compat switches of
/// [`CompletionsCompat::for_model`].
pub fn to_completions_request(model: &Model, context: &Context, options: &StreamOptions) -> Value {
    let compat = CompletionsCompat::for_model(model);
    let normalize = |id: &str| normalize_tool_call_id(id, model);
    let messages = transform_messages(&context.messages, model, &normalize);
    let wire_messages =
        convert_messages(model, context.system_prompt.as_deref(), &messages, &compat);

    let mut body = Map::new();
    body.insert("model".into(), Value::String(model.id.clone()));
    body.insert("messages".into(), Value::Array(wire_messages));
    body.insert("stream".into(), Value::Bool(true));
    if compat.supports_usage_in_streaming {
        body.insert("stream_options".into(), json!({"include_usage": true}));
    }
    if compat.supports_store {
        body.insert("store".into(), Value::Bool(false));
    }
    let default_max = (model.max_tokens > 0).then(|| model.max_tokens.min(DEFAULT_MAX_TOKENS_CAP));
    if let Some(max) = options.max_tokens.or(default_max).filter(|m| *m > 0) {
        body.insert(compat.max_tokens_field.key().into(), Value::from(max));
    }
    if let Some(temperature) = options.temperature.and_then(js_number) {
        body.insert("temperature".into(), temperature);
    }
    if !context.tools.is_empty() {
        body.insert("tools".into(), convert_tools(&context.tools, &compat));
    } else if has_tool_history(&messages) {
        // Proxies in front of Anthropic reject tool history without a `tools` parameter.
        body.insert("tools".into(), Value::Array(Vec::new()));
    }
    insert_reasoning(&mut body, model, &compat, options);
    if let Some(session) = options.session_id.as_deref().filter(|s| !s.is_empty())
        && model.base_url.contains("api.openai.com")
    {
        body.insert("prompt_cache_key".into(), Value::String(session.to_owned()));
    }
    Value::Object(body)
}

/// The request body as the bytes sent.
pub fn completions_request_body(
    model: &Model,
    context: &Context,
    options: &StreamOptions,
) -> Result<Vec<u8>, serde_json::Error> {
    rho_http::PostRequest::try_json_body(&to_completions_request(model, context, options))
}

/// The reasoning switches of the model's thinking format. Only reasoning models get any.
fn insert_reasoning(
    body: &mut Map<String, Value>,
    model: &Model,
    compat: &CompletionsCompat,
    options: &StreamOptions,
) {
    if !model.reasoning {
        return;
    }
    let effort = compat.effort(options.reasoning);
    match compat.thinking_format {
        ThinkingFormat::Zai | ThinkingFormat::Qwen => {
            body.insert("enable_thinking".into(), Value::Bool(effort.is_some()));
        }
        ThinkingFormat::QwenChatTemplate => {
            body.insert(
                "chat_template_kwargs".into(),
                json!({"enable_thinking": effort.is_some(), "preserve_thinking": true}),
            );
        }
        ThinkingFormat::Openrouter => {
            let effort = effort.unwrap_or_else(|| "none".to_owned());
            body.insert("reasoning".into(), json!({"effort": effort}));
        }
        ThinkingFormat::Deepseek => {
            let kind = if effort.is_some() {
                "enabled"
            } else {
                "disabled"
            };
            body.insert("thinking".into(), json!({"type": kind}));
            if let Some(effort) = effort {
                body.insert("reasoning_effort".into(), Value::String(effort));
            }
        }
        ThinkingFormat::Openai => {
            if let Some(effort) = effort.filter(|_| compat.supports_reasoning_effort) {
                body.insert("reasoning_effort".into(), Value::String(effort));
            }
        }
    }
}
