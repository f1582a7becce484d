//! The one driver every provider uses: one streaming POST → one assistant-message event stream.

use std::future::Future;
use std::time::{Duration, SystemTime};

use rho_ai::{
    AssistantMessage, AssistantMessageEvent, ErrorInfo, ErrorKind, StopReason, StreamSender,
};
use tokio_util::sync::CancellationToken;

use crate::client::{HttpClient, PostRequest, SendError, error_chain};
use crate::retry_after::retry_after_ms;
use crate::sse::SseParser;
use crate::{Failure, Flow, SseFolder};

/// At most this much of an error response's body is read: enough for any provider's error JSON,
/// bounded against a server that streams an endless page.
pub const MAX_ERROR_BODY: usize = 64 * 1024;

/// pi's message for a cancelled request.
pub const ABORTED_MESSAGE: &str = "Request was aborted";

/// pi's message for a message that finished with stop reason `error` but no message of its own.
const UNKNOWN_ERROR: &str = "An unknown error occurred";

/// Why a call ended without a final message.
#[derive(Debug)]
enum Stop {
    /// `cancel` fired.
    Aborted,
    /// Anything else, classified where it arose.
    Failed { message: String, info: ErrorInfo },
}

impl Stop {
    fn failed(kind: ErrorKind, message: impl Into<String>) -> Self {
        Stop::Failed {
            message: message.into(),
            info: ErrorInfo::new(kind),
        }
    }

    fn idle(timeout: Duration) -> Self {
        Stop::failed(
            ErrorKind::IdleTimeout,
            format!("No data received for {} seconds", format_seconds(timeout)),
        )
    }
}

impl From<Failure> for Stop {
    fn from(failure: Failure) -> Self {
        Stop::failed(failure.kind, failure.message)
    }
}

impl From<SendError> for Stop {
    fn from(error: SendError) -> Self {
        let kind = match error {
            SendError::Header(_) => ErrorKind::InvalidRequest,
            SendError::Client(_) | SendError::Connect(_) => ErrorKind::Network,
        };
        Stop::failed(kind, error.to_string())
    }
}

/// What bounds one call: how long the server may stay silent, and the longest `retry-after` it
/// may ask for before the call fails at once (Pi's `retry.provider.maxRetryDelayMs`; `None`: no
/// cap).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallLimits {
    /// The idle timeout of every wait.
    pub idle: Duration,
    /// The longest acceptable `retry-after`.
    pub max_retry_delay: Option<Duration>,
}

/// Sends `request` once and streams the response through `folder` into `sender`, ending with
/// exactly one terminal event (`done` or `error`). Never panics, never returns an error: every
/// failure is the terminal `error` event, keeping the content streamed so far.
///
/// `limits.idle` bounds every wait for the server — for the response head and for each body
/// read — so a stalled connection fails with [`ErrorKind::IdleTimeout`] instead of hanging.
/// `cancel` is raced against every wait; once it fires the call ends `aborted`.
pub async fn run_sse_stream<F: SseFolder>(
    client: &HttpClient,
    request: PostRequest,
    mut folder: F,
    mut sender: StreamSender,
    cancel: CancellationToken,
    limits: CallLimits,
) {
    let outcome = drive(client, request, &mut folder, &mut sender, &cancel, limits).await;
    let terminal = match outcome {
        Ok(message) => completed(message, &cancel),
        Err(stop) => error_event(folder.partial(), stop, &cancel),
    };
    sender.push(terminal);
}

