//! Measures the local model on this machine: load time, prompt and generation tokens per
//! second, peak RSS. `cargo run --release -p rho-local --example bench -- <model.gguf> [prompt]`

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use rho_ai::{AssistantMessageEvent as E, Context, Message, Provider, StreamOptions, UserMessage};
use rho_local::{LocalProvider, local_model};

#[tokio::main(flavor = "multi_thread", worker_threads = 1)]
async fn main() {
    let mut args = std::env::args().skip(1);
    let path = PathBuf::from(args.next().expect("usage: bench <model.gguf> [prompt]"));
    let prompt = args
        .next()
        .unwrap_or_else(|| "Write a short story about a robot who learns to paint.".to_owned());
    let model = local_model(&path);
    let provider = LocalProvider::new();
    let context = |text: &str| Context {
        system_prompt: Some("You are a helpful assistant.".into()),
        messages: Arc::new(vec![Message::User(Arc::new(UserMessage::text(text)))]),
        tools: Arc::new([]),
    };
    // The first call pays for loading the model; it is timed on its own.
    let started = Instant::now();
    let warm = provider
        .stream(
            &model,
            context("Hi"),
            StreamOptions {
                max_tokens: Some(1),
                ..Default::default()
            },
        )
        .result()
        .await;
    println!(
        "load + first call: {:.2} s ({:?})",
        started.elapsed().as_secs_f64(),
        warm.stop_reason
    );
    // Prompt processing alone: one generated token after a long prompt, minus the same call on
    // a short prompt (which is mostly creating the context).
    let long = "Summarize the following text. ".to_owned()
        + &"The quick brown fox jumps over the lazy dog while the cat watches. ".repeat(70);
    let mut timed = Vec::new();
    for text in ["Hi", long.as_str()] {
        let started = Instant::now();
        let message = provider
            .stream(
                &model,
                context(text),
                StreamOptions {
                    max_tokens: Some(1),
                    ..Default::default()
                },
            )
            .result()
            .await;
        timed.push((message.usage.input, started.elapsed().as_secs_f64()));
    }
    let (short_tokens, short_s) = timed[0];
    let (long_tokens, long_s) = timed[1];
    println!(
        "prompt processing: {long_tokens} tokens in {long_s:.3} s, short call ({short_tokens} tokens) {short_s:.3} s => {:.0} tok/s",
        (long_tokens - short_tokens) as f64 / (long_s - short_s)
    );
    for round in 0..3 {
        let started = Instant::now();
        let mut stream = provider.stream(&model, context(&prompt), StreamOptions::default());
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
        println!(
            "round {round}: prompt {} tokens in {prompt_s:.3} s ({:.0} tok/s), generation {} tokens in {generation_s:.3} s ({:.0} tok/s), stop {:?}",
            message.usage.input,
            message.usage.input as f64 / prompt_s,
            message.usage.output,
            // The first generated token is counted in the prompt phase.
            message.usage.output.saturating_sub(1) as f64 / generation_s,
            message.stop_reason,
        );
        if round == 0 {
            println!("--- output ---\n{text}\n--------------");
        }
    }
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    for line in status
        .lines()
        .filter(|l| l.starts_with("VmHWM") || l.starts_with("VmRSS"))
    {
        println!("{line}");
    }
}
