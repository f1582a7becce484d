//! Compaction in the session (pi-reference §8.4, §3.2): after a run that overflowed the
//! context (compact, then continue once) or passed the threshold, before a prompt, and on
//! request (`compact`). Each one says `compaction_start` and `compaction_end`; the session file
//! keeps everything and only the agent's messages — the model's view — are compacted.

use std::sync::atomic::Ordering;

use tokio_util::sync::CancellationToken;

use crate::compaction::{
    CompactionCheck, CompactionEnd, CompactionError, CompactionPolicy, CompactionReason,
    CompactionResult, CompactionStart, Summarizer, TriggerInput, check_compaction,
    prepare_compaction,
};
use crate::session::{AgentSession, SessionNotice, lock};

/// What the prompt does after a compaction check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AfterCompaction {
    /// Nothing more runs.
    Stop,
    /// The agent continues: the overflowed call is retried, or queued messages are delivered.
    Continue,
}

/// Marks the session as compacting for as long as it lives.
struct Compacting<'a>(&'a AgentSession);

impl Drop for Compacting<'_> {
    fn drop(&mut self) {
        self.0.shared.compacting.store(false, Ordering::SeqCst);
        *lock(&self.0.shared.compaction_cancel) = None;
    }
}

impl AgentSession {
    /// Turns automatic compaction (threshold and overflow) on or off; `compact` always works.
    pub fn set_auto_compaction(&self, enabled: bool) {
        lock(&self.shared.compaction).enabled = enabled;
    }

    /// Whether automatic compaction is on.
    pub fn auto_compaction_enabled(&self) -> bool {
        lock(&self.shared.compaction).enabled
    }

    /// Whether a compaction is running.
    pub fn is_compacting(&self) -> bool {
        self.shared.compacting.load(Ordering::SeqCst)
    }

    /// Cancels the compaction in progress, if any (`compaction_end{aborted:true}`).
    pub fn abort_compaction(&self) {
        if let Some(cancel) = lock(&self.shared.compaction_cancel).as_ref() {
            cancel.cancel();
        }
    }

    /// Compacts now (RPC `compact`, `/compact [instructions]`): aborts the current run first,
    /// then summarises the older part of the branch. Errors are Pi's: `Already compacted`,
    /// `Nothing to compact (session too small)`, `Compaction cancelled`, or the failed call.
    pub async fn compact(
        &self,
        custom_instructions: Option<&str>,
    ) -> Result<CompactionResult, CompactionError> {
        self.abort().await;
        let _slot = self.claim_prompt_slot().await;
        let cancel = CancellationToken::new();
        let outcome = self
            .run_compaction(CompactionReason::Manual, custom_instructions, &cancel)
            .await;
        let end = CompactionEnd::finished(CompactionReason::Manual, outcome.as_ref().cloned());
        self.shared.emit_notice(SessionNotice::CompactionEnd(end));
        outcome
    }

    /// Pi's check before a prompt: the last reply (aborted ones included) may call for a
    /// compaction before the new message is sent. Nothing is retried here: the prompt follows.
    pub(crate) async fn compact_before_prompt(&self, cancel: &CancellationToken) {
        let last = self.agent.with_state(|s| {
            s.messages
                .iter()
                .rev()
                .find_map(|m| m.as_assistant().cloned())
        });
        let Some(last) = last else { return };
        if self.compaction_check(&last, true, false) != CompactionCheck::None {
            self.auto_compact(CompactionReason::Threshold, cancel).await;
        }
    }

