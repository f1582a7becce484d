//! The Responses request (pi-reference §5.2 "Request"): endpoint, headers and JSON body.

use rho_ai::{Context, Model, StreamOptions, ThinkingLevel, ToolSpec};
use rho_http::PostRequest;
use serde_json::Value;

use super::convert::{convert_input, transform_for};
use super::wire::{Reasoning, ResponsesRequest, WireTool};
use crate::body::JsNumber;

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

/// The tools; `strict: false` only when `compat.supportsStrictMode` is set (Pi 1.6's default is
/// off, so the key is absent).
fn convert_tools<'a>(model: &Model, tools: &'a [ToolSpec]) -> Vec<WireTool<'a>> {
    let supports_strict = model
        .compat
        .as_ref()
        .and_then(|c| c.get("supportsStrictMode"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let strict = supports_strict.then_some(false);
    tools
        .iter()
        .map(|tool| WireTool::function(&tool.name, &tool.description, &tool.parameters, strict))
        .collect()
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

/// Builds the streaming request body for `model`, as a JSON value (for inspection; the
/// provider sends [`responses_request_body`]).
pub fn to_responses_request(model: &Model, context: &Context, options: &StreamOptions) -> Value {
    with_request(model, context, options, |request| {
        serde_json::to_value(request).unwrap_or_default()
    })
}

/// The request body as the bytes sent: the typed body of [`super::wire`], borrowed from the
/// context and serialized straight into bytes.
pub fn responses_request_body(
    model: &Model,
    context: &Context,
    options: &StreamOptions,
) -> Result<Vec<u8>, serde_json::Error> {
    with_request(model, context, options, |request| {
        PostRequest::try_json_body(request)
    })
}

/// Builds the typed body (borrowing the transformed transcript, which lives only for this call)
/// and hands it to `write`.
fn with_request<R>(
    model: &Model,
    context: &Context,
    options: &StreamOptions,
    write: impl FnOnce(&ResponsesRequest<'_>) -> R,
) -> R {
    let transformed = transform_for(model, &context.messages);
    let default_max = (model.max_tokens > 0).then(|| model.max_tokens.min(DEFAULT_MAX_TOKENS_CAP));
    let (reasoning, include) = match effort(options.reasoning) {
        _ if !model.reasoning => (None, None),
        // Without the encrypted reasoning, a stateless (`store:false`) conversation could not
        // hand the model its own reasoning back on the next turn.
        Some(effort) => (
            Some(Reasoning {
                effort,
                summary: Some("auto"),
            }),
            Some(["reasoning.encrypted_content"]),
        ),
        // Reasoning models reason unless told not to; Copilot rejects the switch.
        None if model.provider != "github-copilot" => (
            Some(Reasoning {
                effort: "none",
                summary: None,
            }),
            None,
        ),
        None => (None, None),
    };
    let request = ResponsesRequest {
        model: &model.id,
        input: convert_input(model, context.system_prompt.as_deref(), &transformed),
        stream: true,
        prompt_cache_key: session_id(options),
        store: false,
        max_output_tokens: options.max_tokens.or(default_max).filter(|m| *m > 0),
        temperature: options.temperature.and_then(JsNumber::finite),
        tools: (!context.tools.is_empty()).then(|| convert_tools(model, &context.tools)),
        reasoning,
        include,
    };
    write(&request)
}
