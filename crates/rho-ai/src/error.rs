//! Classification of a failed model call, decided where the failure arises (HTTP status,
//! provider error type or code, transport event) — never by matching message text later.

use serde::{Deserialize, Serialize};

/// What kind of failure ended a model call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// 401 / 403, or a missing key: the credentials are wrong.
    Auth,
    /// 404: unknown model or endpoint.
    NotFound,
    /// 400 / 422 and other client errors: the request itself is wrong.
    InvalidRequest,
    /// The prompt does not fit the model's context window (413, or the provider's overflow type).
    ContextOverflow,
    /// 429: too many requests.
    RateLimited,
    /// 529 or the provider's "overloaded" type.
    Overloaded,
    /// 5xx.
    Server,
    /// The connection failed before a response arrived.
    Network,
    /// The response stream was cut, or ended without its terminal event.
    StreamCut,
    /// The response stream held something that is not the protocol.
    MalformedStream,
    /// No bytes arrived for longer than the idle timeout.
    IdleTimeout,
    /// The model refused or a content filter stopped it.
    Refused,
    /// The account has no quota or credit left.
    QuotaExceeded,
    /// Any other error the provider reported.
    Provider,
    /// The caller cancelled.
    Aborted,
    /// The provider asked to be retried later than `retry.provider.maxRetryDelayMs` allows: the
    /// call fails at once instead of waiting (not retryable).
    RetryAfterTooLong,
}

impl ErrorKind {
    /// Whether trying the same request again may succeed.
    pub fn is_retryable(self) -> bool {
        match self {
            ErrorKind::RateLimited
            | ErrorKind::Overloaded
            | ErrorKind::Server
            | ErrorKind::Network
            | ErrorKind::StreamCut
            | ErrorKind::MalformedStream
            | ErrorKind::IdleTimeout => true,
            ErrorKind::Auth
            | ErrorKind::NotFound
            | ErrorKind::InvalidRequest
            | ErrorKind::ContextOverflow
            | ErrorKind::Refused
            | ErrorKind::QuotaExceeded
            | ErrorKind::Provider
            | ErrorKind::Aborted
            | ErrorKind::RetryAfterTooLong => false,
        }
    }

    /// The usual kind for an HTTP error status (a provider may refine it from the body).
    pub fn from_status(status: u16) -> Self {
        match status {
            401 | 403 => ErrorKind::Auth,
            404 => ErrorKind::NotFound,
            413 => ErrorKind::ContextOverflow,
            429 => ErrorKind::RateLimited,
            529 => ErrorKind::Overloaded,
            500..=599 => ErrorKind::Server,
            _ => ErrorKind::InvalidRequest,
        }
    }
}

/// The classification carried by an `error` / `aborted` assistant message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorInfo {
    /// The kind.
    pub kind: ErrorKind,
    /// The HTTP status, when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// The provider's `retry-after` hint, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_ms: Option<u64>,
}

impl ErrorInfo {
    /// A classification without status or hint.
    pub fn new(kind: ErrorKind) -> Self {
        ErrorInfo {
            kind,
            status: None,
            retry_after_ms: None,
        }
    }

    /// Whether the failed call may be retried.
    pub fn is_retryable(&self) -> bool {
        self.kind.is_retryable()
    }
}