    /// Pi's `_checkCompaction` after a run (only when no retry is pending): compacts on an
    /// overflow of the current model (then the agent continues once) or past the threshold
    /// (then it continues only to deliver queued messages).
    pub(crate) async fn compact_after_run(&self, cancel: &CancellationToken) -> AfterCompaction {
        let Some(last) = lock(&self.shared.last_assistant).take() else {
            return AfterCompaction::Stop;
        };
        match self.compaction_check(&last, false, true) {
            CompactionCheck::None => AfterCompaction::Stop,
            CompactionCheck::OverflowRecoveryExhausted => {
                self.shared.emit_notice(SessionNotice::CompactionEnd(
                    CompactionEnd::overflow_recovery_exhausted(),
                ));
                AfterCompaction::Stop
            }
            CompactionCheck::Overflow => {
                self.shared
                    .overflow_recovery_attempted
                    .store(true, Ordering::SeqCst);
                // The failed reply stays in the file but leaves the model's view.
                self.drop_trailing_failure();
                if !self.auto_compact(CompactionReason::Overflow, cancel).await {
                    return AfterCompaction::Stop;
                }
                self.drop_trailing_failure();
                AfterCompaction::Continue
            }
            CompactionCheck::Threshold => {
                let compacted = self.auto_compact(CompactionReason::Threshold, cancel).await;
                if compacted && self.agent.has_queued_messages() {
                    AfterCompaction::Continue
                } else {
                    AfterCompaction::Stop
                }
            }
        }
    }

    fn compaction_check(
        &self,
        last: &std::sync::Arc<rho_ai::AssistantMessage>,
        include_aborted: bool,
        fresh: bool,
    ) -> CompactionCheck {
        let policy = *lock(&self.shared.compaction);
        let mut latest_compaction_ms = self.compaction_branch().latest_compaction_ms;
        // A reply of this run came after every compaction, even one recorded in the same
        // millisecond; timestamps alone would call it stale.
        if fresh {
            latest_compaction_ms = latest_compaction_ms.map(|at| at.min(last.timestamp - 1));
        }
        let attempted = self
            .shared
            .overflow_recovery_attempted
            .load(Ordering::SeqCst);
        self.agent.with_state(|s| {
            check_compaction(
                &TriggerInput {
                    assistant: last,
                    model: &s.model,
                    messages: &s.messages,
                    latest_compaction_ms,
                    include_aborted,
                    overflow_recovery_attempted: attempted,
                },
                &policy,
            )
        })
    }

    /// Removes a trailing failed reply from the agent's messages.
    fn drop_trailing_failure(&self) {
        self.agent.update_state(|s| {
            let failed = s
                .messages
                .last()
                .and_then(|m| m.as_assistant())
                .is_some_and(|a| a.stop_reason == rho_ai::StopReason::Error);
            if failed {
                s.messages.pop();
            }
        });
    }

    /// An automatic compaction with its events; `true` when the view was compacted. A spent
    /// budget forbids the summarisation call.
    async fn auto_compact(&self, reason: CompactionReason, cancel: &CancellationToken) -> bool {
        if self.shared.meter.trip_if_exhausted() {
            return false;
        }
        let cancel = cancel.child_token();
        let outcome = self.run_compaction(reason, None, &cancel).await;
        let end = CompactionEnd::finished(reason, outcome.as_ref().cloned());
        self.shared.emit_notice(SessionNotice::CompactionEnd(end));
        outcome.is_ok()
    }

    /// Says `compaction_start`, prepares, summarises and records; the caller says the end.
    async fn run_compaction(
        &self,
        reason: CompactionReason,
        custom_instructions: Option<&str>,
        cancel: &CancellationToken,
    ) -> Result<CompactionResult, CompactionError> {
        self.shared.compacting.store(true, Ordering::SeqCst);
        *lock(&self.shared.compaction_cancel) = Some(cancel.clone());
        let _compacting = Compacting(self);
        self.shared
            .emit_notice(SessionNotice::CompactionStart(CompactionStart { reason }));
        let policy: CompactionPolicy = *lock(&self.shared.compaction);
        let branch = self.compaction_branch();
        let preparation = prepare_compaction(&branch.path, &policy)?;
        let (model, thinking_level) = self
            .agent
            .with_state(|s| (s.model.clone(), s.thinking_level));
        let provider = self.agent.provider();
        let summarizer = Summarizer {
            provider: provider.as_ref(),
            model: &model,
            api_key: self.agent.api_key(),
            thinking_level,
        };
        let result = summarizer
            .compact(&preparation, custom_instructions, cancel)
            .await?;
        // Summaries cost tokens: they count toward the prompt's budget and its settled usage.
        self.shared.meter.add_usage(&result.usage);
        if cancel.is_cancelled() {
            return Err(CompactionError::Aborted);
        }
        self.record_compaction(&result)
            .map_err(CompactionError::Record)?;
        *lock(&self.shared.last_assistant) = None;
        Ok(result)
    }
}
