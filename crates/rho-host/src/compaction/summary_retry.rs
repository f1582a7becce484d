//! Pi 1.6 retries a failed summary call (compaction or branch summary) under the session's
//! `retry` settings, as `retryAssistantCall` does, and says so with
//! `summarization_retry_scheduled` / `_attempt_start` / `_finished`. Whether a failure is worth
//! retrying is its error kind's call, decided where it arose.

use std::time::Duration;

use rho_ai::{AssistantMessage, ErrorInfo, StopReason};
use tokio_util::sync::CancellationToken;

/// The session's `retry` settings as a summary call uses them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SummaryRetryPolicy {
    /// Most retries of one call (0: none, as with `retry.enabled: false`).
    pub max_retries: u32,
    /// The first wait; it doubles with every attempt.
    pub base_delay_ms: u64,
    /// The longest wait (`retry.maxAgentDelayMs`).
    pub max_delay_ms: u64,
}

impl SummaryRetryPolicy {
    /// Pi's `retryDelayMs`: `base · 2^(attempt−1)`, capped.
    pub fn delay_ms(&self, attempt: u32) -> u64 {
        let factor = 1u64
            .checked_shl(attempt.saturating_sub(1))
            .unwrap_or(u64::MAX);
        self.base_delay_ms
            .saturating_mul(factor)
            .min(self.max_delay_ms)
    }
}

/// What a summary call's retries say.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SummaryRetryNotice {
    /// The call failed with a retryable error and runs again after `delay_ms`.
    Scheduled {
        /// 1-based retry number.
        attempt: u32,
        /// `retry.maxRetries`.
        max_attempts: u32,
        /// The wait before it.
        delay_ms: u64,
        /// The failure retried.
        error_message: String,
    },
    /// The wait is over: the call runs again.
    AttemptStart,
    /// The retries ended (success, a last failure, or a cancelled wait).
    Finished,
}

/// How one summary call is retried and where its notices go.
#[derive(Clone, Copy)]
pub struct SummaryRetry<'a> {
    /// The settings.
    pub policy: SummaryRetryPolicy,
    /// Receives the notices, in order.
    pub notify: &'a (dyn Fn(SummaryRetryNotice) + Send + Sync),
}

/// The outcome of a retried call: the last reply, or `None` when `cancel` fired during a wait.
pub(super) async fn with_retries<F, Fut>(
    retry: Option<SummaryRetry<'_>>,
    cancel: &CancellationToken,
    mut call: F,
) -> Option<AssistantMessage>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = AssistantMessage>,
{
    let mut attempt = 0;
    loop {
        let reply = call().await;
        let retryable = reply.stop_reason == StopReason::Error
            && !cancel.is_cancelled()
            && reply
                .error_info
                .as_ref()
                .is_some_and(ErrorInfo::is_retryable);
        let Some(retry) = retry.filter(|r| retryable && attempt < r.policy.max_retries) else {
            if attempt > 0
                && let Some(retry) = retry
            {
                (retry.notify)(SummaryRetryNotice::Finished);
            }
            return Some(reply);
        };
        attempt += 1;
        let delay_ms = retry.policy.delay_ms(attempt);
        (retry.notify)(SummaryRetryNotice::Scheduled {
            attempt,
            max_attempts: retry.policy.max_retries,
            delay_ms,
            error_message: reply
                .error_message
                .filter(|m| !m.is_empty())
                .unwrap_or_else(|| "Unknown error".to_owned()),
        });
        tokio::select! {
            () = cancel.cancelled() => {
                (retry.notify)(SummaryRetryNotice::Finished);
                return None;
            }
            () = tokio::time::sleep(Duration::from_millis(delay_ms)) => {}
        }
        (retry.notify)(SummaryRetryNotice::AttemptStart);
    }
}
