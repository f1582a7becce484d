//! Streamed tool arguments as a folder parses them: a 200 KB `write` argument arriving in 4,000
//! deltas, with the arguments object brought up to date after every delta. `reparse` is Pi's way
//! (and rho's before `StreamingJson`): the whole text so far through the cascade on each delta;
//! `incremental` is `StreamingJson`. Run: `cargo bench -p rho-ai --bench partial_json`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rho_ai::partial_json::{StreamingJson, reference};
use serde_json::Value;

/// A `write` call's arguments of about `len` bytes: source code with the escapes JSON needs.
fn write_arguments(len: usize) -> String {
    let line = "    let s = \"naïve \\\"quoted\\\" \\\\ path\tcol\"; // é 日本 😀\n";
    let mut code = String::new();
    while code.len() < len {
        code.push_str(line);
    }
    // JSON's escapes (`\"`, `\\`, `\n`, `\t`), and `\u` ones as some models send.
    let content = serde_json::to_string(&code)
        .unwrap()
        .replace('é', "\\u00e9")
        .replace('😀', "\\ud83d\\ude00");
    format!("{{\"path\":\"src/main.rs\",\"content\":{content}}}")
}

/// `text` in `count` deltas of about equal size, cut on character boundaries.
fn deltas(text: &str, count: usize) -> Vec<&str> {
    let size = text.len().div_ceil(count);
    let mut out = Vec::new();
    let mut from = 0;
    while from < text.len() {
        let mut to = (from + size).min(text.len());
        while !text.is_char_boundary(to) {
            to += 1;
        }
        out.push(&text[from..to]);
        from = to;
    }
    out
}

fn streamed_arguments(c: &mut Criterion) {
    let text = write_arguments(200_000);
    let deltas = deltas(&text, 4_000);
    let mut group = c.benchmark_group("write_200kb_in_4000_deltas");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.sample_size(10);
    group.warm_up_time(Duration::from_secs(1));
    group.bench_function("reparse", |b| {
        b.iter(|| {
            let mut buffer = String::new();
            let mut arguments = Value::Null;
            for delta in &deltas {
                buffer.push_str(delta);
                arguments = Value::Object(reference::parse_streaming_json(&buffer));
            }
            black_box(arguments)
        });
    });
    group.bench_function("incremental", |b| {
        b.iter(|| {
            let mut parser = StreamingJson::new();
            let mut arguments = Value::Null;
            for delta in &deltas {
                parser.push(delta);
                parser.update(&mut arguments);
            }
            black_box(arguments)
        });
    });
    group.finish();
}

criterion_group!(benches, streamed_arguments);
criterion_main!(benches);
