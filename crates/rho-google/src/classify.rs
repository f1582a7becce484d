//! Gemini's error statuses and finish reasons in rho's terms (pi-reference §5.4 "Finish reasons").
//!
//! Gemini reports failures as a `google.rpc.Status`-shaped object, `{"error": {"code", "message",
//! "status", "details"}}`, both as an HTTP error body and (rarely) as an SSE chunk mid-stream. The
//! `status` name is the typed classification; the HTTP code is the fallback.

use rho_ai::{ErrorKind, StopReason};
use serde_json::Value;

/// pi's message for a response that finished with a non-success reason.
pub const UNKNOWN_ERROR: &str = "An unknown error occurred";

/// The kind of a `google.rpc.Code` name, or `None` for a name rho does not know.
pub fn kind_of_status(status: &str) -> Option<ErrorKind> {
    Some(match status {
        "UNAUTHENTICATED" | "PERMISSION_DENIED" => ErrorKind::Auth,
        "NOT_FOUND" => ErrorKind::NotFound,
        "INVALID_ARGUMENT" | "FAILED_PRECONDITION" | "OUT_OF_RANGE" | "UNIMPLEMENTED" => {
            ErrorKind::InvalidRequest
        }
        "RESOURCE_EXHAUSTED" => ErrorKind::RateLimited,
        // Gemini answers 503 UNAVAILABLE when "the model is overloaded".
        "UNAVAILABLE" => ErrorKind::Overloaded,
        "INTERNAL" | "UNKNOWN" | "DATA_LOSS" | "DEADLINE_EXCEEDED" | "ABORTED" => ErrorKind::Server,
        "CANCELLED" => ErrorKind::Provider,
        _ => return None,
    })
}

/// The kind of a Gemini error object (`{"code", "message", "status", "details"}`): its typed
/// details first (an invalid key is a 400 `INVALID_ARGUMENT` whose `ErrorInfo.reason` is
/// `API_KEY_INVALID`), then its `status`, then its numeric `code`.
pub fn kind_of_error_object(error: &Value) -> Option<ErrorKind> {
    let reasons = error
        .get("details")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|detail| detail.get("reason").and_then(Value::as_str));
    for reason in reasons {
        if reason.starts_with("API_KEY_") {
            return Some(ErrorKind::Auth);
        }
    }
    let status = error.get("status").and_then(Value::as_str);
    if status == Some("INVALID_ARGUMENT") && is_token_limit_message(error) {
        return Some(ErrorKind::ContextOverflow);
    }
    if let Some(kind) = status.and_then(kind_of_status) {
        return Some(kind);
    }
    error
        .get("code")
        .and_then(Value::as_u64)
        .and_then(|code| u16::try_from(code).ok())
        .filter(|code| (400..600).contains(code))
        .map(ErrorKind::from_status)
}

/// Gemini has no typed overflow status: an over-long prompt is an `INVALID_ARGUMENT` whose
/// message says "The input token count (N) exceeds the maximum number of tokens allowed (M)".
/// This is read here, where the error arises, so nothing later has to match the text.
fn is_token_limit_message(error: &Value) -> bool {
    error
        .get("message")
        .and_then(Value::as_str)
        .map(str::to_ascii_lowercase)
        .is_some_and(|text| {
            text.contains("input token count") && text.contains("exceeds the maximum")
        })
}

/// Classifies an HTTP error response: the body's `error` object when it names a known status,
/// else the HTTP status.
pub fn classify_http_error(status: u16, body: &str) -> ErrorKind {
    serde_json::from_str::<Value>(body)
        .ok()
        .as_ref()
        .and_then(|json| json.get("error"))
        .and_then(kind_of_error_object)
        .unwrap_or_else(|| ErrorKind::from_status(status))
}

/// The `errorMessage` of an HTTP error response, as the `@google/genai` SDK words it: the JSON
/// body compacted (`JSON.stringify` of the parsed body); a body that is not JSON is wrapped as
/// `{"error":{"message":<text>,"code":<status>,"status":<reason phrase>}}`.
pub fn http_error_message(status: u16, body: &str) -> String {
    if let Ok(json) = serde_json::from_str::<Value>(body.trim()) {
        return json.to_string();
    }
    serde_json::json!({"error": {
        "message": body,
        "code": status,
        "status": reason_phrase(status),
    }})
    .to_string()
}

/// The HTTP reason phrase the SDK would read from `statusText` (HTTP/1.1 servers send it);
/// empty for a status without one.
fn reason_phrase(status: u16) -> &'static str {
    http::StatusCode::from_u16(status)
        .ok()
        .and_then(|status| status.canonical_reason())
        .unwrap_or("")
}

