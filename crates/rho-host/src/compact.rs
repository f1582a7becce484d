//! Compaction in the session (pi-reference §8.4, §3.2): after a run that overflowed the
//! context (compact, then continue once) or passed the threshold, before a prompt, and on
//! request (`compact`). Each one says `compaction_start` and `compaction_end`; the session's
//! record keeps everything and only the agent's messages — the model's view — are compacted.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use rho_agent::{Agent, AgentMessage};
use rho_ai::{AssistantMessage, StopReason};
use rho_stdx::sync::lock;
use tokio_util::sync::CancellationToken;

use crate::budget::Meter;
use crate::compaction::{
    CompactionCheck, CompactionEnd, CompactionError, CompactionPolicy, CompactionReason,
    CompactionResult, CompactionStart, Summarizer, SummaryRetry, SummaryRetryNotice,
    SummaryRetryPolicy, SummarySource, TriggerInput, check_compaction, estimate_context_tokens,
    estimate_tokens, prepare_compaction, should_compact,
};
use crate::hooks::Hooks;
use crate::record::SessionRecord;
use crate::session::events::{Listeners, SessionNotice};

/// What the prompt does after a compaction check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AfterCompaction {
    /// Nothing more runs.
    Stop,
    /// The agent continues: the overflowed call is retried, or queued messages are delivered.
    Continue,
}

/// Which reply a check looks at, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Moment {
    /// Before a prompt: the session's last reply, aborted ones included.
    BeforePrompt,
    /// After a run: the run's own last reply (newer than every compaction, even one recorded in
    /// the same millisecond).
    AfterRun,
}

/// The parts of the session a compaction works with.
pub(crate) struct Parts<'a> {
    pub(crate) agent: &'a Agent,
    pub(crate) record: &'a SessionRecord,
    pub(crate) listeners: &'a Listeners,
    pub(crate) meter: &'a Meter,
    /// The session's hooks (`PreCompact`).
    pub(crate) hooks: Option<&'a Hooks>,
    /// How a failed summary call is retried (the session's `retry` settings).
    pub(crate) summary_retry: SummaryRetryPolicy,
}

/// The session's compaction state: the policy, the compaction running, and what the next
/// automatic check looks at.
pub(crate) struct AutoCompaction {
    policy: Mutex<CompactionPolicy>,
    /// Cancels the compaction in progress (`Some` while one runs).
    running: Mutex<Option<CancellationToken>>,
    /// The last assistant reply since the last check (Pi's `_lastAssistantMessage`).
    last_reply: Mutex<Option<Arc<AssistantMessage>>>,
    /// An overflow was compacted and retried since the last user message or good reply.
    overflow_recovery_attempted: AtomicBool,
}

/// Marks a compaction as running for as long as it lives.
struct Running<'a>(&'a AutoCompaction);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        *lock(&self.0.running) = None;
    }
}

impl AutoCompaction {
    pub(crate) fn new(policy: CompactionPolicy) -> Self {
        AutoCompaction {
            policy: Mutex::new(policy),
            running: Mutex::new(None),
            last_reply: Mutex::new(None),
            overflow_recovery_attempted: AtomicBool::new(false),
        }
    }

    /// Turns automatic compaction (threshold and overflow) on or off; `compact` always works.
    pub(crate) fn set_enabled(&self, enabled: bool) {
        lock(&self.policy).enabled = enabled;
    }

    /// Whether automatic compaction is on.
    pub(crate) fn enabled(&self) -> bool {
        lock(&self.policy).enabled
    }

    /// Whether a compaction is running.
    pub(crate) fn is_running(&self) -> bool {
        lock(&self.running).is_some()
    }

    /// Cancels the compaction in progress, if any (`compaction_end{aborted:true}`).
    pub(crate) fn abort(&self) {
        if let Some(cancel) = lock(&self.running).as_ref() {
            cancel.cancel();
        }
    }

    /// A new prompt: the next check starts from scratch.
    pub(crate) fn reset(&self) {
        *lock(&self.last_reply) = None;
    }

    /// A message started: a user message ends any overflow recovery.
    pub(crate) fn message_started(&self, message: &AgentMessage) {
        if message.as_user().is_some() {
            self.overflow_recovery_attempted
                .store(false, Ordering::SeqCst);
        }
    }

    /// A reply ended: it is what the next check looks at; a good one ends overflow recovery.
    pub(crate) fn reply_ended(&self, reply: &Arc<AssistantMessage>) {
        *lock(&self.last_reply) = Some(reply.clone());
        if reply.stop_reason != StopReason::Error {
            self.overflow_recovery_attempted
                .store(false, Ordering::SeqCst);
        }
    }

