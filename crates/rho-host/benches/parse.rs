//! The parse path of every provider: SSE bytes → parser → folder → assistant-message events,
//! on the largest recorded stream of each API, in MB/s on one core (`cargo bench --bench parse`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rho_ai::{AssistantMessage, Model, ModelCost, channel};
use rho_http::{Flow, SseFolder, SseParser};

fn fixture(relative: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/fixtures/providers")
        .join(relative);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn model(api: &str) -> Model {
    Model {
        id: "bench".into(),
        name: "bench".into(),
        api: api.into(),
        provider: "bench".into(),
        base_url: "http://127.0.0.1".into(),
        reasoning: true,
        input: vec!["text".into()],
        cost: ModelCost::default(),
        context_window: 100_000,
        max_tokens: 8_000,
        headers: None,
        compat: None,
    }
}

/// Folds `body` exactly as the HTTP driver does, with a consumer that takes each event as it
/// comes and drops it (as the JSON printer does), so snapshots are shared, not copied.
fn fold(mut folder: impl SseFolder, body: &[u8]) -> usize {
    let (mut sender, mut stream) = channel(AssistantMessage::empty("", "", ""));
    let mut count = 0;
    let mut drain = |stream: &mut rho_ai::AssistantMessageEventStream| {
        while let Ok(Some(())) = futures_lite_poll(stream) {
            count += 1;
        }
    };
    folder.start(&mut sender);
    let mut parser = SseParser::new();
    let mut events = parser.feed(body);
    events.extend(parser.finish());
    for event in &events {
        let flow = folder.on_event(event, &mut sender);
        drain(&mut stream);
        if let Ok(Flow::Done) | Err(_) = flow {
            break;
        }
    }
    let _ = folder.finish(&mut sender);
    drop(sender);
    drain(&mut stream);
    count
}

/// Drains already-queued events without an async runtime.
fn futures_lite_poll(stream: &mut rho_ai::AssistantMessageEventStream) -> Result<Option<()>, ()> {
    let waker = std::task::Waker::noop();
    let mut cx = std::task::Context::from_waker(waker);
    let future = stream.next();
    let mut future = std::pin::pin!(future);
    match future.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(Some(_)) => Ok(Some(())),
        std::task::Poll::Ready(None) => Ok(None),
        std::task::Poll::Pending => Err(()),
    }
}

/// Folds `body` with a fresh folder for `api`.
fn fold_api(api: &str, body: &[u8]) -> usize {
    let model = model(api);
    match api {
        "anthropic-messages" => fold(rho_anthropic::AnthropicFolder::new(&model), body),
        "openai-completions" => fold(rho_openai::CompletionsFolder::new(&model), body),
        "openai-responses" => fold(rho_openai::ResponsesFolder::new(&model), body),
        _ => fold(rho_google::GoogleFolder::new(&model), body),
    }
}

fn bench_parse(c: &mut Criterion) {
    let cases = [
        (
            "anthropic-messages",
            "anthropic-messages/web-search-thinking-citations.sse",
        ),
        (
            "openai-completions",
            "openai-chat/deepseek-reasoning-content.sse",
        ),
        (
            "openai-responses",
            "openai-responses/reasoning-summary-long.sse",
        ),
        (
            "google-generative-ai",
            "google-gemini/thoughts-gemini-2.5-pro.sse",
        ),
    ];
    // SSE framing alone: what the parser costs before any JSON is read.
    let mut framing = c.benchmark_group("sse_only");
    for (api, file) in cases {
        let body = fixture(file);
        framing.throughput(Throughput::Bytes(body.len() as u64));
        framing.bench_function(api, |b| {
            b.iter(|| {
                let mut parser = SseParser::new();
                let mut events = parser.feed(&body);
                events.extend(parser.finish());
                events.len()
            })
        });
    }
    framing.finish();
    // The floor: SSE framing plus JSON parsing of every event, no folding.
    let mut floor = c.benchmark_group("sse_and_json_only");
    for (api, file) in cases {
        let body = fixture(file);
        floor.throughput(Throughput::Bytes(body.len() as u64));
        floor.bench_function(api, |b| {
            b.iter(|| {
                let mut parser = SseParser::new();
                let mut events = parser.feed(&body);
                events.extend(parser.finish());
                events
                    .iter()
                    .filter_map(|e| serde_json::from_str::<serde_json::Value>(&e.data).ok())
                    .count()
            })
        });
    }
    floor.finish();
    let mut group = c.benchmark_group("parse");
    for (api, file) in cases {
        let body = fixture(file);
        group.throughput(Throughput::Bytes(body.len() as u64));
        group.bench_function(api, |b| b.iter(|| fold_api(api, &body)));
    }
    group.finish();
}

criterion_group!(benches, bench_parse);
criterion_main!(benches);
