//! Whether a finished run calls for compaction (Pi's `_checkCompaction`, pi-reference §8.4
//! "Triggers"): an overflow error from the current model (compact, then retry once), or a
//! context past the threshold (compact, no retry).

use rho_agent::AgentMessage;
use rho_ai::{AssistantMessage, ErrorKind, Model, StopReason};

use super::CompactionPolicy;
use super::estimate::{context_tokens, estimate_context_tokens, should_compact};

/// Whether `message` says the context did not fit a window of `context_window` tokens: an
/// error classified [`ErrorKind::ContextOverflow`] by its provider; or a reply that
/// succeeded with more input than the window (a provider that truncates silently); or a
/// `length` stop with no output and input filling 99 % of the window.
pub fn is_context_overflow(message: &AssistantMessage, context_window: u64) -> bool {
    let input = message.usage.input + message.usage.cache_read;
    match message.stop_reason {
        StopReason::Error => message
            .error_info
            .as_ref()
            .is_some_and(|info| info.kind == ErrorKind::ContextOverflow),
        StopReason::Stop => context_window > 0 && input > context_window,
        StopReason::Length => {
            context_window > 0
                && message.usage.output == 0
                && input as f64 >= context_window as f64 * 0.99
        }
        StopReason::ToolUse | StopReason::Aborted | StopReason::Pending | StopReason::Deferred => {
            false
        }
    }
}

/// What [`check_compaction`] looks at.
#[derive(Clone, Copy, Debug)]
pub struct TriggerInput<'a> {
    /// The last assistant reply of the run (or of the session, before a new prompt).
    pub assistant: &'a AssistantMessage,
    /// The session's current model.
    pub model: &'a Model,
    /// The agent's in-memory messages (estimated when the reply carries no usage).
    pub messages: &'a [AgentMessage],
    /// The timestamp (epoch ms) of the latest compaction entry on the session path.
    pub latest_compaction_ms: Option<i64>,
    /// `false` after `agent_end` (an aborted reply never triggers); `true` before a new
    /// prompt, where an aborted reply's usage still counts.
    pub include_aborted: bool,
    /// Whether an overflow was already compacted and retried since the last user message
    /// or successful reply.
    pub overflow_recovery_attempted: bool,
}

/// The compaction a finished run calls for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompactionCheck {
    /// None.
    None,
    /// Overflow: drop the failed reply from the in-memory context, compact with reason
    /// `overflow`, then continue the agent once; remember that recovery was attempted.
    Overflow,
    /// A second overflow in a row: emit [`CompactionEnd::overflow_recovery_exhausted`]
    /// (without `compaction_start`) and stop.
    ///
    /// [`CompactionEnd::overflow_recovery_exhausted`]: super::CompactionEnd::overflow_recovery_exhausted
    OverflowRecoveryExhausted,
    /// Threshold: compact with reason `threshold`; no retry (queued messages still run).
    Threshold,
}

/// Pi's decision after a run (and before a prompt): nothing when compaction is disabled, for
/// an aborted reply (unless `include_aborted`), or for a reply from before the latest
/// compaction; overflow only for a reply of the current model; otherwise the threshold test
/// on the reply's usage — or, for a failed reply, on the estimate from the last successful
/// usage, provided that usage is newer than the latest compaction.
pub fn check_compaction(input: &TriggerInput<'_>, policy: &CompactionPolicy) -> CompactionCheck {
    let assistant = input.assistant;
    if !policy.enabled || (!input.include_aborted && assistant.stop_reason == StopReason::Aborted) {
        return CompactionCheck::None;
    }
    let before_compaction =
        |timestamp: i64| input.latest_compaction_ms.is_some_and(|at| timestamp <= at);
    if before_compaction(assistant.timestamp) {
        return CompactionCheck::None;
    }
    let window = input.model.context_window;
    let same_model =
        assistant.provider == input.model.provider && assistant.model == input.model.id;
    if same_model && is_context_overflow(assistant, window) {
        return if input.overflow_recovery_attempted {
            CompactionCheck::OverflowRecoveryExhausted
        } else {
            CompactionCheck::Overflow
        };
    }
    let tokens = if assistant.stop_reason == StopReason::Error {
        let estimate = estimate_context_tokens(input.messages);
        let Some(index) = estimate.last_usage_index else {
            return CompactionCheck::None;
        };
        // Usage from before the latest compaction measured the old, larger context.
        let stale = input.messages[index]
            .as_assistant()
            .is_some_and(|a| before_compaction(a.timestamp));
        if stale {
            return CompactionCheck::None;
        }
        estimate.tokens
    } else {
        context_tokens(&assistant.usage)
    };
    if should_compact(tokens, window, policy) {
        CompactionCheck::Threshold
    } else {
        CompactionCheck::None
    }
}
