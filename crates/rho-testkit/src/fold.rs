//! Folding an SSE body without HTTP: the bytes go through [`SseParser`] into an [`SseFolder`]
//! the way `rho_http`'s driver feeds them, so provider tests can check a folder on recorded or
//! hand-built bodies in any chunking.

use rho_ai::{AssistantMessage, AssistantMessageEvent, ErrorInfo, StopReason, channel};
use rho_http::{Failure, Flow, SseFolder, SseParser};
use serde_json::Value;

/// What folding one body produced.
#[derive(Debug)]
pub struct Folded {
    /// Every event, the terminal one last.
    pub events: Vec<AssistantMessageEvent>,
    /// The final message (`done`) or the failure with the partial message (`error`).
    pub outcome: Result<AssistantMessage, (Failure, AssistantMessage)>,
}

/// Feeds `chunks` in order through a fresh [`SseParser`] into `folder`: `start`, events until
/// [`Flow::Done`], a failure or the end of the body, `finish`, then one terminal event — `done`
/// with the finished message, or `error` on the folder's partial message carrying the failure's
/// text and kind. The folder is borrowed so a test can read its own state afterwards.
pub fn fold_sse<'a, F: SseFolder>(
    folder: &mut F,
    chunks: impl IntoIterator<Item = &'a [u8]>,
) -> Folded {
    let (mut sender, mut stream) = channel(folder.partial());
    folder.start(&mut sender);
    let mut parser = SseParser::new();
    let mut failure = None;
    // `None` marks the end of the body, where the parser flushes an unterminated last event.
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
            partial.error_info = Some(ErrorInfo::new(error.kind));
            sender.push(AssistantMessageEvent::Error {
                reason: StopReason::Error,
                error: partial.clone(),
            });
            Err((error, partial))
        }
    };
    drop(sender);
    Folded {
        events: drain(&mut stream),
        outcome,
    }
}

/// Every event left in a stream whose sender is gone.
// A runtime that cannot start is a broken test environment, which the test must report loudly.
#[allow(clippy::expect_used)]
fn drain(stream: &mut rho_ai::AssistantMessageEventStream) -> Vec<AssistantMessageEvent> {
    let mut events = Vec::new();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a current-thread runtime starts");
    // The sender is dropped, so the stream only yields what is queued and then ends.
    runtime.block_on(async {
        while let Some(event) = stream.next().await {
            events.push(event);
        }
    });
    events
}

/// Splits `body` into pieces of the given sizes, cycling through them; zero sizes are skipped
/// and with no size left the rest is one piece.
pub fn split<'a>(body: &'a [u8], sizes: &[usize]) -> Vec<&'a [u8]> {
    let mut pieces = Vec::new();
    let mut rest = body;
    let mut size = sizes.iter().copied().filter(|s| *s > 0).cycle();
    while !rest.is_empty() {
        let n = size.next().unwrap_or(rest.len()).min(rest.len());
        let (piece, tail) = rest.split_at(n);
        pieces.push(piece);
        rest = tail;
    }
    pieces
}

/// `(event type, contentIndex, delta)` of each event: its shape without the snapshots.
pub fn event_shapes(
    events: &[AssistantMessageEvent],
) -> Vec<(String, Option<u64>, Option<String>)> {
    events
        .iter()
        .map(|event| {
            let json = serde_json::to_value(event).unwrap_or_default();
            (
                json["type"].as_str().unwrap_or_default().to_owned(),
                json.get("contentIndex").and_then(Value::as_u64),
                json.get("delta").and_then(Value::as_str).map(str::to_owned),
            )
        })
        .collect()
}

/// Events as JSON with every `timestamp` zeroed, so two folds made at different instants compare.
pub fn without_timestamps(events: &[AssistantMessageEvent]) -> Value {
    fn zero(value: &mut Value) {
        match value {
            Value::Object(map) => {
                for (key, item) in map.iter_mut() {
                    if key == "timestamp" {
                        *item = Value::from(0);
                    } else {
                        zero(item);
                    }
                }
            }
            Value::Array(items) => items.iter_mut().for_each(zero),
            _ => {}
        }
    }
    let mut json = serde_json::to_value(events).unwrap_or_default();
    zero(&mut json);
    json
}
