//! Failures reported inside a Responses stream (`error` events, `response.failed`, chunks
//! carrying an `error` object), worded as Pi words them and classified by the provider's code.
//! HTTP error responses share Chat Completions' shape and use its classification.

use rho_ai::ErrorKind;
use rho_http::Failure;
use serde_json::Value;

use crate::completions::is_quota_code;

/// Pi's message for a `response.failed` without error or incomplete details.
pub const UNKNOWN_FAILURE: &str = "Unknown error (no error details in response)";

/// Pi's message for a response that finished with status `failed` or `cancelled`.
pub const UNKNOWN_ERROR: &str = "An unknown error occurred";

/// The kind an OpenAI error code (or type) names.
pub fn kind_from_code(code: Option<&str>) -> ErrorKind {
    match code {
        Some("rate_limit_exceeded" | "rate_limit_error") => ErrorKind::RateLimited,
        Some(code) if is_quota_code(code) => ErrorKind::QuotaExceeded,
        Some("context_length_exceeded" | "model_context_window_exceeded") => {
            ErrorKind::ContextOverflow
        }
        Some("server_error" | "internal_server_error" | "service_unavailable") => ErrorKind::Server,
        Some("overloaded_error" | "overloaded") => ErrorKind::Overloaded,
        Some("invalid_prompt" | "invalid_request_error") => ErrorKind::InvalidRequest,
        _ => ErrorKind::Provider,
    }
}

/// A field as JavaScript's template literal prints it (`undefined` when absent).
fn js_text(value: Option<&Value>) -> String {
    match value {
        None => "undefined".to_owned(),
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
    }
}

/// A chunk with a non-null `error` object: the OpenAI SDK throws it with the error's `message`
/// (or the whole error as JSON), so that is the text; the kind comes from its `code` or `type`.
pub fn chunk_error(error: &Value) -> Failure {
    let message = match error.get("message") {
        Some(Value::String(text)) if !text.is_empty() => text.clone(),
        Some(other) if !other.is_null() && other != &Value::Bool(false) => other.to_string(),
        _ => error.to_string(),
    };
    let code = error
        .get("code")
        .and_then(Value::as_str)
        .or_else(|| error.get("type").and_then(Value::as_str));
    Failure::new(kind_from_code(code), message)
}

/// An `error` event with its fields at the top level: `Error Code <code>: <message>`.
pub fn error_event(event: &Value) -> Failure {
    let message = format!(
        "Error Code {}: {}",
        js_text(event.get("code")),
        js_text(event.get("message"))
    );
    Failure::new(
        kind_from_code(event.get("code").and_then(Value::as_str)),
        message,
    )
}

/// `response.failed`: `<code>: <message>`, else `incomplete: <reason>`, else Pi's unknown error.
pub fn response_failed(response: Option<&Value>) -> Failure {
    let error = response
        .and_then(|r| r.get("error"))
        .filter(|e| e.is_object());
    if let Some(error) = error {
        let field = |key: &str, fallback: &str| match error.get(key) {
            Some(Value::String(text)) if !text.is_empty() => text.clone(),
            Some(other) if !other.is_null() && other.as_str().is_none() => other.to_string(),
            _ => fallback.to_owned(),
        };
        let code = error.get("code").and_then(Value::as_str);
        return Failure::new(
            kind_from_code(code),
            format!(
                "{}: {}",
                field("code", "unknown"),
                field("message", "no message")
            ),
        );
    }
    let reason = response
        .and_then(|r| r.pointer("/incomplete_details/reason"))
        .and_then(Value::as_str)
        .filter(|r| !r.is_empty());
    match reason {
        Some(reason) => Failure::new(ErrorKind::Provider, format!("incomplete: {reason}")),
        None => Failure::new(ErrorKind::Provider, UNKNOWN_FAILURE),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn failures_are_worded_as_pi_words_them_and_classified_by_code() {
        let failures = [
            error_event(
                &json!({"type": "error", "code": "rate_limit_exceeded", "message": "slow"}),
            ),
            error_event(&json!({"type": "error", "message": "odd"})),
            response_failed(Some(
                &json!({"error": {"code": "server_error", "message": "boom"}}),
            )),
            response_failed(Some(&json!({"error": {"code": "context_length_exceeded"}}))),
            response_failed(Some(
                &json!({"error": null, "incomplete_details": {"reason": "max_output_tokens"}}),
            )),
            response_failed(None),
            chunk_error(
                &json!({"type": "insufficient_quota", "code": "insufficient_quota", "message": "no money"}),
            ),
            chunk_error(&json!({"code": 42})),
        ];
        assert_eq!(
            failures,
            [
                Failure::new(
                    ErrorKind::RateLimited,
                    "Error Code rate_limit_exceeded: slow"
                ),
                Failure::new(ErrorKind::Provider, "Error Code undefined: odd"),
                Failure::new(ErrorKind::Server, "server_error: boom"),
                Failure::new(
                    ErrorKind::ContextOverflow,
                    "context_length_exceeded: no message"
                ),
                Failure::new(ErrorKind::Provider, "incomplete: max_output_tokens"),
                Failure::new(ErrorKind::Provider, UNKNOWN_FAILURE),
                Failure::new(ErrorKind::QuotaExceeded, "no money"),
                Failure::new(ErrorKind::Provider, r#"{"code":42}"#),
            ]
        );
    }
}
