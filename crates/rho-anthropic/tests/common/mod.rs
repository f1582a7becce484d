//! Shared test helpers: the recorded fixtures, a model, and a small driver that feeds bytes in
//! any chunking through `SseParser` into an `AnthropicFolder` (no HTTP) and collects the events.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

pub mod digest;

use rho_ai::{AssistantMessage, AssistantMessageEvent, Model, ModelCost, StopReason, channel};
use rho_anthropic::AnthropicFolder;
use rho_http::{Failure, Flow, SseFolder, SseParser};
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

/// Feeds `chunks` in order, the way the HTTP driver does: `start`, events until `Flow::Done` or
/// the end of the body, `finish`, then one terminal event.
pub fn fold_chunks<'a>(chunks: impl IntoIterator<Item = &'a [u8]>) -> Folded {
    let mut folder = AnthropicFolder::new(&model());
    let (mut sender, mut stream) = channel(AssistantMessage::empty("", "", ""));
    folder.start(&mut sender);
    let mut parser = SseParser::new();
    let mut failure = None;
    'body: for chunk in chunks.into_iter().map(Some).chain([None]) {
        let events = match chunk {
            Some(bytes) => parser.feed(bytes),
            None => parser.finish(),
        };
        for event in &events {
            match folder.on_event(event, &mut sender) {
                Ok(Flow::Continue) => {}
                Ok(Flow::Done) => break 'body,
                Err(error) => {
                    failure = Some(error);
                    break 'body;
                }
            }
        }
    }
    let finished = match failure {
        Some(error) => Err(error),
        None => folder.finish(&mut sender),
    };
    let outcome = match finished {
        Ok(message) => {
            sender.push(AssistantMessageEvent::Done {
                reason: message.stop_reason,
                message: message.clone(),
            });
            Ok(message)
        }
        Err(error) => {
            let mut partial = folder.partial();
            partial.stop_reason = StopReason::Error;
            partial.error_message = Some(error.message.clone());
            sender.push(AssistantMessageEvent::Error {
                reason: StopReason::Error,
                error: partial.clone(),
            });
            Err((error, partial))
        }
    };
    let server_blocks = folder.server_blocks().to_vec();
    drop(sender);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let mut events = Vec::new();
    runtime.block_on(async {
        while let Some(event) = stream.next().await {
            events.push(event);
        }
    });
    Folded {
        events,
        outcome,
        server_blocks,
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
