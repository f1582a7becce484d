//! Shared test helpers: the recorded Gemini fixtures, a model, and a small driver that feeds
//! bytes in any chunking through `SseParser` into a `GoogleFolder` (no HTTP) and collects the
//! events, the way the HTTP driver does.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use rho_ai::{AssistantMessage, AssistantMessageEvent, Model, ModelCost};
use rho_google::GoogleFolder;
pub use rho_testkit::fold::Folded;
use rho_testkit::fold::fold_sse;
use serde_json::Value;

/// Every recorded Gemini stream (described in SOURCES.md).
pub const FIXTURES: [&str; 8] = [
    "code-execution-gemini-3-flash.sse",
    "function-call-gemini-3-pro.jsonl",
    "function-call-thought-signature-gemini-3-pro.sse",
    "google-search-grounding-gemini-2.5-pro.sse",
    "text-gemini-2.0-flash.sse",
    "thoughts-gemini-2.5-pro.sse",
    "usage-mid-stream-gemini-2.5-flash.sse",
    "vertex-streamed-function-args-parallel.jsonl",
];

/// The workspace's sibling `shared/` folder holds the recordings.
pub fn fixture_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/fixtures/providers/google-gemini")
}

/// The response body of a fixture. `.jsonl` files hold one chunk JSON per line without SSE
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

/// A Gemini model with round prices (1 / 4 / 0.25 USD per million tokens).
pub fn model() -> Model {
    Model {
        id: "gemini-2.5-pro".into(),
        name: "Gemini 2.5 Pro".into(),
        api: "google-generative-ai".into(),
        provider: "google".into(),
        base_url: "https://generativelanguage.googleapis.com/v1beta".into(),
        reasoning: true,
        input: vec!["text".into(), "image".into()],
        cost: ModelCost {
            input: 1.0,
            output: 4.0,
            cache_read: 0.25,
            cache_write: 0.0,
        },
        context_window: 1_048_576,
        max_tokens: 65_536,
        headers: None,
        compat: None,
    }
}

/// A folder naming id-less calls `<name>#<n>` (n counts per folder), so results are exact.
pub fn folder() -> GoogleFolder {
    let mut n = 0;
    GoogleFolder::with_tool_call_ids(
        &model(),
        Box::new(move |name| {
            n += 1;
            format!("{name}#{n}")
        }),
    )
}

/// Feeds `chunks` in order through [`folder`], the way the HTTP driver does.
pub fn fold_chunks<'a>(chunks: impl IntoIterator<Item = &'a [u8]>) -> Folded {
    fold_sse(&mut folder(), chunks)
}

/// Folds a whole body delivered in one chunk.
pub fn fold(body: &[u8]) -> Folded {
    fold_chunks([body])
}

/// A body of data-only events, CRLF-framed as Gemini sends them.
pub fn gemini_body(chunks: &[Value]) -> Vec<u8> {
    chunks
        .iter()
        .map(|chunk| format!("data: {chunk}\r\n\r\n"))
        .collect::<String>()
        .into_bytes()
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

/// The usage pi derives from a `usageMetadata` (no cached tokens) with this test model's prices.
pub fn usage(prompt: u64, candidates: u64, thoughts: u64, total: u64) -> rho_ai::Usage {
    let mut usage = rho_ai::Usage {
        input: prompt,
        output: candidates + thoughts,
        cache_read: 0,
        cache_write: 0,
        reasoning: Some(thoughts),
        total_tokens: total,
        cost: rho_ai::Cost::default(),
        ..Default::default()
    };
    model().apply_cost(&mut usage);
    usage
}

/// An empty message of the test model stamped like `actual`, to build expected values from.
pub fn expected_message(actual: &AssistantMessage) -> AssistantMessage {
    AssistantMessage {
        timestamp: actual.timestamp,
        // The provider's own reason is checked on its own (`the_raw_finish_reason_is_kept`).
        raw_stop_reason: actual.raw_stop_reason.clone(),
        ..AssistantMessage::empty("google-generative-ai", "google", "gemini-2.5-pro")
    }
}

/// The full text of a fixture's JSON strings that SOURCES.md abbreviates: checks the recorded
/// prefix and character count, then returns it.
pub fn checked_text(actual: &str, prefix: &str, chars: usize) -> String {
    assert!(
        actual.starts_with(prefix),
        "{actual:?} starts with {prefix:?}"
    );
    assert_eq!(actual.chars().count(), chars);
    actual.to_owned()
}
