//! The provider targets' common part: an SSE body folded through a provider's folder exactly as
//! the HTTP driver feeds it, and the stream's promise checked.

use rho_ai::{AssistantMessageEvent, Model, ModelCost};
use rho_http::SseFolder;
use rho_testkit::fold::fold_sse;

use crate::input::{piece_size, pieces};

/// A model of `api` for a folder; nothing in it comes from the input.
pub fn model(api: &str) -> Model {
    Model {
        id: "fuzz".into(),
        name: "fuzz".into(),
        api: api.into(),
        provider: "fuzz".into(),
        base_url: "http://127.0.0.1".into(),
        reasoning: true,
        input: vec!["text".into(), "image".into()],
        cost: ModelCost::default(),
        context_window: 100_000,
        max_tokens: 8_000,
        headers: None,
        compat: None,
    }
}

/// Folds `data` (first byte: the piece size, see [`piece_size`]) through `folder` and checks
/// that the stream ends in exactly one terminal event, its last, whose message is the outcome.
pub fn fold(mut folder: impl SseFolder, data: &[u8]) {
    let (size, body) = piece_size(data);
    let folded = fold_sse(&mut folder, pieces(body, size));
    let terminal = |event: &AssistantMessageEvent| event.terminal_message().is_some();
    let terminals = folded.events.iter().filter(|event| terminal(event)).count();
    assert_eq!(terminals, 1, "one terminal event");
    let last = folded
        .events
        .last()
        .and_then(|event| event.terminal_message());
    let outcome = match &folded.outcome {
        Ok(message) | Err((_, message)) => message,
    };
    assert_eq!(
        last,
        Some(outcome),
        "the terminal event carries the outcome"
    );
}
