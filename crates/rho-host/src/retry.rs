//! Visible auto-retry (pi-reference §8.6, contract §3): when a run ends in a retryable error, the
//! session says `auto_retry_start`, waits, drops the failed reply from the in-memory context and
//! continues the agent. Providers never retry on their own, so every retry shows here.
//!
//! Retryable is decided by the failure's [`ErrorKind`](rho_ai::ErrorKind), classified where it
//! arose — never by the message text (Pi's regex).

use std::time::Duration;

use rho_ai::StopReason;
use tokio_util::sync::CancellationToken;

use crate::session::{AgentSession, SessionNotice, lock};

/// `finalError` of a retry cancelled during its wait.
pub const RETRY_CANCELLED: &str = "Retry cancelled";

/// Settings `retry.enabled`, `retry.maxRetries`, `retry.baseDelayMs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Whether failed runs are retried at all.
    pub enabled: bool,
    /// Most retries per failure chain (model calls = 1 + this).
    pub max_retries: u32,
    /// Delay before the first retry; it doubles with every attempt.
    pub base_delay_ms: u64,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            enabled: true,
            max_retries: 3,
            base_delay_ms: 2000,
        }
    }
}

impl RetryPolicy {
    /// `baseDelayMs · 2^(attempt−1)`, but never shorter than the provider's `retry-after` hint.
    pub fn delay_ms(&self, attempt: u32, retry_after_ms: Option<u64>) -> u64 {
        let factor = 1u64
            .checked_shl(attempt.saturating_sub(1))
            .unwrap_or(u64::MAX);
        let backoff = self.base_delay_ms.saturating_mul(factor);
        backoff.max(retry_after_ms.unwrap_or(0))
    }
}

/// How the retry chain after a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RetryOutcome {
    /// Nothing (more) to retry, retries exhausted, or the budget forbade another call.
    Finished,
    /// `abort()` / `abort_retry()` cancelled a retry wait.
    Cancelled,
}

/// The failure to retry: the transcript ends in a retryable `error` reply.
struct Failure {
    message: String,
    retry_after_ms: Option<u64>,
}

impl AgentSession {
    /// Cancels a pending retry wait (`auto_retry_end{success:false, finalError:"Retry
    /// cancelled"}`); a no-op when no retry is waiting.
    pub fn abort_retry(&self) {
        if let Some(wait) = lock(&self.shared.retry_wait).as_ref() {
            wait.cancel();
        }
    }

    fn retryable_failure(&self) -> Option<Failure> {
        self.agent.with_state(|s| {
            let last = s.messages.last()?.as_assistant()?;
            let info = last.error_info.as_ref()?;
            (last.stop_reason == StopReason::Error && info.is_retryable()).then(|| Failure {
                message: last.error_message.clone().unwrap_or_default(),
                retry_after_ms: info.retry_after_ms,
            })
        })
    }

    /// Retries while the run ends in a retryable error; `prompt_cancel` is the prompt's abort.
    pub(crate) async fn retry_chain(&self, prompt_cancel: &CancellationToken) -> RetryOutcome {
        let policy = self.shared.retry;
        let mut attempt: u32 = 0;
        if !policy.enabled {
            return RetryOutcome::Finished;
        }
        while let Some(failure) = self.retryable_failure() {
            // Endless retrying is not autonomy: a spent budget ends the prompt here.
            if self.shared.meter.trip_if_exhausted() {
                break;
            }
            // A success since the last attempt started a new chain.
            if lock(&self.shared.retry_pending).is_none() {
                attempt = 0;
            }
            attempt += 1;
            if attempt > policy.max_retries {
                *lock(&self.shared.retry_pending) = None;
                self.shared.emit_notice(SessionNotice::AutoRetryEnd {
                    success: false,
                    attempt: attempt - 1,
                    final_error: Some(failure.message),
                });
                break;
            }
            let delay_ms = policy.delay_ms(attempt, failure.retry_after_ms);
            *lock(&self.shared.retry_pending) = Some(attempt);
            // Armed before the notice, so a listener reacting to it can already cancel.
            let wait = prompt_cancel.child_token();
            *lock(&self.shared.retry_wait) = Some(wait.clone());
            self.shared.emit_notice(SessionNotice::AutoRetryStart {
                attempt,
                max_attempts: policy.max_retries,
                delay_ms,
                error_message: failure.message,
            });
            if !self.wait(delay_ms, &wait).await {
                *lock(&self.shared.retry_pending) = None;
                self.shared.emit_notice(SessionNotice::AutoRetryEnd {
                    success: false,
                    attempt,
                    final_error: Some(RETRY_CANCELLED.to_owned()),
                });
                return RetryOutcome::Cancelled;
            }
            // The failed reply leaves the context the model sees; the retry is a `continue`.
            self.agent.update_state(|s| {
                if s.messages.last().and_then(|m| m.as_assistant()).is_some() {
                    s.messages.pop();
                }
            });
            if self.agent.continue_run().await.is_err() {
                break;
            }
        }
        *lock(&self.shared.retry_pending) = None;
        RetryOutcome::Finished
    }

    /// Sleeps `delay_ms`; `false` when cancelled first.
    async fn wait(&self, delay_ms: u64, wait: &CancellationToken) -> bool {
        let slept = tokio::select! {
            () = wait.cancelled() => false,
            () = tokio::time::sleep(Duration::from_millis(delay_ms)) => true,
        };
        *lock(&self.shared.retry_wait) = None;
        slept
    }
}