    /// Pi's check before a prompt: the last reply (aborted ones included) may call for a
    /// compaction before the new message is sent. Nothing is retried here: the prompt follows.
    pub(crate) async fn before_prompt(&self, parts: &Parts<'_>, cancel: &CancellationToken) {
        let last = parts.agent.with_state(|s| {
            s.messages
                .iter()
                .rev()
                .find_map(|m| m.as_assistant().cloned())
        });
        let Some(last) = last else { return };
        if self.check(parts, &last, Moment::BeforePrompt) != CompactionCheck::None {
            self.automatic(parts, CompactionReason::Threshold, cancel)
                .await;
        }
    }

    /// Pi's `_checkCompaction` after a run (only when no retry is pending): compacts on an
    /// overflow of the current model (then the agent continues once) or past the threshold
    /// (then it continues only to deliver queued messages).
    pub(crate) async fn after_run(
        &self,
        parts: &Parts<'_>,
        cancel: &CancellationToken,
    ) -> AfterCompaction {
        let Some(last) = lock(&self.last_reply).take() else {
            return AfterCompaction::Stop;
        };
        match self.check(parts, &last, Moment::AfterRun) {
            CompactionCheck::None => AfterCompaction::Stop,
            CompactionCheck::OverflowRecoveryExhausted => {
                parts.listeners.notice(SessionNotice::CompactionEnd(
                    CompactionEnd::overflow_recovery_exhausted(),
                ));
                AfterCompaction::Stop
            }
            CompactionCheck::Overflow => {
                self.overflow_recovery_attempted
                    .store(true, Ordering::SeqCst);
                // The failed reply stays in the record but leaves the model's view.
                drop_trailing_failure(parts.agent);
                if !self
                    .automatic(parts, CompactionReason::Overflow, cancel)
                    .await
                {
                    return AfterCompaction::Stop;
                }
                drop_trailing_failure(parts.agent);
                AfterCompaction::Continue
            }
            CompactionCheck::Threshold => {
                let compacted = self
                    .automatic(parts, CompactionReason::Threshold, cancel)
                    .await;
                if compacted && parts.agent.has_queued_messages() {
                    AfterCompaction::Continue
                } else {
                    AfterCompaction::Stop
                }
            }
        }
    }

    /// Pi 1.6's check between two turns of a run (`_compactBeforeNextAssistantResponse`): when
    /// the context as it now stands — the last reply's usage plus the estimate of what came
    /// after it, the tool results just made (Pi's `estimateProjectedContextTokens`) — passes the
    /// threshold, it is compacted before the next model call, and the compacted view is what the
    /// run goes on with. A usage older than the latest compaction does not count: then every
    /// message is estimated.
    pub(crate) async fn before_next_turn(
        &self,
        parts: &Parts<'_>,
        cancel: &CancellationToken,
    ) -> Option<Vec<AgentMessage>> {
        let policy = *lock(&self.policy);
        if !policy.enabled {
            return None;
        }
        let latest_compaction_ms = parts.record.latest_compaction_ms();
        let exceeds = parts.agent.with_state(|s| {
            let window = s.model.context_window;
            let estimate = estimate_context_tokens(&s.messages);
            let stale = estimate
                .last_usage_index
                .and_then(|i| s.messages[i].as_assistant())
                .zip(latest_compaction_ms)
                .is_some_and(|(reply, at)| reply.timestamp <= at);
            let tokens = if stale {
                s.messages.iter().map(estimate_tokens).sum()
            } else {
                estimate.tokens
            };
            window > 0 && should_compact(tokens, window, &policy)
        });
        if !exceeds {
            return None;
        }
        if !self
            .automatic(parts, CompactionReason::Threshold, cancel)
            .await
        {
            return None;
        }
        Some(parts.agent.with_state(|s| s.messages.clone()))
    }

    /// A compaction asked for (RPC `compact`, `/compact`), with its events; the caller holds
    /// the session.
    pub(crate) async fn manual(
        &self,
        parts: &Parts<'_>,
        custom_instructions: Option<&str>,
    ) -> Result<CompactionResult, CompactionError> {
        let cancel = CancellationToken::new();
        let outcome = self
            .run(
                parts,
                CompactionReason::Manual,
                custom_instructions,
                &cancel,
            )
            .await;
        let end = CompactionEnd::finished(CompactionReason::Manual, outcome.as_ref().cloned());
        parts.listeners.notice(SessionNotice::CompactionEnd(end));
        outcome
    }

