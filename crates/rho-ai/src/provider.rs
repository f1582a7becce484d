//! The one trait every model provider implements.

use tokio_util::sync::CancellationToken;

use crate::model::{Context, Model, ThinkingLevel};
use crate::stream::AssistantMessageEventStream;

/// Options of one model call (Pi's `SimpleStreamOptions`, the parts rho uses).
#[derive(Clone, Debug, Default)]
pub struct StreamOptions {
    /// API key for the provider.
    pub api_key: Option<String>,
    /// Reasoning effort; `None` = off.
    pub reasoning: Option<ThinkingLevel>,
    /// Session id, for provider-side caching.
    pub session_id: Option<String>,
    /// Output token cap.
    pub max_tokens: Option<u64>,
    /// Sampling temperature.
    pub temperature: Option<f64>,
    /// Cancels the call: the stream then ends with `stopReason: "aborted"`.
    pub cancel: CancellationToken,
    /// The longest `retry-after` a failed call may ask for (settings
    /// `retry.provider.maxRetryDelayMs`); a longer one fails the call at once as
    /// [`ErrorKind::RetryAfterTooLong`](crate::ErrorKind::RetryAfterTooLong), naming both values.
    /// `None`: no cap.
    pub max_retry_delay: Option<std::time::Duration>,
}

/// A model provider. It never fails by returning an error or panicking: every failure is the
/// stream's terminal `error` event (pi-reference §2.1).
pub trait Provider: Send + Sync {
    /// Starts one model call.
    fn stream(
        &self,
        model: &Model,
        context: Context,
        options: StreamOptions,
    ) -> AssistantMessageEventStream;
}
