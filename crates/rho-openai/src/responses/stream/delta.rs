//! The typed fast path for the frequent events (text, reasoning and argument deltas), decoded
//! into borrowed fields instead of a `Value` tree. Every other event, and any event that does
//! not decode, goes the `Value` way.

use rho_ai::StreamSender;
use serde::Deserialize;
use serde::de::IgnoredAny;

use super::ResponsesFolder;
use rho_http::wire::{Str, decode};

/// A delta event: the fields the folder reads; the rest is skipped unparsed.
#[derive(Deserialize)]
struct DeltaEvent<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Str<'a>>,
    #[serde(borrow)]
    item_id: Option<Str<'a>>,
    #[serde(borrow)]
    delta: Option<Str<'a>>,
    error: Option<IgnoredAny>,
}

impl ResponsesFolder {
    /// Folds `data` when it is a well-formed delta event; `false` (nothing done) sends it down
    /// the `Value` path, which reads it (or fails on it) exactly as before.
    pub(super) fn fast_event(&mut self, data: &str, out: &mut StreamSender) -> bool {
        // A derived struct would also accept an array; only an object is an event.
        if !data.starts_with('{') {
            return false;
        }
        let Some(event) = decode::<DeltaEvent>(data) else {
            return false;
        };
        if event.error.is_some() {
            return false;
        }
        let item_id = event.item_id.as_ref().map(Str::as_str);
        let delta = event.delta.as_ref().map(Str::as_str).unwrap_or("");
        match event.kind.as_ref().map(Str::as_str) {
            Some("response.reasoning_summary_text.delta" | "response.reasoning_text.delta") => {
                self.push_thinking(item_id, delta, out);
            }
            Some("response.reasoning_summary_part.done") => {
                self.push_thinking(item_id, "\n\n", out);
            }
            Some("response.output_text.delta" | "response.refusal.delta") => {
                self.push_text(item_id, delta, out);
            }
            Some("response.function_call_arguments.delta") => {
                self.push_args(item_id, delta, false, out);
            }
            _ => return false,
        }
        true
    }
}