/// What a `finishReason` means for the call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FinishOutcome {
    /// A usable answer ending for this reason.
    Ok(StopReason),
    /// The answer is a failure of `kind` (pi: stop reason `error`, "An unknown error occurred").
    Failed(ErrorKind),
}

/// Maps a Gemini `finishReason`: `STOP` → stop, `MAX_TOKENS` → length; content filters (safety,
/// recitation, blocklists, prohibited content, personal data, unsupported language) are a
/// refusal; every other reason (malformed or unexpected function call, `OTHER`, unknown names)
/// is a provider error.
pub fn map_finish_reason(reason: &str) -> FinishOutcome {
    match reason {
        "STOP" => FinishOutcome::Ok(StopReason::Stop),
        "MAX_TOKENS" => FinishOutcome::Ok(StopReason::Length),
        "SAFETY"
        | "RECITATION"
        | "BLOCKLIST"
        | "PROHIBITED_CONTENT"
        | "SPII"
        | "LANGUAGE"
        | "IMAGE_SAFETY"
        | "IMAGE_PROHIBITED_CONTENT"
        | "IMAGE_RECITATION" => FinishOutcome::Failed(ErrorKind::Refused),
        _ => FinishOutcome::Failed(ErrorKind::Provider),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_http_error_body_is_classified_by_its_status_name_before_the_http_code() {
        let body = |status: &str| {
            json!({"error": {"code": 400, "message": "x", "status": status}}).to_string()
        };
        assert_eq!(
            classify_http_error(429, &body("RESOURCE_EXHAUSTED")),
            ErrorKind::RateLimited
        );
        assert_eq!(
            classify_http_error(503, &body("UNAVAILABLE")),
            ErrorKind::Overloaded
        );
        assert_eq!(
            classify_http_error(400, &body("INVALID_ARGUMENT")),
            ErrorKind::InvalidRequest
        );
        assert_eq!(
            classify_http_error(403, &body("PERMISSION_DENIED")),
            ErrorKind::Auth
        );
        assert_eq!(
            classify_http_error(500, &body("INTERNAL")),
            ErrorKind::Server
        );
        assert_eq!(classify_http_error(502, "<html>"), ErrorKind::Server);
        assert_eq!(
            classify_http_error(418, &body("BRAND_NEW")),
            ErrorKind::InvalidRequest
        );
    }

    #[test]
    fn an_invalid_key_and_an_over_long_prompt_are_read_from_the_error_object() {
        let invalid_key = json!({"error": {"code": 400, "message": "API key not valid.",
            "status": "INVALID_ARGUMENT", "details": [{"@type":
            "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID"}]}});
        assert_eq!(
            classify_http_error(400, &invalid_key.to_string()),
            ErrorKind::Auth
        );
        let overflow = json!({"error": {"code": 400, "status": "INVALID_ARGUMENT", "message":
            "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."}});
        assert_eq!(
            classify_http_error(400, &overflow.to_string()),
            ErrorKind::ContextOverflow
        );
    }

    #[test]
    fn the_http_error_text_is_the_compact_json_body_or_a_wrapped_text_body() {
        assert_eq!(
            http_error_message(429, "{\n  \"error\": {\"code\": 429}\n}\n"),
            r#"{"error":{"code":429}}"#
        );
        assert_eq!(
            http_error_message(502, "bad gateway"),
            r#"{"error":{"message":"bad gateway","code":502,"status":"Bad Gateway"}}"#
        );
    }

    #[test]
    fn finish_reasons_map_to_stop_length_refusal_or_provider_error() {
        assert_eq!(
            map_finish_reason("STOP"),
            FinishOutcome::Ok(StopReason::Stop)
        );
        assert_eq!(
            map_finish_reason("MAX_TOKENS"),
            FinishOutcome::Ok(StopReason::Length)
        );
        assert_eq!(
            map_finish_reason("SAFETY"),
            FinishOutcome::Failed(ErrorKind::Refused)
        );
        assert_eq!(
            map_finish_reason("RECITATION"),
            FinishOutcome::Failed(ErrorKind::Refused)
        );
        assert_eq!(
            map_finish_reason("MALFORMED_FUNCTION_CALL"),
            FinishOutcome::Failed(ErrorKind::Provider)
        );
        assert_eq!(
            map_finish_reason("SOMETHING_NEW"),
            FinishOutcome::Failed(ErrorKind::Provider)
        );
    }
}
