//! Classifying Chat Completions errors by the provider's own `code` / `type` / status fields:
//! HTTP error bodies and in-stream error objects (Groq's `event: error`, OpenRouter's `error`
//! inside a chunk) share one shape, `{"error": {message, type?, code?, metadata?}}`.

use rho_ai::{ErrorKind, StopReason};
use rho_http::Failure;
use serde_json::Value;

use crate::provider_error::{SdkHttpError, js_string, js_stringify, truthy, with_raw_metadata};

/// Error codes and types that say the account's quota, plan limit or credit is spent: waiting
/// seconds will not help, so they are not retried (Pi's non-retryable provider-limit list, by
/// code: OpenAI's `insufficient_quota`, OpenCode's usage-limit types, ChatGPT's shared usage
/// limits, a gateway's `billing_error`, and Zhipu's plan-limit code `1308`).
pub fn is_quota_code(code: &str) -> bool {
    matches!(
        code,
        "insufficient_quota"
            | "billing_error"
            | "GoUsageLimitError"
            | "FreeUsageLimitError"
            | "subscription_sharing_usage_limit_exceeded"
            | "subscription_sharing_workplace_individual_usage_limit_exceeded"
            | ZHIPU_PLAN_LIMIT
    )
}

/// Zhipu's (Z.ai) code for a plan whose usage limit is reached, sent with HTTP 429.
const ZHIPU_PLAN_LIMIT: &str = "1308";

/// The kind named by the error's `code` or `type`, or by a numeric `code` / `status_code`
/// (OpenRouter and Groq put HTTP statuses there); `None` when they name nothing known.
fn kind_from_fields(error: &Value) -> Option<ErrorKind> {
    for key in ["code", "type"] {
        let kind = match error.get(key).and_then(Value::as_str) {
            Some("context_length_exceeded" | "model_context_window_exceeded") => {
                ErrorKind::ContextOverflow
            }
            Some(code) if is_quota_code(code) => ErrorKind::QuotaExceeded,
            Some("rate_limit_exceeded" | "rate_limit_error") => ErrorKind::RateLimited,
            Some("overloaded_error" | "overloaded") => ErrorKind::Overloaded,
            Some("server_error" | "internal_server_error" | "service_unavailable") => {
                ErrorKind::Server
            }
            _ => continue,
        };
        return Some(kind);
    }
    for key in ["code", "status_code", "status"] {
        let Some(status) = error.get(key).and_then(Value::as_u64) else {
            continue;
        };
        let kind = match status {
            402 | 1308 => ErrorKind::QuotaExceeded,
            413 => ErrorKind::ContextOverflow,
            429 => ErrorKind::RateLimited,
            529 => ErrorKind::Overloaded,
            500..=599 => ErrorKind::Server,
            _ => continue,
        };
        return Some(kind);
    }
    None
}

/// The kind of an error object that arrived inside a successful (HTTP 200) stream.
pub fn in_stream_error_kind(error: &Value) -> ErrorKind {
    kind_from_fields(error).unwrap_or(ErrorKind::Provider)
}

/// The `errorMessage` for an error object inside a stream: its `message` (OpenAI SDK wording),
/// or the whole object as JSON; OpenRouter's upstream detail `metadata.raw` follows on a new line
/// unless the text already holds it.
pub fn error_message(error: &Value) -> String {
    let message = match error.get("message") {
        Some(Value::String(text)) => text.clone(),
        Some(other) if !other.is_null() => js_stringify(other),
        _ => js_stringify(error),
    };
    let raw = error
        .pointer("/metadata/raw")
        .filter(|raw| truthy(raw))
        .map(js_string);
    with_raw_metadata(message, raw)
}

/// The `errorMessage` of an HTTP error response as Pi 1.6 words it: the body's error object after
/// the status (`529: {"type":"overloaded_error",…}`), else the OpenAI SDK's text (`"<status>
/// <message>"`, the raw text of a non-JSON body, `"<status> status code (no body)"`); then
/// OpenRouter's `metadata.raw` on a new line when the text does not hold it yet.
pub fn http_error_message(status: u16, body: &str) -> String {
    let error = SdkHttpError::parse(status, body);
    with_raw_metadata(error.display(None), error.raw_metadata())
}

/// Classifies an HTTP error response: the status decides, refined by the body's error
/// `code`/`type` (a 400 that is really a context overflow, a 429 that is really an empty
/// account). A body that is not JSON leaves the status's kind.
pub fn classify_http_error(status: u16, body: &str) -> ErrorKind {
    let by_status = match status {
        402 => ErrorKind::QuotaExceeded,
        _ => ErrorKind::from_status(status),
    };
    let Ok(body) = serde_json::from_str::<Value>(body) else {
        return by_status;
    };
    // Some gateways wrap the error object in an array.
    let body = match body {
        Value::Array(mut items) if !items.is_empty() => items.swap_remove(0),
        other => other,
    };
    let error = body.get("error").unwrap_or(&body);
    let refined = ["code", "type"]
        .iter()
        .find_map(|key| match error.get(key)? {
            Value::String(code) => match code.as_str() {
                "context_length_exceeded" | "model_context_window_exceeded" => {
                    Some(ErrorKind::ContextOverflow)
                }
                code if is_quota_code(code) => Some(ErrorKind::QuotaExceeded),
                "rate_limit_exceeded" => Some(ErrorKind::RateLimited),
                _ => None,
            },
            Value::Number(code) if code.as_u64() == Some(1308) => Some(ErrorKind::QuotaExceeded),
            _ => None,
        });
    refined.unwrap_or(by_status)
}

