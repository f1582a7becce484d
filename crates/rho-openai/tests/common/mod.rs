//! Shared helpers: recorded Chat Completions streams folded without HTTP.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use rho_ai::{AssistantMessage, AssistantMessageEvent, Model, ModelCost};
use rho_openai::CompletionsFolder;

/// `kinds`: the shape of each event; `comparable`: events with every timestamp zeroed. (Not
/// every test binary uses both.)
#[allow(unused_imports)]
pub use rho_testkit::fold::{event_shapes as kinds, without_timestamps as comparable};

use rho_testkit::fold::{fold_sse, split};

/// Every recorded file of the `openai-chat` fixture folder.
pub const FIXTURES: [&str; 14] = [
    "crusoe-vllm-text-usage.sse",
    "deepseek-reasoning-content.sse",
    "deepseek-reasoning-tool-call.jsonl",
    "groq-gpt-oss-error-event.sse",
    "groq-gpt-oss-reasoning-tool-call.sse",
    "groq-llama-tool-call-x-groq.jsonl",
    "mistral-tool-call-no-index.jsonl",
    "openai-gpt4o-mini-text-usage.sse",
    "openai-gpt4o-mini-tool-call-fragmented-args.sse",
    "openai-gpt4o-parallel-tool-calls.sse",
    "openrouter-midstream-error-comments.sse",
    "openrouter-reasoning-details.sse",
    "xai-grok-reasoning-tool-call.jsonl",
    "zai-glm-reasoning-content.sse",
];

fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures/providers/openai-chat")
}

/// The body of a fixture as a server would send it. `.jsonl` files hold one chunk per line with
/// no framing (SOURCES.md): each line becomes `data: <line>\n\n`, then `data: [DONE]\n\n`.
pub fn fixture_body(name: &str) -> Vec<u8> {
    let bytes = std::fs::read(fixture_dir().join(name)).expect("fixture exists");
    if !name.ends_with(".jsonl") {
        return bytes;
    }
    let text = String::from_utf8(bytes).expect("utf-8 fixture");
    let mut body = String::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        body.push_str("data: ");
        body.push_str(line);
        body.push_str("\n\n");
    }
    body.push_str("data: [DONE]\n\n");
    body.into_bytes()
}

/// An `openai-completions` model of `provider` with id `id`, reasoning, text only, free.
pub fn model(provider: &str, id: &str) -> Model {
    Model {
        id: id.into(),
        name: id.into(),
        api: "openai-completions".into(),
        provider: provider.into(),
        base_url: "https://example.invalid/v1".into(),
        reasoning: true,
        input: vec!["text".into()],
        cost: ModelCost::default(),
        context_window: 128_000,
        max_tokens: 16_384,
        headers: None,
        compat: None,
    }
}

/// A model with prices, so usage costs are visible.
pub fn priced(mut model: Model) -> Model {
    model.cost = ModelCost {
        input: 0.15,
        output: 0.6,
        cache_read: 0.075,
        cache_write: 0.0,
    };
    model
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
    let events = fold_sse(&mut CompletionsFolder::new(model), split(body, sizes)).events;
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
