//! The summarisation call(s) (Pi's `compact` / `generateSummary`, pi-reference §8.4 steps
//! 7–8): the current model summarises the prepared messages with Pi's prompts; a split turn's
//! prefix is summarised at the same time and appended; the file lists close the summary.

use std::sync::Arc;

use rho_ai::{
    ContentBlock, Context, ErrorKind, Message, Model, Provider, StopReason, StreamOptions,
    ThinkingLevel, Usage, UserContent, UserMessage, now_ms,
};
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use super::convert::convert_to_llm;
use super::file_ops::CompactionDetails;
use super::prepare::{CompactionPreparation, PrepareError};
use super::prompt::{SUMMARIZATION_SYSTEM_PROMPT, history_prompt, turn_prefix_prompt};
use super::serialize::serialize_conversation;
use super::summary_retry::{SummaryRetry, with_retries};

/// The history part of a split-turn summary when nothing came before the turn.
pub const NO_PRIOR_HISTORY: &str = "No prior history.";

/// A finished compaction: what the `compaction` entry records and `compaction_end` reports.
/// Serializes as Pi 1.6's `result`: `{summary, firstKeptEntryId, tokensBefore,
/// estimatedTokensAfter, usage, details}`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactionResult {
    /// The summary, file lists included.
    pub summary: String,
    /// The first entry kept verbatim.
    pub first_kept_entry_id: String,
    /// The estimated context tokens before compacting.
    pub tokens_before: u64,
    /// Pi's estimate (`estimateTokens`, system messages included) of the context rebuilt from
    /// the compaction; known once the compaction is recorded, 0 before.
    pub estimated_tokens_after: u64,
    /// What the summarisation calls cost.
    pub usage: Usage,
    /// `{readFiles, modifiedFiles}`.
    pub details: CompactionDetails,
    /// The index of the first kept entry in the path that was prepared.
    #[serde(skip)]
    pub first_kept_index: usize,
}

/// Why a compaction produced no summary.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CompactionError {
    /// There was nothing to compact.
    #[error(transparent)]
    Prepare(#[from] PrepareError),
    /// The cancellation token fired (Pi's text: `Compaction cancelled`).
    #[error("Compaction cancelled")]
    Aborted,
    /// rho: a `PreCompact` hook blocked this compaction, for this reason.
    #[error("Compaction blocked by a PreCompact hook: {0}")]
    BlockedByHook(String),
    /// The session file could not record the compaction (a full disk, a removed directory).
    #[error("Could not record the compaction: {0}")]
    Record(String),
    /// A summarisation call failed: `Summarization failed: <msg>` or
    /// `Turn prefix summarization failed: <msg>`.
    #[error("{message}")]
    Failed {
        /// Pi's text.
        message: String,
        /// The classification of the failed model call, when it had one.
        kind: Option<ErrorKind>,
    },
}

/// The model that writes the summary: the session's current model, key and thinking level.
pub struct Summarizer<'a> {
    /// The provider of `model`.
    pub provider: &'a dyn Provider,
    /// The current model.
    pub model: &'a Model,
    /// Its API key.
    pub api_key: Option<String>,
    /// The session's thinking level (used only when the model reasons).
    pub thinking_level: ThinkingLevel,
    /// How a failed call is retried (Pi 1.6); `None`: not at all.
    pub retry: Option<SummaryRetry<'a>>,
}

