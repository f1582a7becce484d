//! The typed fast path for `content_block_delta`, by far the most frequent event: decoded into
//! borrowed fields instead of a `Value` tree. Anything it does not recognise goes the `Value` way.

use rho_ai::StreamSender;
use rho_http::{Flow, SseEvent};
use serde::Deserialize;

use super::AnthropicFolder;
use super::blocks::DeltaFields;
use rho_http::wire::{Obj, Str, decode};

const CONTENT_BLOCK_DELTA: &str = "content_block_delta";

/// A `content_block_delta` event.
#[derive(Deserialize)]
struct DeltaEvent<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Str<'a>>,
    index: Option<u64>,
    #[serde(borrow)]
    delta: Option<Obj<Delta<'a>>>,
}

/// Its `delta`: only the fields the folder reads; the rest is skipped unparsed.
#[derive(Deserialize)]
struct Delta<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Str<'a>>,
    #[serde(borrow)]
    text: Option<Str<'a>>,
    #[serde(borrow)]
    thinking: Option<Str<'a>>,
    #[serde(borrow)]
    partial_json: Option<Str<'a>>,
    #[serde(borrow)]
    signature: Option<Str<'a>>,
}

fn text<'a>(field: &'a Option<Str<'_>>) -> &'a str {
    field.as_ref().map(Str::as_str).unwrap_or_default()
}

impl AnthropicFolder {
    /// Folds `event` when it is a well-formed `content_block_delta`; `None` sends it down the
    /// `Value` path, which reads it (or fails on it) exactly as before.
    pub(super) fn fast_event(&mut self, event: &SseEvent, out: &mut StreamSender) -> Option<Flow> {
        let named = match event.event.as_deref() {
            Some(CONTENT_BLOCK_DELTA) => true,
            None => false,
            Some(_) => return None,
        };
        let data: DeltaEvent = decode(&event.data)?;
        // The JSON `type` wins over the event name; without a name it is the name.
        match data.kind.as_ref().map(Str::as_str) {
            Some(CONTENT_BLOCK_DELTA) => {}
            None if named => {}
            _ => return None,
        }
        if let (Some(index), Some(Obj(delta))) = (data.index, &data.delta) {
            let fields = DeltaFields {
                kind: text(&delta.kind),
                text: text(&delta.text),
                thinking: text(&delta.thinking),
                partial_json: text(&delta.partial_json),
                signature: text(&delta.signature),
            };
            self.apply_delta(index, &fields, out);
        }
        Some(Flow::Continue)
    }
}