async fn drive<F: SseFolder>(
    client: &HttpClient,
    request: PostRequest,
    folder: &mut F,
    sender: &mut StreamSender,
    cancel: &CancellationToken,
    limits: CallLimits,
) -> Result<AssistantMessage, Stop> {
    let idle = limits.idle;
    if cancel.is_cancelled() {
        return Err(Stop::Aborted);
    }
    let mut response = race(cancel, idle, client.send(request)).await??;
    let status = response.status();
    if !status.is_success() {
        return Err(http_error(response, &*folder, cancel, limits).await);
    }
    folder.start(sender);
    let mut parser = SseParser::new();
    loop {
        if sender.is_closed() {
            // Nobody listens any more: stop reading; the terminal event goes nowhere.
            return Err(Stop::Aborted);
        }
        let chunk = race(cancel, idle, response.chunk())
            .await?
            .map_err(|error| Stop::failed(ErrorKind::StreamCut, stream_cut_message(error)))?;
        let at_end = chunk.is_none();
        let events = match chunk {
            Some(bytes) => parser.feed(&bytes),
            None => parser.finish(),
        };
        for event in &events {
            if folder.on_event(event, sender)? == Flow::Done {
                // The protocol's end: whatever the server still sends is not read.
                return Ok(folder.finish(sender)?);
            }
        }
        if at_end {
            return Ok(folder.finish(sender)?);
        }
    }
}

/// Waits for `future`, unless `cancel` fires first or it takes longer than `idle`.
async fn race<T>(
    cancel: &CancellationToken,
    idle: Duration,
    future: impl Future<Output = T>,
) -> Result<T, Stop> {
    tokio::select! {
        biased;
        () = cancel.cancelled() => Err(Stop::Aborted),
        result = tokio::time::timeout(idle, future) => result.map_err(|_| Stop::idle(idle)),
    }
}

/// A non-2xx response: pi's `"<status> <body>"`, classified by the folder, with the retry hint.
async fn http_error<F: SseFolder>(
    mut response: reqwest::Response,
    folder: &F,
    cancel: &CancellationToken,
    limits: CallLimits,
) -> Stop {
    let idle = limits.idle;
    let status = response.status().as_u16();
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned)
    };
    let retry_after = retry_after_ms(
        header("retry-after-ms").as_deref(),
        header("retry-after").as_deref(),
        SystemTime::now(),
    );
    let mut body = Vec::new();
    while body.len() < MAX_ERROR_BODY {
        match race(cancel, idle, response.chunk()).await {
            Err(Stop::Aborted) => return Stop::Aborted,
            Ok(Ok(Some(bytes))) => body.extend_from_slice(&bytes),
            // A stalled, cut or finished body: report what arrived.
            Err(Stop::Failed { .. }) | Ok(Ok(None)) | Ok(Err(_)) => break,
        }
    }
    body.truncate(MAX_ERROR_BODY);
    let body = String::from_utf8_lossy(&body);
    let too_long = match (retry_after, limits.max_retry_delay) {
        (Some(asked), Some(max)) if u128::from(asked) > max.as_millis() => Some((asked, max)),
        _ => None,
    };
    if let Some((asked, max)) = too_long {
        // Pi's words; a wait that long is not worth holding the run for.
        let seconds = |ms: u128| ms.div_ceil(1000);
        let message = folder.sdk_error_message(status, &body);
        return Stop::Failed {
            message: format!(
                "Server requested {}s retry delay (max: {}s). {message}",
                seconds(u128::from(asked)),
                seconds(max.as_millis())
            ),
            info: ErrorInfo {
                kind: ErrorKind::RetryAfterTooLong,
                status: Some(status),
                retry_after_ms: retry_after,
            },
        };
    }
    Stop::Failed {
        message: folder.http_error_message(status, &body),
        info: ErrorInfo {
            kind: folder.classify_http_error(status, &body),
            status: Some(status),
            retry_after_ms: retry_after,
        },
    }
}

/// pi's text for an HTTP error (the providers' SDKs): `"<status> <body>"`, the body compacted if
/// it is JSON (as `JSON.stringify` of the parsed body), `"<status> status code (no body)"` if it
/// is empty.
pub fn http_error_message(status: u16, body: &str) -> String {
    let body = body.trim();
    if body.is_empty() {
        return format!("{status} status code (no body)");
    }
    match serde_json::from_str::<serde_json::Value>(body) {
        Ok(json) => format!("{status} {json}"),
        Err(_) => format!("{status} {body}"),
    }
}

