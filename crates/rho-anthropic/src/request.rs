//! One Anthropic Messages call: endpoint, headers and JSON body (pi-reference §5.1 "Request").

use rho_ai::transform::transform_messages;
use rho_ai::{Context, Model, StreamOptions, ThinkingLevel};
use rho_http::PostRequest;
use serde_json::Value;

use crate::convert::{CacheRetention, convert_tools, normalize_tool_call_id, wire_messages};
use crate::thinking::{is_adaptive_model, plan_thinking};
use crate::wire::{Block, MessagesRequest};

/// The `anthropic-version` header value.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";
/// Beta asking for unbuffered tool-argument deltas, for endpoints without `eager_input_streaming`.
pub const FINE_GRAINED_TOOL_STREAMING_BETA: &str = "fine-grained-tool-streaming-2025-05-14";
/// Beta letting budget-thinking models think between tool calls.
pub const INTERLEAVED_THINKING_BETA: &str = "interleaved-thinking-2025-05-14";

/// `POST` target: `{base_url}/v1/messages`, without doubling a `/v1` the base URL already has.
pub fn messages_url(base_url: &str) -> String {
    let base = base_url.trim_end_matches('/');
    if base.ends_with("/v1") {
        format!("{base}/messages")
    } else {
        format!("{base}/v1/messages")
    }
}

/// Whether tool definitions may carry `eager_input_streaming` (`compat.supportsEagerToolInputStreaming`
/// is not `false`).
pub fn supports_eager_tool_input_streaming(model: &Model) -> bool {
    model
        .compat
        .as_ref()
        .and_then(|compat| compat.get("supportsEagerToolInputStreaming"))
        .and_then(Value::as_bool)
        != Some(false)
}

/// The request body with the default (`short`) cache retention, as a JSON value (for inspection;
/// the provider sends [`anthropic_request_body`]).
pub fn to_anthropic_request(model: &Model, context: &Context, options: &StreamOptions) -> Value {
    to_anthropic_request_with(model, context, options, CacheRetention::default())
}

/// The request body with an explicit cache retention, as a JSON value.
pub fn to_anthropic_request_with(
    model: &Model,
    context: &Context,
    options: &StreamOptions,
    retention: CacheRetention,
) -> Value {
    with_request(model, context, options, retention, |request| {
        serde_json::to_value(request).unwrap_or_default()
    })
}

/// The request body as the bytes sent: the typed body of [`crate::wire`], borrowed from the
/// context and serialized straight into bytes.
pub fn anthropic_request_body(
    model: &Model,
    context: &Context,
    options: &StreamOptions,
    retention: CacheRetention,
) -> Result<Vec<u8>, serde_json::Error> {
    with_request(model, context, options, retention, |request| {
        PostRequest::try_json_body(request)
    })
}

/// Builds the typed body (borrowing the transformed transcript, which lives only for this call)
/// and hands it to `write`.
fn with_request<R>(
    model: &Model,
    context: &Context,
    options: &StreamOptions,
    retention: CacheRetention,
    write: impl FnOnce(&MessagesRequest<'_>) -> R,
) -> R {
    let cache_control = retention.cache_control();
    let messages = transform_messages(&context.messages, model, &normalize_tool_call_id);
    let plan = plan_thinking(model, options);
    let system = context.system_prompt.as_deref().filter(|s| !s.is_empty());
    let request = MessagesRequest {
        model: &model.id,
        messages: wire_messages(&messages, cache_control),
        max_tokens: plan.max_tokens,
        stream: true,
        system: system.map(|text| {
            [Block::Text {
                text,
                cache_control,
            }]
        }),
        temperature: options.temperature.filter(|_| !plan.enabled),
        tools: (!context.tools.is_empty()).then(|| {
            let eager = supports_eager_tool_input_streaming(model);
            convert_tools(&context.tools, eager, cache_control)
        }),
        thinking: plan.thinking,
        output_config: plan.output_config,
    };
    write(&request)
}

/// The `anthropic-beta` features this call needs, if any (Pi 1.6's `getBetaFeatures`):
/// fine-grained tool streaming where eager input streaming is off, and interleaved thinking
/// only when this call thinks on a budget-thinking model (0.73.1 sent it on every call).
pub fn beta_features(
    model: &Model,
    context: &Context,
    options: &StreamOptions,
) -> Vec<&'static str> {
    let mut betas = Vec::new();
    if !context.tools.is_empty() && !supports_eager_tool_input_streaming(model) {
        betas.push(FINE_GRAINED_TOOL_STREAMING_BETA);
    }
    let thinking = options
        .reasoning
        .is_some_and(|level| level != ThinkingLevel::Off);
    if model.reasoning && thinking && !is_adaptive_model(&model.id) {
        betas.push(INTERLEAVED_THINKING_BETA);
    }
    betas
}

/// The request headers: key, version, betas, then `model.headers` (which replace a header of the
/// same name, compared case-insensitively). `content-type` is the HTTP client's.
pub fn anthropic_headers(
    model: &Model,
    context: &Context,
    options: &StreamOptions,
    api_key: &str,
) -> Vec<(String, String)> {
    let mut headers: Vec<(String, String)> = vec![
        ("x-api-key".into(), api_key.into()),
        ("anthropic-version".into(), ANTHROPIC_VERSION.into()),
    ];
    let betas = beta_features(model, context, options);
    if !betas.is_empty() {
        headers.push(("anthropic-beta".into(), betas.join(",")));
    }
    if let Some(Value::Object(extra)) = &model.headers {
        for (name, value) in extra {
            let value = match value {
                Value::String(text) => text.clone(),
                Value::Null => continue,
                other => other.to_string(),
            };
            headers.retain(|(existing, _)| !existing.eq_ignore_ascii_case(name));
            headers.push((name.clone(), value));
        }
    }
    headers
}
