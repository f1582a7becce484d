//! The Responses request (pi-reference §5.2 "Request"): endpoint, headers and JSON body.

use rho_ai::{Context, Model, StreamOptions, ThinkingLevel, ToolSpec};
use serde_json::{Map, Number, Value, json};

use super::convert::convert_input;

/// Pi's cap on the default output budget when the caller sets none (pi-reference §2.1).
const DEFAULT_MAX_TOKENS_CAP: u64 = 32_000;

/// `POST {base_url}/responses`, without a doubled slash.
pub fn responses_url(model: &Model) -> String {
    format!("{}/responses", model.base_url.trim_end_matches('/'))
}

fn session_id(options: &StreamOptions) -> Option<&str> {
    options.session_id.as_deref().filter(|s| !s.is_empty())
}

/// The request headers: `authorization: Bearer <key>` when there is a key, `model.headers`
/// (string values only), then `session_id` and `x-client-request-id` naming the session, which
/// routes the call to the cache of earlier turns. A later header replaces a same-named one.
/// The HTTP client adds `content-type`.
pub fn request_headers(
    model: &Model,
    api_key: Option<&str>,
    options: &StreamOptions,
) -> Vec<(String, String)> {
    let mut headers: Vec<(String, String)> = Vec::new();
    let mut set = |name: &str, value: &str| {
        headers.retain(|(existing, _)| !existing.eq_ignore_ascii_case(name));
        headers.push((name.to_owned(), value.to_owned()));
    };
    if let Some(key) = api_key.filter(|k| !k.is_empty()) {
        set("authorization", &format!("Bearer {key}"));
    }
    if let Some(Value::Object(extra)) = &model.headers {
        for (name, value) in extra {
            if let Some(value) = value.as_str() {
                set(name, value);
            }
        }
    }
    if let Some(session) = session_id(options) {
        let send_session_header = model
            .compat
            .as_ref()
            .and_then(|c| c.get("sendSessionIdHeader"))
            .and_then(Value::as_bool)
            .unwrap_or(true);
        if send_session_header {
            set("session_id", session);
        }
        set("x-client-request-id", session);
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

fn convert_tools(tools: &[ToolSpec]) -> Value {
    let tools = tools
        .iter()
        .map(|tool| {
            json!({
                "type": "function",
                "name": tool.name,
                "description": tool.description,
                "parameters": tool.parameters,
                "strict": false,
            })
        })
        .collect();
    Value::Array(tools)
}

/// The effort name of a requested level; `None` when reasoning is off. The level arrives already
/// clamped to what the model supports, so `xhigh` is passed on as is; `max` (Pi 1.6) is sent as
/// `xhigh`, the most the Responses API names.
fn effort(level: Option<ThinkingLevel>) -> Option<&'static str> {
    Some(match level? {
        ThinkingLevel::Off => return None,
        ThinkingLevel::Minimal => "minimal",
        ThinkingLevel::Low => "low",
        ThinkingLevel::Medium => "medium",
        ThinkingLevel::High => "high",
        ThinkingLevel::Xhigh | ThinkingLevel::Max => "xhigh",
    })
}

/// Builds the streaming request body for `model`.
pub fn to_responses_request(model: &Model, context: &Context, options: &StreamOptions) -> Value {
    let input = convert_input(model, context.system_prompt.as_deref(), &context.messages);
    let mut body = Map::new();
    body.insert("model".into(), Value::String(model.id.clone()));
    body.insert("input".into(), Value::Array(input));
    body.insert("stream".into(), Value::Bool(true));
    if let Some(session) = session_id(options) {
        body.insert("prompt_cache_key".into(), Value::String(session.to_owned()));
    }
    body.insert("store".into(), Value::Bool(false));
    let default_max = (model.max_tokens > 0).then(|| model.max_tokens.min(DEFAULT_MAX_TOKENS_CAP));
    if let Some(max) = options.max_tokens.or(default_max).filter(|m| *m > 0) {
        body.insert("max_output_tokens".into(), Value::from(max));
    }
    if let Some(temperature) = options.temperature.and_then(js_number) {
        body.insert("temperature".into(), temperature);
    }
    if !context.tools.is_empty() {
        body.insert("tools".into(), convert_tools(&context.tools));
    }
    if model.reasoning {
        match effort(options.reasoning) {
            Some(effort) => {
                body.insert(
                    "reasoning".into(),
                    json!({"effort": effort, "summary": "auto"}),
                );
                // Without the encrypted reasoning, a stateless (`store:false`) conversation
                // could not hand the model its own reasoning back on the next turn.
                body.insert("include".into(), json!(["reasoning.encrypted_content"]));
            }
            // Reasoning models reason unless told not to; Copilot rejects the switch.
            None if model.provider != "github-copilot" => {
                body.insert("reasoning".into(), json!({"effort": "none"}));
            }
            None => {}
        }
    }
    Value::Object(body)
}
