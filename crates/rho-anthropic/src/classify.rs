//! Anthropic's words for how a call ended, in rho's terms: error types → [`ErrorKind`], stop
//! reasons → [`StopReason`] (pi-reference §5.1 "Stop reasons", "Errors").

use rho_ai::{ErrorKind, StopReason};
use serde_json::Value;

/// The message a refused (or otherwise failed) but well-formed response ends with.
pub const UNKNOWN_ERROR: &str = "An unknown error occurred";

/// The start of Anthropic's `invalid_request_error` message for a prompt over the context window.
const PROMPT_TOO_LONG: &str = "prompt is too long";

/// What a `stop_reason` means for rho.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StopOutcome {
    /// A successful end with this reason.
    Ok(StopReason),
    /// The response ended as a failure with this message and kind.
    Failed {
        /// The `errorMessage`.
        message: String,
        /// Its classification.
        kind: ErrorKind,
    },
}

/// Maps Anthropic's `stop_reason`. A refusal ends with [`UNKNOWN_ERROR`] (as Pi's does), a reason
/// this adapter does not know with `Unhandled stop reason: <x>`.
pub fn map_stop_reason(reason: &str) -> StopOutcome {
    let failed = |message: String, kind| StopOutcome::Failed { message, kind };
    match reason {
        "end_turn" | "pause_turn" | "stop_sequence" => StopOutcome::Ok(StopReason::Stop),
        "max_tokens" => StopOutcome::Ok(StopReason::Length),
        "tool_use" => StopOutcome::Ok(StopReason::ToolUse),
        "refusal" | "sensitive" => failed(UNKNOWN_ERROR.to_owned(), ErrorKind::Refused),
        // Newer API versions end an over-long prompt this way rather than with an HTTP error.
        "model_context_window_exceeded" => failed(
            format!("Unhandled stop reason: {reason}"),
            ErrorKind::ContextOverflow,
        ),
        other => failed(
            format!("Unhandled stop reason: {other}"),
            ErrorKind::Provider,
        ),
    }
}

/// The kind of an Anthropic error `type` (`error.type` in an error body or `event: error`).
/// An `invalid_request_error` saying the prompt is too long is a context overflow: Anthropic has
/// no separate type for it, so it is told apart here, where the error arises.
pub fn kind_of_error_type(error_type: &str, message: &str) -> Option<ErrorKind> {
    Some(match error_type {
        "overloaded_error" => ErrorKind::Overloaded,
        "rate_limit_error" => ErrorKind::RateLimited,
        "api_error" | "timeout_error" => ErrorKind::Server,
        "authentication_error" | "permission_error" => ErrorKind::Auth,
        "not_found_error" => ErrorKind::NotFound,
        "request_too_large" => ErrorKind::ContextOverflow,
        "billing_error" => ErrorKind::QuotaExceeded,
        "invalid_request_error" if message.starts_with(PROMPT_TOO_LONG) => {
            ErrorKind::ContextOverflow
        }
        "invalid_request_error" => ErrorKind::InvalidRequest,
        _ => return None,
    })
}

/// The kind named by an Anthropic error body `{"type":"error","error":{"type":…,"message":…}}`,
/// if the body is one.
pub fn kind_of_error_body(body: &str) -> Option<ErrorKind> {
    let value: Value = serde_json::from_str(body).ok()?;
    let error = value.get("error")?;
    let error_type = error.get("type")?.as_str()?;
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or_default();
    kind_of_error_type(error_type, message)
}

/// Classifies an HTTP error: the body's error type when it names one, else the status.
pub fn classify_http_error(status: u16, body: &str) -> ErrorKind {
    kind_of_error_body(body).unwrap_or_else(|| ErrorKind::from_status(status))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_documented_error_type_has_its_kind() {
        let cases = [
            ("overloaded_error", ErrorKind::Overloaded),
            ("rate_limit_error", ErrorKind::RateLimited),
            ("api_error", ErrorKind::Server),
            ("authentication_error", ErrorKind::Auth),
            ("permission_error", ErrorKind::Auth),
            ("not_found_error", ErrorKind::NotFound),
            ("request_too_large", ErrorKind::ContextOverflow),
            ("invalid_request_error", ErrorKind::InvalidRequest),
            ("billing_error", ErrorKind::QuotaExceeded),
        ];
        for (error_type, kind) in cases {
            assert_eq!(
                kind_of_error_type(error_type, "x"),
                Some(kind),
                "{error_type}"
            );
        }
        assert_eq!(kind_of_error_type("something_new", "x"), None);
    }

    #[test]
    fn a_prompt_too_long_invalid_request_is_a_context_overflow() {
        let body = r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#;
        assert_eq!(classify_http_error(400, body), ErrorKind::ContextOverflow);
    }

    #[test]
    fn an_http_error_without_a_typed_body_is_classified_by_status() {
        assert_eq!(classify_http_error(529, "<html>"), ErrorKind::Overloaded);
        assert_eq!(classify_http_error(503, ""), ErrorKind::Server);
        let body = r#"{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}"#;
        assert_eq!(classify_http_error(500, body), ErrorKind::RateLimited);
    }

    #[test]
    fn stop_reasons_map_to_rho_reasons() {
        assert_eq!(
            map_stop_reason("end_turn"),
            StopOutcome::Ok(StopReason::Stop)
        );
        assert_eq!(
            map_stop_reason("pause_turn"),
            StopOutcome::Ok(StopReason::Stop)
        );
        assert_eq!(
            map_stop_reason("stop_sequence"),
            StopOutcome::Ok(StopReason::Stop)
        );
        assert_eq!(
            map_stop_reason("max_tokens"),
            StopOutcome::Ok(StopReason::Length)
        );
        assert_eq!(
            map_stop_reason("tool_use"),
            StopOutcome::Ok(StopReason::ToolUse)
        );
        let refused = StopOutcome::Failed {
            message: UNKNOWN_ERROR.into(),
            kind: ErrorKind::Refused,
        };
        assert_eq!(map_stop_reason("refusal"), refused);
        assert_eq!(map_stop_reason("sensitive"), refused);
        assert_eq!(
            map_stop_reason("model_context_window_exceeded"),
            StopOutcome::Failed {
                message: "Unhandled stop reason: model_context_window_exceeded".into(),
                kind: ErrorKind::ContextOverflow,
            }
        );
        assert_eq!(
            map_stop_reason("compaction"),
            StopOutcome::Failed {
                message: "Unhandled stop reason: compaction".into(),
                kind: ErrorKind::Provider,
            }
        );
    }
}
