//! rho-http: the transport every HTTP model provider shares — a lazily built HTTP client, a
//! streaming SSE parser, and the driver that turns one streaming POST into an assistant-message
//! event stream with idle timeout, cancellation and typed errors. A provider only supplies an
//! [`SseFolder`]: how its events fold into an assistant message.
//!
//! # How a call runs
//!
//! A provider builds a [`PostRequest`] (URL, headers with its key, JSON body) and an
//! [`SseFolder`], then awaits [`run_sse_stream`]. The driver:
//!
//! 1. ends `aborted` at once if the cancellation token already fired (no request is sent);
//! 2. sends exactly one POST through the shared [`HttpClient`] — no redirects, no retries of any
//!    kind (rho's retries are the session's, visible as events; pi's SDKs retried silently);
//! 3. on a non-2xx status reads at most [`MAX_ERROR_BODY`] of the body and ends with pi's
//!    `"<status> <body>"` message, classified by [`SseFolder::classify_http_error`], carrying
//!    the status and the `retry-after-ms` / `retry-after` hint. No `start` event is emitted;
//! 4. on 2xx calls [`SseFolder::start`], then feeds the body through [`SseParser`] into
//!    [`SseFolder::on_event`] until [`Flow::Done`] or the body's end, then
//!    [`SseFolder::finish`];
//! 5. pushes exactly one terminal event: `done`, or `error` built on [`SseFolder::partial`]
//!    so the content streamed so far is kept.
//!
//! Every wait (response head, each body read) races the cancellation token and the idle
//! timeout. Failures are classified where they arise ([`rho_ai::ErrorKind`]): `Network` before a
//! response, `StreamCut` when the body breaks, `IdleTimeout` when nothing arrives in time,
//! `Aborted` when cancelled, and whatever the folder reports for protocol problems.
//!
//! # Long conversations
//!
//! Every request carries the whole transcript. [`WireCache`] keeps the serialized messages of a
//! conversation's last request, so the next one writes only what is new and copies the rest.
//!
//! # Secrets
//!
//! Header values are never printed: [`PostRequest`]'s `Debug` shows header names only, error
//! texts are built from the error chain with the URL removed, and credential-like headers are
//! marked sensitive for the HTTP stack.

mod call;
mod client;
mod driver;
mod retry_after;
pub mod sse;
pub mod wire;
pub mod wire_cache;

use rho_ai::{AssistantMessage, ErrorKind, StreamSender};

pub use call::{fail_before_request, start_sse_call, unwritable};
pub use client::{HttpClient, HttpConfig, PostRequest, install_crypto_provider};
pub use driver::{ABORTED_MESSAGE, CallLimits, MAX_ERROR_BODY, http_error_message, run_sse_stream};
pub use retry_after::retry_after_ms;
pub use sse::{SseEvent, SseParser};
pub use wire_cache::WireCache;

/// What to do after one SSE event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Keep reading.
    Continue,
    /// The protocol's terminal marker was seen (`message_stop`, `[DONE]`, …); stop reading.
    Done,
}

/// A failure found while folding a stream.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct Failure {
    /// The `errorMessage` of the failed assistant message.
    pub message: String,
    /// Its classification.
    pub kind: ErrorKind,
}

impl Failure {
    /// A failure of `kind` with `message`.
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Failure {
            message: message.into(),
            kind,
        }
    }
}

/// How one provider reads its SSE stream into an assistant message.
pub trait SseFolder: Send + 'static {
    /// The response headers arrived with a success status: emit `start`.
    fn start(&mut self, out: &mut StreamSender);

    /// Folds one SSE event, emitting content events through `out`.
    fn on_event(&mut self, event: &SseEvent, out: &mut StreamSender) -> Result<Flow, Failure>;

    /// The body ended (after [`Flow::Done`] or not). Emits any pending `*_end` events and returns
    /// the final message with its stop reason, or a failure (for example a stream that ended
    /// before its terminal event).
    fn finish(&mut self, out: &mut StreamSender) -> Result<AssistantMessage, Failure>;

    /// The message so far, without scratch fields: the content an `error` event keeps.
    fn partial(&self) -> AssistantMessage;

    /// Classifies an HTTP error response by status and the provider's error type in `body`.
    fn classify_http_error(&self, status: u16, _body: &str) -> ErrorKind {
        ErrorKind::from_status(status)
    }

    /// The `errorMessage` of an HTTP error response. The default is pi's shape for the Anthropic
    /// SDK, [`http_error_message`]: `"<status> <body>"`; a provider whose SDK words it
    /// differently overrides this.
    fn http_error_message(&self, status: u16, body: &str) -> String {
        http_error_message(status, body)
    }

    /// The SDK's own text for an HTTP error, which Pi quotes after "Server requested …s retry
    /// delay" when the server asks for a longer wait than allowed. The default is
    /// [`SseFolder::http_error_message`]; a provider whose `errorMessage` reworks the SDK's text
    /// (Pi 1.6's OpenAI providers) overrides this.
    fn sdk_error_message(&self, status: u16, body: &str) -> String {
        self.http_error_message(status, body)
    }
}