/// Pi's finish-reason mapping; an error reason carries its message and kind.
pub fn map_finish_reason(reason: Option<&str>) -> Result<StopReason, Failure> {
    match reason {
        None | Some("stop" | "end") => Ok(StopReason::Stop),
        Some("length") => Ok(StopReason::Length),
        Some("tool_calls" | "function_call") => Ok(StopReason::ToolUse),
        Some(other) => {
            let kind = match other {
                "content_filter" => ErrorKind::Refused,
                "network_error" => ErrorKind::Server,
                _ => ErrorKind::Provider,
            };
            Err(Failure::new(
                kind,
                format!("Provider finish_reason: {other}"),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn http_status_is_refined_by_the_body_code() {
        let overflow = r#"{"error":{"message":"This model's maximum context length is 128000 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}"#;
        let quota = r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota","code":"insufficient_quota"}}"#;
        let kinds = [
            classify_http_error(400, overflow),
            classify_http_error(429, quota),
            classify_http_error(429, "{}"),
            classify_http_error(400, "not json"),
            classify_http_error(401, r#"{"error":{"code":"invalid_api_key"}}"#),
            classify_http_error(503, ""),
            classify_http_error(
                402,
                r#"{"error":{"code":402,"message":"Insufficient credits"}}"#,
            ),
            classify_http_error(429, r#"{"error":{"code":"1308","message":"limit"}}"#),
            classify_http_error(429, r#"{"error":{"code":1308,"message":"limit"}}"#),
            classify_http_error(429, r#"{"error":{"type":"GoUsageLimitError"}}"#),
            classify_http_error(429, r#"{"error":{"type":"billing_error"}}"#),
            classify_http_error(520, "<html>origin error</html>"),
            classify_http_error(524, ""),
        ];
        assert_eq!(
            kinds,
            [
                ErrorKind::ContextOverflow,
                ErrorKind::QuotaExceeded,
                ErrorKind::RateLimited,
                ErrorKind::InvalidRequest,
                ErrorKind::Auth,
                ErrorKind::Server,
                ErrorKind::QuotaExceeded,
                ErrorKind::QuotaExceeded,
                ErrorKind::QuotaExceeded,
                ErrorKind::QuotaExceeded,
                ErrorKind::QuotaExceeded,
                ErrorKind::Server,
                ErrorKind::Server,
            ]
        );
        assert!(!ErrorKind::QuotaExceeded.is_retryable() && ErrorKind::Server.is_retryable());
    }

    #[test]
    fn in_stream_errors_are_classified_by_code_type_or_numeric_code() {
        let kinds: Vec<ErrorKind> = [
            json!({"code": "rate_limit_exceeded", "message": "slow down"}),
            json!({"code": 429, "message": "Rate limit"}),
            json!({"code": "context_length_exceeded"}),
            json!({"type": "insufficient_quota"}),
            json!({"code": 502, "message": "upstream"}),
            json!({"type": "server_error"}),
            json!({"code": "tool_use_failed", "type": "invalid_request_error", "status_code": 400}),
            json!({"code": 400, "message": "Token limit reached"}),
            json!({"code": "1308", "message": "plan limit"}),
            json!({"code": "subscription_sharing_usage_limit_exceeded"}),
        ]
        .iter()
        .map(in_stream_error_kind)
        .collect();
        assert_eq!(
            kinds,
            [
                ErrorKind::RateLimited,
                ErrorKind::RateLimited,
                ErrorKind::ContextOverflow,
                ErrorKind::QuotaExceeded,
                ErrorKind::Server,
                ErrorKind::Server,
                ErrorKind::Provider,
                ErrorKind::Provider,
                ErrorKind::QuotaExceeded,
                ErrorKind::QuotaExceeded,
            ]
        );
    }

    #[test]
    fn http_error_text_is_the_status_and_the_error_object_as_pi_16_words_it() {
        let texts = [
            http_error_message(
                429,
                r#"{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}"#,
            ),
            http_error_message(
                400,
                r#"{"error":{"code":400,"message":"Provider returned error","metadata":{"raw":"bad"}}}"#,
            ),
            http_error_message(500, r#"{"detail":"nope"}"#),
            http_error_message(502, "<html>bad gateway</html>\n"),
            http_error_message(503, ""),
        ];
        assert_eq!(
            texts,
            [
                r#"429: {"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}"#,
                r#"400: {"code":400,"message":"Provider returned error","metadata":{"raw":"bad"}}"#,
                "500 status code (no body)",
                "502 <html>bad gateway</html>",
                "503 status code (no body)",
            ]
        );
    }

    #[test]
    fn openrouter_raw_metadata_follows_the_message_on_a_new_line() {
        let error = json!({"code": 400, "message": "Provider returned error", "metadata": {"raw": "upstream said no", "provider_name": "X"}});
        assert_eq!(
            error_message(&error),
            "Provider returned error\nupstream said no"
        );
        assert_eq!(error_message(&json!({"code": 1})), r#"{"code":1}"#);
    }
}
