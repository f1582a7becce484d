//! Measures the local model on this machine through rho's own provider path: load time, prompt
//! and generation tokens per second, peak RSS.
//! `cargo run --profile dist -p rho-llama --example bench -- <model.gguf> [rounds]`
//!
//! Comparable with llama.cpp's own figures (crates/rho-llama/llamacpp-bench, `-p 512 -n 128`):
//! the long prompt is about 512 tokens, generation is capped at 128 tokens, no tools and so no
//! grammar. Each figure is the median of `rounds` (default 3) calls.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use rho_ai::{AssistantMessageEvent as E, Context, Message, Provider, StreamOptions, UserMessage};
use rho_llama::LlamaProvider;
use rho_local::local_model;

/// Generated tokens per generation round, as llama-bench's `-n 128`.
const GENERATED: u64 = 128;

#[tokio::main(flavor = "multi_thread", worker_threads = 1)]
async fn main() {
    let mut args = std::env::args().skip(1);
    let path = PathBuf::from(args.next().expect("usage: bench <model.gguf> [rounds]"));
    let rounds: usize = args
        .next()
        .map_or(3, |r| r.parse().expect("rounds: a number"));
    let model = local_model(&path);
    let provider = LlamaProvider::new();
    let context = |text: &str| Context {
        system_prompt: Some("You are a helpful assistant.".into()),
        messages: Arc::new(vec![Message::User(Arc::new(UserMessage::text(text)))]),
        tools: Arc::new([]),
    };
    let call = |text: &str, max_tokens: u64| {
        provider.stream(
            &model,
            context(text),
            StreamOptions {
                max_tokens: Some(max_tokens),
                ..Default::default()
            },
        )
    };
    // The first call pays for loading the model; it is timed on its own.
    let started = Instant::now();
    let warm = call("Hi", 1).result().await;
    println!(
        "load + first call: {:.2} s ({:?})",
        started.elapsed().as_secs_f64(),
        warm.stop_reason
    );
    // Prompt processing alone: one generated token after a ~512-token prompt, minus the same
    // call on a short prompt (which is mostly creating the context, the template, the sampler).
    let long = "Summarize the following text. ".to_owned()
        + &"The quick brown fox jumps over the lazy dog while the cat watches. ".repeat(34);
    let mut short_s = Vec::new();
    let mut long_s = Vec::new();
    let (mut short_tokens, mut long_tokens) = (0, 0);
    for _ in 0..rounds {
        for (text, times, tokens) in [
            ("Hi", &mut short_s, &mut short_tokens),
            (long.as_str(), &mut long_s, &mut long_tokens),
        ] {
            let started = Instant::now();
            let message = call(text, 1).result().await;
            times.push(started.elapsed().as_secs_f64());
            *tokens = message.usage.input;
        }
    }
    let (short, long_median) = (median(&mut short_s), median(&mut long_s));
    println!(
        "prompt processing: {long_tokens} tokens in {long_median:.3} s, short call ({short_tokens} tokens) {short:.3} s => {:.0} tok/s",
        (long_tokens - short_tokens) as f64 / (long_median - short)
    );
    let prompt = "Write a long story about a robot who learns to paint.";
    let mut rates = Vec::new();
    for round in 0..rounds {
        let started = Instant::now();
        let mut stream = call(prompt, GENERATED);
        let mut first_token = None;
        let mut text = String::new();
        while let Some(event) = stream.next().await {
            if let E::TextDelta { delta, .. } = &event {
                first_token.get_or_insert_with(Instant::now);
                text.push_str(delta);
            }
        }
        let message = stream.take_result().unwrap();
        let done = Instant::now();
        let first = first_token.unwrap_or(done);
        let prompt_s = (first - started).as_secs_f64();
        let generation_s = (done - first).as_secs_f64();
        // The first generated token is counted in the prompt phase.
        let rate = message.usage.output.saturating_sub(1) as f64 / generation_s;
        rates.push(rate);
        println!(
            "round {round}: prompt {} tokens in {prompt_s:.3} s ({:.0} tok/s), generation {} tokens in {generation_s:.3} s ({rate:.0} tok/s), stop {:?}",
            message.usage.input,
            message.usage.input as f64 / prompt_s,
            message.usage.output,
            message.stop_reason,
        );
        if round == 0 {
            println!("--- output ---\n{text}\n--------------");
        }
    }
    println!("generation median: {:.1} tok/s", median(&mut rates));
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    for line in status
        .lines()
        .filter(|l| l.starts_with("VmHWM") || l.starts_with("VmRSS"))
    {
        println!("{line}");
    }
}

fn median(samples: &mut [f64]) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}
