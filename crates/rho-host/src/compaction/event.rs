//! The `compaction_start` / `compaction_end` payloads (pi-reference §3.2), serialized as Pi
//! prints them: `result` and `errorMessage` are left out when absent.

use serde::Serialize;

use super::summarize::{CompactionError, CompactionResult};

/// `errorMessage` of the `compaction_end` that refuses a second overflow recovery in a row.
pub const OVERFLOW_RECOVERY_EXHAUSTED: &str = "Context overflow recovery failed after one compact-and-retry attempt. Try reducing context or switching to a larger-context model.";

/// Why a compaction runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CompactionReason {
    /// `/compact` or RPC `compact`.
    Manual,
    /// The context passed `contextWindow − reserveTokens`.
    Threshold,
    /// The provider said the context does not fit; a retry follows a success.
    Overflow,
}

/// `compaction_start`: `{reason}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactionStart {
    /// Why.
    pub reason: CompactionReason,
}

/// `compaction_end`: `{reason, result?, aborted, willRetry, errorMessage?}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactionEnd {
    /// Why it ran.
    pub reason: CompactionReason,
    /// The compaction, when one was made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<CompactionResult>,
    /// Whether it was cancelled.
    pub aborted: bool,
    /// Whether the run is retried now (only after a successful overflow compaction).
    pub will_retry: bool,
    /// What went wrong.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
}

impl CompactionEnd {
    /// The end of a compaction with Pi's rules: success retries only for `overflow`; a
    /// cancellation says `aborted` without a message; an automatic compaction with nothing
    /// to compact ends silently; failures read `Compaction failed: …` (manual),
    /// `Auto-compaction failed: …` (threshold) or `Context overflow recovery failed: …`.
    pub fn finished(
        reason: CompactionReason,
        outcome: Result<CompactionResult, &CompactionError>,
    ) -> Self {
        let mut end = CompactionEnd {
            reason,
            result: None,
            aborted: false,
            will_retry: false,
            error_message: None,
        };
        match outcome {
            Ok(result) => {
                end.will_retry = reason == CompactionReason::Overflow;
                end.result = Some(result);
            }
            Err(CompactionError::Aborted) => end.aborted = true,
            Err(CompactionError::Prepare(_)) if reason != CompactionReason::Manual => {}
            Err(error) => {
                let prefix = match reason {
                    CompactionReason::Manual => "Compaction failed",
                    CompactionReason::Threshold => "Auto-compaction failed",
                    CompactionReason::Overflow => "Context overflow recovery failed",
                };
                end.error_message = Some(format!("{prefix}: {error}"));
            }
        }
        end
    }

    /// An automatic compaction that could not start (no model, no key): nothing but the end.
    pub fn skipped(reason: CompactionReason) -> Self {
        CompactionEnd {
            reason,
            result: None,
            aborted: false,
            will_retry: false,
            error_message: None,
        }
    }

    /// The second overflow in a row: emitted without a `compaction_start`.
    pub fn overflow_recovery_exhausted() -> Self {
        CompactionEnd {
            error_message: Some(OVERFLOW_RECOVERY_EXHAUSTED.to_owned()),
            ..CompactionEnd::skipped(CompactionReason::Overflow)
        }
    }
}

/// What is being summarised: the `source` (and `reason`) of `summarization_retry_attempt_start`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "source", rename_all = "camelCase")]
pub enum SummarySource {
    /// A compaction, with why it runs.
    Compaction {
        /// `manual`, `threshold` or `overflow`.
        reason: CompactionReason,
    },
    /// A branch summary (`/tree`).
    BranchSummary,
}
