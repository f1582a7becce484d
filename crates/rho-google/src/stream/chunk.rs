//! The typed fast path for the common chunk (text and thought parts, a finish reason, usage),
//! decoded into borrowed fields instead of a `Value` tree. A chunk with a function call or an
//! error, or one that does not decode, goes the `Value` way.

use rho_ai::StreamSender;
use serde::Deserialize;
use serde::de::IgnoredAny;

use super::{GoogleFolder, UsageCounts};
use rho_http::wire::{Obj, Str, decode};

/// One `GenerateContentResponse`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Chunk<'a> {
    #[serde(borrow)]
    response_id: Option<Str<'a>>,
    #[serde(borrow)]
    candidates: Option<Vec<Obj<Candidate<'a>>>>,
    usage_metadata: Option<Obj<Usage>>,
    error: Option<IgnoredAny>,
}

/// A candidate.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Candidate<'a> {
    #[serde(borrow)]
    content: Option<Obj<Content<'a>>>,
    #[serde(borrow)]
    finish_reason: Option<Str<'a>>,
}

/// A candidate's content.
#[derive(Deserialize)]
struct Content<'a> {
    #[serde(borrow)]
    parts: Option<Vec<Obj<Part<'a>>>>,
}

/// A content part.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Part<'a> {
    #[serde(borrow)]
    text: Option<Str<'a>>,
    thought: Option<bool>,
    #[serde(borrow)]
    thought_signature: Option<Str<'a>>,
    function_call: Option<IgnoredAny>,
}

/// `usageMetadata`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Usage {
    prompt_token_count: Option<u64>,
    candidates_token_count: Option<u64>,
    thoughts_token_count: Option<u64>,
    total_token_count: Option<u64>,
    cached_content_token_count: Option<u64>,
}

impl GoogleFolder {
    /// Folds a chunk of text and thought parts; `false` (nothing done) sends it down the `Value`
    /// path, which reads it (or fails on it) exactly as before.
    pub(super) fn fast_chunk(&mut self, data: &str, out: &mut StreamSender) -> bool {
        // A derived struct would also accept an array; only an object is a chunk.
        if !data.trim_start().starts_with('{') {
            return false;
        }
        let Some(chunk) = decode::<Chunk>(data) else {
            return false;
        };
        let candidate = chunk
            .candidates
            .as_ref()
            .and_then(|candidates| candidates.first())
            .map(|Obj(candidate)| candidate);
        let parts = candidate
            .and_then(|c| c.content.as_ref())
            .and_then(|Obj(content)| content.parts.as_deref())
            .unwrap_or_default();
        if chunk.error.is_some() || parts.iter().any(|Obj(part)| part.function_call.is_some()) {
            return false;
        }
        if self.message.response_id.is_none()
            && let Some(id) = &chunk.response_id
            && !id.as_str().is_empty()
        {
            self.message.response_id = Some(id.as_str().to_owned());
        }
        for Obj(part) in parts {
            if let Some(text) = &part.text {
                let signature = part
                    .thought_signature
                    .as_ref()
                    .map(Str::as_str)
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned);
                self.text(part.thought == Some(true), signature, text.as_str(), out);
            }
        }
        if let Some(reason) = candidate.and_then(|c| c.finish_reason.as_ref()) {
            self.apply_finish(reason.as_str());
        }
        if let Some(Obj(usage)) = &chunk.usage_metadata {
            self.apply_usage_counts(&UsageCounts {
                prompt: usage.prompt_token_count.unwrap_or(0),
                candidates: usage.candidates_token_count.unwrap_or(0),
                thoughts: usage.thoughts_token_count.unwrap_or(0),
                total: usage.total_token_count.unwrap_or(0),
                cached: usage.cached_content_token_count.unwrap_or(0),
            });
        }
        true
    }
}
