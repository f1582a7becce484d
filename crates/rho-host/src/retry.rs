//! Visible auto-retry (pi-reference §8.6, contract §3): when a run ends in a retryable error, the
//! session says `auto_retry_start`, waits, drops the failed reply from the in-memory context and
//! continues the agent. Providers never retry on their own, so every retry shows here.
//!
//! Retryable is decided by the failure's [`ErrorKind`](rho_ai::ErrorKind), classified where it
//! arose — never by the message text (Pi's regex).
//!
//! The wait is `max(backoff, retry-after)`, the backoff (`baseDelayMs · 2^(attempt−1)`) clamped
//! to `retry.maxAgentDelayMs`. A `retry-after` longer than `retry.provider.maxRetryDelayMs` never
//! gets here: the provider fails the call at once with an error naming both values.

use std::sync::Mutex;
use std::time::Duration;

use rho_agent::{Agent, AgentMessage};
use rho_ai::{AssistantMessage, StopReason};
use rho_stdx::sync::lock;
use tokio_util::sync::CancellationToken;

use crate::budget::Meter;
use crate::session::events::{Listeners, SessionNotice};

/// `finalError` of a retry cancelled during its wait.
pub const RETRY_CANCELLED: &str = "Retry cancelled";

/// Settings `retry.enabled`, `retry.maxRetries`, `retry.baseDelayMs`, `retry.maxAgentDelayMs`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Whether failed runs are retried at all.
    pub enabled: bool,
    /// Most retries per failure chain (model calls = 1 + this).
    pub max_retries: u32,
    /// Delay before the first retry; it doubles with every attempt.
    pub base_delay_ms: u64,
    /// The longest backoff (`retry.maxAgentDelayMs`); a provider's `retry-after` may be longer.
    pub max_delay_ms: u64,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            enabled: true,
            max_retries: 3,
            base_delay_ms: 2000,
            max_delay_ms: 60_000,
        }
    }
}

