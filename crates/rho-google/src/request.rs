//! One Gemini `streamGenerateContent` call: endpoint, headers and JSON body (pi-reference §5.4
//! "Request"). The body is what the `@google/genai` SDK sends for Pi's parameters: `contents`,
//! `systemInstruction`, `tools`, then `generationConfig`.

use rho_ai::transform::transform_messages;
use rho_ai::{Context, Model, StreamOptions};
use serde_json::{Map, Value, json};

use crate::convert::{convert_messages, convert_tools, normalize_tool_call_id};
use crate::thinking::thinking_config;

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

/// The request body.
pub fn to_google_request(model: &Model, context: &Context, options: &StreamOptions) -> Value {
    let normalize = |id: &str| normalize_tool_call_id(&model.id, id);
    let messages = transform_messages(&context.messages, model, &normalize);

    let mut body = Map::new();
    body.insert(
        "contents".into(),
        Value::Array(convert_messages(&messages, model)),
    );
    if let Some(system) = context.system_prompt.as_deref().filter(|s| !s.is_empty()) {
        body.insert(
            "systemInstruction".into(),
            json!({"parts": [{"text": system}], "role": "user"}),
        );
    }
    if let Some(tools) = convert_tools(&context.tools) {
        body.insert("tools".into(), tools);
    }
    let mut generation = Map::new();
    if let Some(temperature) = options.temperature {
        generation.insert("temperature".into(), json!(temperature));
    }
    let max_tokens = options
        .max_tokens
        .or_else(|| (model.max_tokens > 0).then(|| model.max_tokens.min(DEFAULT_MAX_TOKENS_CAP)));
    if let Some(max_tokens) = max_tokens {
        generation.insert("maxOutputTokens".into(), json!(max_tokens));
    }
    if let Some(thinking) = thinking_config(model, options) {
        generation.insert("thinkingConfig".into(), thinking);
    }
    body.insert("generationConfig".into(), Value::Object(generation));
    Value::Object(body)
}

/// The request body as the bytes sent.
pub fn google_request_body(
    model: &Model,
    context: &Context,
    options: &StreamOptions,
) -> Result<Vec<u8>, serde_json::Error> {
    rho_http::PostRequest::try_json_body(&to_google_request(model, context, options))
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
