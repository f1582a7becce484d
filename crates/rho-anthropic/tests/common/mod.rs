//! Shared test helpers: the recorded fixtures, a model, and a small driver that feeds bytes in
//! any chunking through `SseParser` into an `AnthropicFolder` (no HTTP) and collects the events.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod digest;

use rho_ai::{AssistantMessage, AssistantMessageEvent, Model, ModelCost};
use rho_anthropic::AnthropicFolder;
use rho_http::Failure;
use rho_testkit::fold::fold_sse;
use serde_json::Value;

/// Every recorded Anthropic stream (pi-reference fixtures, described in SOURCES.md).
pub const FIXTURES: [&str; 10] = [
    "mcp-tool-use-thinking.sse",
    "redacted-thinking.sse",
    "text-ping.jsonl",
    "text-simple.sse",
    "text-then-tool-use-json.jsonl",
    "thinking-signature-text.jsonl",
    "thinking-signature-text.sse",
    "thinking-then-tool-use-no-args.sse",
    "tool-search-then-tool-use.sse",
    "web-search-thinking-citations.sse",
];

/// The workspace's sibling `shared/` folder holds the recordings (also in CI).
pub fn fixture_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/fixtures/providers/anthropic-messages")
}

/// The response body of a fixture. `.jsonl` files hold one event JSON per line without SSE
/// framing; each line becomes a data-only event (`data: <line>\n\n`), as SOURCES.md says.
pub fn fixture_body(name: &str) -> Vec<u8> {
    let path = fixture_dir().join(name);
    let bytes =
        std::fs::read(&path).unwrap_or_else(|e| panic!("read fixture {}: {e}", path.display()));
    if !name.ends_with(".jsonl") {
        return bytes;
    }
    let text = String::from_utf8(bytes).unwrap();
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| format!("data: {line}\n\n"))
        .collect::<String>()
        .into_bytes()
}

/// Sonnet 4.5 with its prices (3 / 15 / 0.3 / 3.75 USD per million tokens).
pub fn model() -> Model {
    Model {
        id: "claude-sonnet-4-5".into(),
        name: "Claude Sonnet 4.5".into(),
        api: "anthropic-messages".into(),
        provider: "anthropic".into(),
        base_url: "https://api.anthropic.com".into(),
        reasoning: true,
        input: vec!["text".into(), "image".into()],
        cost: ModelCost {
            input: 3.0,
            output: 15.0,
            cache_read: 0.3,
            cache_write: 3.75,
        },
        context_window: 200_000,
        max_tokens: 64_000,
        headers: None,
        compat: None,
    }
}

/// What folding one body produced.
#[derive(Debug)]
pub struct Folded {
    /// Every event, the terminal one last.
    pub events: Vec<AssistantMessageEvent>,
    /// The final message (`done`) or the failure with the partial message (`error`).
    pub outcome: Result<AssistantMessage, (Failure, AssistantMessage)>,
    /// The server-side tool blocks the folder kept aside.
    pub server_blocks: Vec<Value>,
}

/// Feeds `chunks` in order through an `AnthropicFolder`, the way the HTTP driver does.
pub fn fold_chunks<'a>(chunks: impl IntoIterator<Item = &'a [u8]>) -> Folded {
    let mut folder = AnthropicFolder::new(&model());
    let folded = fold_sse(&mut folder, chunks);
    Folded {
        events: folded.events,
        outcome: folded.outcome,
        server_blocks: folder.server_blocks().to_vec(),
    }
}

/// Folds a whole body delivered in one chunk.
pub fn fold(body: &[u8]) -> Folded {
    fold_chunks([body])
}

/// The `type` of every event, in order.
pub fn kinds(events: &[AssistantMessageEvent]) -> Vec<String> {
    events
        .iter()
        .map(|event| {
            let json = serde_json::to_value(event).unwrap();
            json["type"].as_str().unwrap().to_owned()
        })
        .collect()
}

/// Strings from literals.
pub fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

/// Cost of `tokens` at `price` USD per million, as pi computes it.
pub fn cost(price: f64, tokens: u64) -> f64 {
    price / 1_000_000.0 * tokens as f64
}

/// Compares as pretty JSON text, so key order counts and a failure shows a readable diff.
pub fn assert_json(actual: &Value, expected: &Value) {
    assert_eq!(
        serde_json::to_string_pretty(actual).unwrap(),
        serde_json::to_string_pretty(expected).unwrap()
    );
}
