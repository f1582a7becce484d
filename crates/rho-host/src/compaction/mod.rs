//! Compaction (pi-reference §8.4): when the context nears the model's window, or the provider
//! says it overflowed, the older part of the transcript is replaced by a structured summary
//! the model writes, and only the recent part is kept verbatim.
//!
//! The pieces, in the order a session uses them:
//! - [`estimate`]: Pi's token estimate (last usage + `ceil(chars/4)` of later messages) and
//!   [`should_compact`].
//! - [`trigger`]: after a run, which compaction (if any) the last assistant reply calls for —
//!   overflow (compact, then retry once) or threshold — Pi's `_checkCompaction`.
//! - [`cut`] and [`prepare`]: where to cut the session path so a tool call never loses its
//!   result, and what to summarise ([`prepare_compaction`]).
//! - [`summarize`]: the model call(s) with Pi's prompts ([`Summarizer::compact`]).
//! - [`convert`]: the `compactionSummary` message and Pi's `convertToLlm` for every
//!   coding-agent role.
//! - [`event`]: the `compaction_start` / `compaction_end` payloads as Pi prints them.
//! - [`session_path`]: a session file's branch as compaction reads it, and the `compaction`
//!   entry to append.
//!
//! The session file keeps everything; only the model's view is compacted. This module does no
//! I/O besides the model call: the session layer appends the `compaction` entry and rebuilds
//! the agent's messages.

pub mod checkpoint;
pub mod convert;
pub mod cut;
pub mod estimate;
pub mod event;
pub mod file_ops;
pub mod prepare;
pub mod prompt;
pub mod serialize;
pub mod session_path;
pub mod summarize;
pub mod summary_retry;
pub mod trigger;

pub use checkpoint::system_checkpoint;
pub use convert::{
    COMPACTION_SUMMARY_ROLE, CodingAgentMessages, compaction_summary_message,
    compaction_summary_text, convert_to_llm,
};
pub use cut::{CutPoint, PathEntry, PathEntryKind, find_cut_point};
pub use estimate::{
    ContextEstimate, context_tokens, estimate_context_tokens, estimate_tokens, should_compact,
};
pub use event::{
    CompactionEnd, CompactionReason, CompactionStart, OVERFLOW_RECOVERY_EXHAUSTED, SummarySource,
};
pub use file_ops::{CompactionDetails, FileOps};
pub use prepare::{CompactionPreparation, PrepareError, prepare_compaction};
pub use serialize::serialize_conversation;
pub use session_path::{compaction_entry, latest_compaction_ms, path_entries};
pub use summarize::{CompactionError, CompactionResult, NO_PRIOR_HISTORY, Summarizer};
pub use summary_retry::{SummaryRetry, SummaryRetryNotice, SummaryRetryPolicy};
pub use trigger::{CompactionCheck, TriggerInput, check_compaction, is_context_overflow};

use crate::settings::CompactionSettings;

/// The `compaction` settings with Pi's defaults filled in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompactionPolicy {
    /// `compaction.enabled`: whether compaction runs on its own (manual `compact` always may).
    pub enabled: bool,
    /// `compaction.reserveTokens`: room left for the reply; also sizes the summary.
    pub reserve_tokens: u64,
    /// `compaction.keepRecentTokens`: how much recent transcript stays verbatim.
    pub keep_recent_tokens: u64,
}

impl Default for CompactionPolicy {
    fn default() -> Self {
        CompactionPolicy {
            enabled: true,
            reserve_tokens: 16_384,
            keep_recent_tokens: 20_000,
        }
    }
}

impl CompactionPolicy {
    /// The policy of the `compaction` keys of `settings.json` over Pi's defaults.
    pub fn from_settings(settings: &CompactionSettings) -> Self {
        let defaults = CompactionPolicy::default();
        CompactionPolicy {
            enabled: settings.enabled.unwrap_or(defaults.enabled),
            reserve_tokens: settings.reserve_tokens.unwrap_or(defaults.reserve_tokens),
            keep_recent_tokens: settings
                .keep_recent_tokens
                .unwrap_or(defaults.keep_recent_tokens),
        }
    }
}

/// A length as JavaScript's `String.length` counts it (UTF-16 code units), so estimates and
/// truncations match Pi's numbers for non-ASCII text too.
pub(crate) fn js_len(text: &str) -> u64 {
    text.encode_utf16().count() as u64
}
