//! Shared helpers: recorded Responses streams folded without HTTP.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use rho_ai::{AssistantMessage, AssistantMessageEvent, Model, ModelCost};
use rho_openai::ResponsesFolder;

/// `kinds`: the shape of each event; `comparable`: events with every timestamp zeroed. (Not
/// every test binary uses both.)
#[allow(unused_imports)]
pub use rho_testkit::fold::{event_shapes as kinds, without_timestamps as comparable};

use rho_testkit::fold::{fold_sse, split};
use serde_json::Value;

/// Every recorded file of the `openai-responses` fixture folder.
pub const FIXTURES: [&str; 9] = [
    "deepseek-reasoning-function-call.sse",
    "error-insufficient-quota.jsonl",
    "function-call-args.sse",
    "lmstudio-reasoning-tool-call.jsonl",
    "openrouter-reasoning-text.sse",
    "reasoning-function-call-usage.sse",
    "reasoning-message-function-call.sse",
    "reasoning-summary-long.sse",
    "text.sse",
];

fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/fixtures/providers/openai-responses")
}

/// The body of a fixture as a server would send it. `.jsonl` files hold one event per line with
/// no framing (SOURCES.md): each line becomes `data: <line>\n\n` (Responses sends no `[DONE]`).
pub fn fixture_body(name: &str) -> Vec<u8> {
    let bytes = std::fs::read(fixture_dir().join(name)).expect("fixture exists");
    if !name.ends_with(".jsonl") {
        return bytes;
    }
    let text = String::from_utf8(bytes).expect("utf-8 fixture");
    data_body(text.lines().filter(|l| !l.trim().is_empty()))
}

/// A data-only SSE body with one event per payload.
pub fn data_body<'a>(payloads: impl IntoIterator<Item = &'a str>) -> Vec<u8> {
    let mut body = String::new();
    for payload in payloads {
        body.push_str("data: ");
        body.push_str(payload);
        body.push_str("\n\n");
    }
    body.into_bytes()
}

/// The raw JSON of the `output_item.done` event's item with `id` in a fixture: what a thinking
/// signature must hold.
pub fn done_item(name: &str, id: &str) -> Value {
    let body = String::from_utf8(fixture_body(name)).unwrap();
    body.lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .filter_map(|data| serde_json::from_str::<Value>(data).ok())
        .filter(|event| event["type"] == "response.output_item.done")
        .map(|event| event["item"].clone())
        .find(|item| item["id"] == id)
        .expect("the item is in the fixture")
}

/// An `openai-responses` model of `provider` with id `id`, reasoning, text only, with prices.
pub fn model(provider: &str, id: &str) -> Model {
    Model {
        id: id.into(),
        name: id.into(),
        api: "openai-responses".into(),
        provider: provider.into(),
        base_url: "https://example.invalid/v1".into(),
        reasoning: true,
        input: vec!["text".into()],
        cost: ModelCost {
            input: 1.25,
            output: 10.0,
            cache_read: 0.125,
            cache_write: 0.0,
        },
        context_window: 400_000,
        max_tokens: 128_000,
        headers: None,
        compat: None,
    }
}

/// Every event of one fold (terminal included) and the final message.
pub struct Folded {
    pub events: Vec<AssistantMessageEvent>,
    pub message: AssistantMessage,
}

/// Folds `body`, fed to the SSE parser in pieces of the given sizes (cycled; the rest in one
/// piece if `sizes` is empty), and ends the stream as the HTTP driver does: `done` with the
/// folder's message, or `error` on its partial message with the failure's text and kind.
pub fn fold_in_pieces(model: &Model, body: &[u8], sizes: &[usize]) -> Folded {
    let events = fold_sse(&mut ResponsesFolder::new(model), split(body, sizes)).events;
    let message = events
        .last()
        .and_then(AssistantMessageEvent::terminal_message)
        .cloned()
        .expect("a terminal event");
    Folded { events, message }
}

/// Folds a whole fixture in one piece.
pub fn fold_fixture(model: &Model, name: &str) -> Folded {
    fold_in_pieces(model, &fixture_body(name), &[])
}

/// Folds data-only events in one piece.
pub fn fold_events(model: &Model, events: &[Value]) -> Folded {
    let payloads: Vec<String> = events.iter().map(Value::to_string).collect();
    fold_in_pieces(model, &data_body(payloads.iter().map(String::as_str)), &[])
}
