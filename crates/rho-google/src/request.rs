//! One Gemini `streamGenerateContent` call: endpoint, headers and JSON body (pi-reference §5.4
//! "Request"). The body is what the `@google/genai` SDK sends for Pi's parameters: `contents`,
//! `systemInstruction`, `tools`, then `generationConfig`.

use rho_ai::transform::transform_messages;
use rho_ai::{Context, Model, StreamOptions};
use rho_http::PostRequest;
use serde_json::Value;

use crate::convert::{convert_messages, convert_tools, normalize_tool_call_id};
use crate::thinking::thinking_config;
use crate::wire::{GenerateContentRequest, GenerationConfig, Part, WireContent};

/// The output cap used when the caller sets none (Pi's `streamSimple` base).
pub const DEFAULT_MAX_TOKENS_CAP: u64 = 32_000;

/// `POST` target: `{base_url}/models/{id}:streamGenerateContent?alt=sse`. An id that already names
/// its collection (`models/…`, `tunedModels/…`) is used as is, as the SDK does. The key never goes
/// in the URL: it travels in the `x-goog-api-key` header.
pub fn stream_url(base_url: &str, model_id: &str) -> String {
    let base = base_url.trim_end_matches('/');
    let path = if model_id.starts_with("models/") || model_id.starts_with("tunedModels/") {
        model_id.to_owned()
    } else {
        format!("models/{model_id}")
    };
    format!("{base}/{path}:streamGenerateContent?alt=sse")
}

/// The request body, as a JSON value (for inspection; the provider sends
/// [`google_request_body`]).
pub fn to_google_request(model: &Model, context: &Context, options: &StreamOptions) -> Value {
    with_request(model, context, options, |request| {
        serde_json::to_value(request).unwrap_or_default()
    })
}

/// The request body as the bytes sent: the typed body of [`crate::wire`], borrowed from the
/// context and serialized straight into bytes.
pub fn google_request_body(
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
    write: impl FnOnce(&GenerateContentRequest<'_>) -> R,
) -> R {
    let normalize = |id: &str| normalize_tool_call_id(&model.id, id);
    let messages = transform_messages(&context.messages, model, &normalize);
    let system = context.system_prompt.as_deref().filter(|s| !s.is_empty());
    let max_output_tokens = options
        .max_tokens
        .or_else(|| (model.max_tokens > 0).then(|| model.max_tokens.min(DEFAULT_MAX_TOKENS_CAP)));
    let request = GenerateContentRequest {
        contents: convert_messages(&messages, model),
        system_instruction: system.map(|text| WireContent {
            parts: vec![Part::text(text)],
            role: "user",
        }),
        tools: convert_tools(&context.tools),
        generation_config: GenerationConfig {
            temperature: options.temperature,
            max_output_tokens,
            thinking_config: thinking_config(model, options),
        },
    };
    write(&request)
}

/// The request headers: the key, then `model.headers` (which replace a header of the same name,
/// compared case-insensitively). `content-type` is the HTTP client's.
pub fn google_headers(model: &Model, api_key: &str) -> Vec<(String, String)> {
    let mut headers: Vec<(String, String)> = vec![("x-goog-api-key".into(), api_key.into())];
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_url_names_the_model_under_models_and_asks_for_sse() {
        assert_eq!(
            stream_url(
                "https://generativelanguage.googleapis.com/v1beta/",
                "gemini-2.5-pro"
            ),
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
        );
        assert_eq!(
            stream_url("http://x/v1beta", "tunedModels/mine"),
            "http://x/v1beta/tunedModels/mine:streamGenerateContent?alt=sse"
        );
    }
}
