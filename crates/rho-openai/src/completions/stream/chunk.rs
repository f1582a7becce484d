//! The typed fast path for the common chunk: text or reasoning deltas, decoded into borrowed
//! fields instead of a `Value` tree. A chunk with anything else that matters (usage, tool calls,
//! reasoning details, an error), or that does not decode, goes the `Value` way.

use rho_ai::StreamSender;
use rho_http::SseEvent;
use serde::Deserialize;
use serde::de::IgnoredAny;

use super::CompletionsFolder;
use crate::completions::convert::REASONING_FIELDS;
use rho_http::wire::{Obj, Str, decode};

/// One `chat.completion.chunk`.
#[derive(Deserialize)]
struct Chunk<'a> {
    #[serde(borrow)]
    id: Option<Str<'a>>,
    #[serde(borrow)]
    model: Option<Str<'a>>,
    #[serde(borrow)]
    choices: Option<Vec<Obj<Choice<'a>>>>,
    usage: Option<IgnoredAny>,
    error: Option<IgnoredAny>,
}

/// A choice of a chunk.
#[derive(Deserialize)]
struct Choice<'a> {
    #[serde(borrow)]
    finish_reason: Option<Str<'a>>,
    #[serde(borrow)]
    delta: Option<Obj<Delta<'a>>>,
    usage: Option<IgnoredAny>,
}

/// A choice's delta.
#[derive(Deserialize)]
struct Delta<'a> {
    #[serde(borrow)]
    content: Option<Str<'a>>,
    #[serde(borrow)]
    reasoning_content: Option<Str<'a>>,
    #[serde(borrow)]
    reasoning: Option<Str<'a>>,
    #[serde(borrow)]
    reasoning_text: Option<Str<'a>>,
    tool_calls: Option<IgnoredAny>,
    reasoning_details: Option<IgnoredAny>,
}

impl CompletionsFolder {
    /// Folds a chunk of text and reasoning deltas; `false` (nothing done) sends it down the
    /// `Value` path, which reads it (or fails on it) exactly as before.
    pub(super) fn fast_chunk(
        &mut self,
        event: &SseEvent,
        data: &str,
        out: &mut StreamSender,
    ) -> bool {
        // A derived struct would also accept an array; only an object is a chunk.
        if !data.starts_with('{') || event.event.as_deref() == Some("error") {
            return false;
        }
        let Some(chunk) = decode::<Chunk>(data) else {
            return false;
        };
        let choice = chunk
            .choices
            .as_ref()
            .and_then(|choices| choices.first())
            .map(|Obj(choice)| choice);
        let delta = choice
            .and_then(|c| c.delta.as_ref())
            .map(|Obj(delta)| delta);
        if chunk.error.is_some()
            || chunk.usage.is_some()
            || choice.is_some_and(|c| c.usage.is_some())
            || delta.is_some_and(|d| d.tool_calls.is_some() || d.reasoning_details.is_some())
        {
            return false;
        }
        if self.output.response_id.is_none()
            && let Some(id) = &chunk.id
        {
            self.output.response_id = Some(id.as_str().to_owned());
        }
        if self.output.response_model.is_none()
            && let Some(name) = &chunk.model
            && name.as_str() != self.model.id
        {
            self.output.response_model = Some(name.as_str().to_owned());
        }
        let Some(choice) = choice else { return true };
        if let Some(reason) = &choice.finish_reason {
            self.finish_reason = Some(reason.as_str().to_owned());
        }
        let Some(delta) = delta else { return true };
        if let Some(text) = &delta.content
            && !text.as_str().is_empty()
        {
            self.push_text(text.as_str(), out);
        }
        // In the order of REASONING_FIELDS: the first non-empty one is the reasoning.
        let texts = [
            &delta.reasoning_content,
            &delta.reasoning,
            &delta.reasoning_text,
        ];
        let reasoning = REASONING_FIELDS
            .into_iter()
            .zip(texts)
            .find_map(|(field, text)| {
                let text = text.as_ref()?.as_str();
                (!text.is_empty()).then_some((field, text))
            });
        if let Some((field, text)) = reasoning {
            self.push_thinking(field, text, out);
        }
        true
    }
}