    fn check(&self, parts: &Parts<'_>, last: &AssistantMessage, moment: Moment) -> CompactionCheck {
        let policy = *lock(&self.policy);
        if !policy.enabled {
            return CompactionCheck::None;
        }
        let mut latest_compaction_ms = parts.record.latest_compaction_ms();
        if moment == Moment::AfterRun {
            latest_compaction_ms = latest_compaction_ms.map(|at| at.min(last.timestamp - 1));
        }
        let attempted = self.overflow_recovery_attempted.load(Ordering::SeqCst);
        parts.agent.with_state(|s| {
            check_compaction(
                &TriggerInput {
                    assistant: last,
                    model: &s.model,
                    messages: &s.messages,
                    latest_compaction_ms,
                    include_aborted: moment == Moment::BeforePrompt,
                    overflow_recovery_attempted: attempted,
                },
                &policy,
            )
        })
    }

    /// An automatic compaction with its events; `true` when the view was compacted. A spent
    /// budget forbids the summarisation call.
    async fn automatic(
        &self,
        parts: &Parts<'_>,
        reason: CompactionReason,
        cancel: &CancellationToken,
    ) -> bool {
        if parts.meter.trip_if_exhausted() {
            return false;
        }
        let cancel = cancel.child_token();
        let outcome = self.run(parts, reason, None, &cancel).await;
        let end = CompactionEnd::finished(reason, outcome.as_ref().cloned());
        parts.listeners.notice(SessionNotice::CompactionEnd(end));
        outcome.is_ok()
    }

    /// Says `compaction_start`, prepares, summarises and records; the caller says the end.
    async fn run(
        &self,
        parts: &Parts<'_>,
        reason: CompactionReason,
        custom_instructions: Option<&str>,
        cancel: &CancellationToken,
    ) -> Result<CompactionResult, CompactionError> {
        *lock(&self.running) = Some(cancel.clone());
        let _running = Running(self);
        parts
            .listeners
            .notice(SessionNotice::CompactionStart(CompactionStart { reason }));
        if let Some(hooks) = parts.hooks {
            let trigger = match reason {
                CompactionReason::Manual => "manual",
                _ => "auto",
            };
            if let Some(why) = hooks
                .pre_compact(trigger, custom_instructions, cancel)
                .await
            {
                return Err(CompactionError::BlockedByHook(why));
            }
        }
        let policy = *lock(&self.policy);
        let branch = parts.record.compaction_branch();
        let preparation = prepare_compaction(&branch, &policy)?;
        let (model, thinking_level) = parts
            .agent
            .with_state(|s| (s.model.clone(), s.thinking_level));
        let provider = parts.agent.provider();
        let notify = |notice: SummaryRetryNotice| {
            parts.listeners.notice(summary_retry_notice(
                notice,
                SummarySource::Compaction { reason },
            ));
        };
        let summarizer = Summarizer {
            provider: provider.as_ref(),
            model: &model,
            api_key: parts.agent.api_key(),
            thinking_level,
            retry: Some(SummaryRetry {
                policy: parts.summary_retry,
                notify: &notify,
            }),
        };
        let mut result = summarizer
            .compact(&preparation, custom_instructions, cancel)
            .await?;
        // Summaries cost tokens: they count toward the prompt's budget and its settled usage.
        parts.meter.add_usage(&result.usage);
        if cancel.is_cancelled() {
            return Err(CompactionError::Aborted);
        }
        let messages = parts
            .record
            .record_compaction(&result)
            .map_err(|error| CompactionError::Record(error.to_string()))?;
        result.estimated_tokens_after = messages.iter().map(estimate_tokens).sum();
        parts.agent.update_state(|s| s.messages = messages);
        *lock(&self.last_reply) = None;
        Ok(result)
    }
}

/// The session event of a summary call's retry notice.
pub(crate) fn summary_retry_notice(
    notice: SummaryRetryNotice,
    source: SummarySource,
) -> SessionNotice {
    match notice {
        SummaryRetryNotice::Scheduled {
            attempt,
            max_attempts,
            delay_ms,
            error_message,
        } => SessionNotice::SummarizationRetryScheduled {
            attempt,
            max_attempts,
            delay_ms,
            error_message,
        },
        SummaryRetryNotice::AttemptStart => SessionNotice::SummarizationRetryAttemptStart(source),
        SummaryRetryNotice::Finished => SessionNotice::SummarizationRetryFinished,
    }
}

/// Removes a trailing failed reply from the agent's messages.
fn drop_trailing_failure(agent: &Agent) {
    agent.update_state(|s| {
        let failed = s
            .messages
            .last()
            .and_then(|m| m.as_assistant())
            .is_some_and(|a| a.stop_reason == StopReason::Error);
        if failed {
            s.messages.pop();
        }
    });
}