impl RetryPolicy {
    /// The wait before `attempt`: `baseDelayMs · 2^(attempt−1)` clamped to `maxAgentDelayMs`, but
    /// never shorter than the provider's `retry-after` hint.
    pub fn delay_ms(&self, attempt: u32, retry_after_ms: Option<u64>) -> u64 {
        let factor = 1u64
            .checked_shl(attempt.saturating_sub(1))
            .unwrap_or(u64::MAX);
        let backoff = self
            .base_delay_ms
            .saturating_mul(factor)
            .min(self.max_delay_ms);
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

/// The session's auto-retry: its policy and the chain in progress.
pub(crate) struct Retry {
    policy: Mutex<RetryPolicy>,
    /// The attempt of a started retry that no reply has answered yet.
    pending: Mutex<Option<u32>>,
    /// The wait in progress, for `abort_retry()`.
    wait: Mutex<Option<CancellationToken>>,
}

/// The failure to retry: the transcript ends in a retryable `error` reply.
struct Failure {
    message: String,
    retry_after_ms: Option<u64>,
}

impl Retry {
    pub(crate) fn new(policy: RetryPolicy) -> Self {
        Retry {
            policy: Mutex::new(policy),
            pending: Mutex::new(None),
            wait: Mutex::new(None),
        }
    }

    /// Turns auto-retry on or off (RPC `set_auto_retry`); a chain in progress finishes its wait.
    pub(crate) fn set_enabled(&self, enabled: bool) {
        lock(&self.policy).enabled = enabled;
    }

    /// The policy in force.
    pub(crate) fn policy(&self) -> RetryPolicy {
        *lock(&self.policy)
    }

    /// A new prompt: no retry is pending.
    pub(crate) fn reset(&self) {
        *lock(&self.pending) = None;
    }

    /// Cancels a pending retry wait; a no-op when none is waiting.
    pub(crate) fn cancel_wait(&self) {
        if let Some(wait) = lock(&self.wait).as_ref() {
            wait.cancel();
        }
    }

    /// A reply ended: a good one answers the pending retry (pi-reference §3.2: the retry
    /// succeeded at the first non-error reply's end). Returns the `auto_retry_end` to emit.
    pub(crate) fn reply_ended(&self, reply: &AssistantMessage) -> Option<SessionNotice> {
        if reply.stop_reason == StopReason::Error {
            return None;
        }
        let attempt = lock(&self.pending).take()?;
        Some(SessionNotice::AutoRetryEnd {
            success: true,
            attempt,
            final_error: None,
        })
    }

    /// Whether a run that ended with `messages` will be retried (Pi 1.6's `agent_end.willRetry`):
    /// retries are on, the last reply failed retryably, the budget allows another call and the
    /// chain has attempts left. `run_chain` decides the same way.
    pub(crate) fn will_retry(&self, messages: &[AgentMessage], meter: &Meter) -> bool {
        let policy = self.policy();
        let attempts_made = lock(&self.pending).unwrap_or(0);
        let last = messages.iter().rev().find_map(AgentMessage::as_assistant);
        policy.enabled
            && attempts_made < policy.max_retries
            && last.is_some_and(|reply| is_retryable(reply))
            && !meter.is_exhausted()
    }

    /// Retries while the run ends in a retryable error; `prompt_cancel` is the prompt's abort.
    pub(crate) async fn run_chain(
        &self,
        agent: &Agent,
        listeners: &Listeners,
        meter: &Meter,
        prompt_cancel: &CancellationToken,
    ) -> RetryOutcome {
        let mut attempt: u32 = 0;
        while let Some(failure) = retryable_failure(agent) {
            let policy = self.policy();
            if !policy.enabled {
                break;
            }
            // Endless retrying is not autonomy: a spent budget ends the prompt here.
            if meter.trip_if_exhausted() {
                break;
            }
            // A success since the last attempt started a new chain.
            if lock(&self.pending).is_none() {
                attempt = 0;
            }
            attempt += 1;
            if attempt > policy.max_retries {
                *lock(&self.pending) = None;
                listeners.notice(SessionNotice::AutoRetryEnd {
                    success: false,
                    attempt: attempt - 1,
                    final_error: Some(failure.message),
                });
                break;
            }
            let delay_ms = policy.delay_ms(attempt, failure.retry_after_ms);
            *lock(&self.pending) = Some(attempt);
            // Armed before the notice, so a listener reacting to it can already cancel.
            let wait = prompt_cancel.child_token();
            *lock(&self.wait) = Some(wait.clone());
            listeners.notice(SessionNotice::AutoRetryStart {
                attempt,
                max_attempts: policy.max_retries,
                delay_ms,
                error_message: failure.message,
            });
            let slept = tokio::select! {
                () = wait.cancelled() => false,
                () = tokio::time::sleep(Duration::from_millis(delay_ms)) => true,
            };
            *lock(&self.wait) = None;
            if !slept {
                *lock(&self.pending) = None;
                listeners.notice(SessionNotice::AutoRetryEnd {
                    success: false,
                    attempt,
                    final_error: Some(RETRY_CANCELLED.to_owned()),
                });
                return RetryOutcome::Cancelled;
            }
            // The failed reply leaves the context the model sees; the retry is a `continue`.
            agent.update_state(|s| {
                if s.messages.last().and_then(|m| m.as_assistant()).is_some() {
                    s.messages.pop();
                }
            });
            if agent.continue_run().await.is_err() {
                break;
            }
        }
        *lock(&self.pending) = None;
        RetryOutcome::Finished
    }
}

fn retryable_failure(agent: &Agent) -> Option<Failure> {
    agent.with_state(|s| {
        let last = s.messages.last()?.as_assistant()?;
        is_retryable(last).then(|| Failure {
            message: last.error_message.clone().unwrap_or_default(),
            retry_after_ms: last
                .error_info
                .as_ref()
                .and_then(|info| info.retry_after_ms),
        })
    })
}

/// A reply that failed with an error its provider classified as retryable.
fn is_retryable(reply: &AssistantMessage) -> bool {
    reply.stop_reason == StopReason::Error
        && reply
            .error_info
            .as_ref()
            .is_some_and(|info| info.is_retryable())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_backoff_doubles_up_to_the_agent_cap_and_a_longer_retry_after_wins() {
        let policy = RetryPolicy {
            max_delay_ms: 10_000,
            ..RetryPolicy::default()
        };
        assert_eq!(policy.delay_ms(1, None), 2000);
        assert_eq!(policy.delay_ms(3, None), 8000);
        assert_eq!(policy.delay_ms(4, None), 10_000);
        assert_eq!(policy.delay_ms(40, None), 10_000);
        assert_eq!(policy.delay_ms(1, Some(30_000)), 30_000);
        assert_eq!(policy.delay_ms(2, Some(100)), 4000);
    }
}