impl Summarizer<'_> {
    /// Summarises `preparation`; `custom_instructions` (manual `/compact <text>`) focus the
    /// history summary. Cancelling `cancel` ends the model calls and gives
    /// [`CompactionError::Aborted`].
    pub async fn compact(
        &self,
        preparation: &CompactionPreparation,
        custom_instructions: Option<&str>,
        cancel: &CancellationToken,
    ) -> Result<CompactionResult, CompactionError> {
        let reserve = preparation.policy.reserve_tokens;
        let history = || {
            let conversation =
                serialize_conversation(&convert_to_llm(&preparation.messages_to_summarize));
            let prompt = history_prompt(
                &conversation,
                preparation.previous_summary.as_deref(),
                custom_instructions,
            );
            self.generate(
                prompt,
                reserve.saturating_mul(4) / 5,
                "Summarization failed",
                cancel,
            )
        };
        let (mut summary, usage) =
            if preparation.is_split_turn && !preparation.turn_prefix_messages.is_empty() {
                let conversation =
                    serialize_conversation(&convert_to_llm(&preparation.turn_prefix_messages));
                let prefix = self.generate(
                    turn_prefix_prompt(&conversation),
                    reserve / 2,
                    "Turn prefix summarization failed",
                    cancel,
                );
                // Both calls run at once; the first failure ends the compaction, as in Pi.
                let ((history, history_usage), (prefix, prefix_usage)) =
                    if preparation.messages_to_summarize.is_empty() {
                        (
                            (NO_PRIOR_HISTORY.to_owned(), Usage::default()),
                            prefix.await?,
                        )
                    } else {
                        tokio::try_join!(history(), prefix)?
                    };
                // The prefix call always ran: its usage keeps the provider's own fields.
                let mut usage = prefix_usage;
                usage.add(&history_usage);
                (
                    format!("{history}\n\n---\n\n**Turn Context (split turn):**\n\n{prefix}"),
                    usage,
                )
            } else {
                history().await?
            };
        if cancel.is_cancelled() {
            return Err(CompactionError::Aborted);
        }
        let details = preparation.file_ops.details();
        summary.push_str(&details.summary_suffix());
        Ok(CompactionResult {
            summary,
            first_kept_entry_id: preparation.first_kept_entry_id.clone(),
            tokens_before: preparation.tokens_before,
            estimated_tokens_after: 0,
            usage,
            details,
            first_kept_index: preparation.first_kept_index,
        })
    }

    /// One summarisation call: the text of the reply (text blocks joined by newlines) and its
    /// usage.
    async fn generate(
        &self,
        prompt: String,
        max_tokens: u64,
        failure: &str,
        cancel: &CancellationToken,
    ) -> Result<(String, Usage), CompactionError> {
        let context = Context {
            system_prompt: Some(Arc::from(SUMMARIZATION_SYSTEM_PROMPT)),
            messages: Arc::new(vec![Message::User(Arc::new(UserMessage {
                content: UserContent::Blocks(vec![ContentBlock::text(prompt)]),
                timestamp: now_ms(),
            }))]),
            tools: Arc::from([]),
        };
        let reasoning = (self.model.reasoning && self.thinking_level != ThinkingLevel::Off)
            .then_some(self.thinking_level);
        let options = StreamOptions {
            api_key: self.api_key.clone(),
            reasoning,
            session_id: None,
            max_tokens: Some(max_tokens),
            temperature: None,
            cancel: cancel.clone(),
            max_retry_delay: None,
        };
        let call = || {
            self.provider
                .stream(self.model, context.clone(), options.clone())
                .result()
        };
        let Some(reply) = with_retries(self.retry, cancel, call).await else {
            return Err(CompactionError::Aborted);
        };
        match reply.stop_reason {
            StopReason::Aborted => Err(CompactionError::Aborted),
            _ if cancel.is_cancelled() => Err(CompactionError::Aborted),
            StopReason::Error => Err(CompactionError::Failed {
                message: format!(
                    "{failure}: {}",
                    reply
                        .error_message
                        .as_deref()
                        .filter(|m| !m.is_empty())
                        .unwrap_or("Unknown error")
                ),
                kind: reply.error_info.map(|info| info.kind),
            }),
            _ => {
                let texts: Vec<&str> = reply
                    .content
                    .iter()
                    .filter_map(ContentBlock::as_text)
                    .collect();
                Ok((texts.join("\n"), reply.usage))
            }
        }
    }
}