fn stream_cut_message(error: reqwest::Error) -> String {
    format!("Connection lost while streaming: {}", error_chain(error))
}

/// Seconds as JavaScript prints them: `120`, `0.3`.
fn format_seconds(duration: Duration) -> String {
    rho_stdx::js::number_text(duration.as_secs_f64())
}

/// The terminal event for a message the folder finished: `done`, unless the caller cancelled
/// meanwhile or the message itself ended in `error` / `aborted`.
fn completed(mut message: AssistantMessage, cancel: &CancellationToken) -> AssistantMessageEvent {
    if cancel.is_cancelled() {
        return error_event(message, Stop::Aborted, cancel);
    }
    if message.stop_reason == StopReason::Pending {
        // A folder that finished without ever learning why the reply ended: the stream was cut
        // (Pi 1.6 throws "… stream ended without a stop reason").
        message.stop_reason = StopReason::Error;
        message.error_message = Some("Stream ended without a stop reason".to_owned());
        message.error_info = Some(ErrorInfo::new(ErrorKind::StreamCut));
    }
    match message.stop_reason {
        reason @ (StopReason::Error | StopReason::Aborted) => {
            let kind = match reason {
                StopReason::Aborted => ErrorKind::Aborted,
                _ => ErrorKind::Provider,
            };
            message
                .error_message
                .get_or_insert_with(|| UNKNOWN_ERROR.to_owned());
            message
                .error_info
                .get_or_insert_with(|| ErrorInfo::new(kind));
            AssistantMessageEvent::Error {
                reason,
                error: message,
            }
        }
        reason => AssistantMessageEvent::Done { reason, message },
    }
}

/// The terminal `error` event: `base` (the partial message) with the failure set on it.
fn error_event(
    mut base: AssistantMessage,
    stop: Stop,
    cancel: &CancellationToken,
) -> AssistantMessageEvent {
    let (message, mut info) = match stop {
        Stop::Aborted => (
            ABORTED_MESSAGE.to_owned(),
            ErrorInfo::new(ErrorKind::Aborted),
        ),
        Stop::Failed { message, info } => (message, info),
    };
    // A failure that raced a cancel is the caller's abort (pi: `aborted` iff the signal fired);
    // it must not be retried, so its kind says so too.
    if cancel.is_cancelled() {
        info = ErrorInfo::new(ErrorKind::Aborted);
    }
    let reason = match info.kind {
        ErrorKind::Aborted => StopReason::Aborted,
        _ => StopReason::Error,
    };
    base.stop_reason = reason;
    base.error_message = Some(message);
    base.error_info = Some(info);
    AssistantMessageEvent::Error {
        reason,
        error: base,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_error_text_is_status_then_compact_json_body() {
        assert_eq!(
            http_error_message(
                529,
                "{\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\"}}\n"
            ),
            r#"529 {"type":"error","error":{"type":"overloaded_error"}}"#
        );
    }

    #[test]
    fn http_error_text_keeps_a_non_json_body_and_names_an_empty_one() {
        assert_eq!(
            http_error_message(502, "<html>bad gateway</html>\n"),
            "502 <html>bad gateway</html>"
        );
        assert_eq!(http_error_message(413, ""), "413 status code (no body)");
    }

    #[test]
    fn seconds_print_like_javascript_numbers() {
        assert_eq!(format_seconds(Duration::from_secs(120)), "120");
        assert_eq!(format_seconds(Duration::from_millis(300)), "0.3");
    }

    #[test]
    fn a_finished_message_with_stop_reason_error_becomes_an_error_event() {
        let mut message = AssistantMessage::empty("api", "provider", "model");
        message.stop_reason = StopReason::Error;
        let mut expected = message.clone();
        expected.error_message = Some(UNKNOWN_ERROR.to_owned());
        expected.error_info = Some(ErrorInfo::new(ErrorKind::Provider));
        assert_eq!(
            completed(message, &CancellationToken::new()),
            AssistantMessageEvent::Error {
                reason: StopReason::Error,
                error: expected
            }
        );
    }
}
