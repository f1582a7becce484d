//! The loop's own cost per turn, in-process: the faux model (no HTTP, no process start, no usage
//! simulation) answers N turns, each with one call of a trivial tool, then a final text.
//! Per-turn cost = run time / N; comparing N = 100 and N = 1000 shows whether it stays flat.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use async_trait::async_trait;
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use rho_agent::{
    AgentEvent, AgentTool, LoopConfig, LoopContext, ToolError, ToolOutput, ToolUpdates,
    run_agent_loop,
};
use rho_ai::UserMessage;
use rho_ai::faux::{FauxProvider, faux_message, faux_text, faux_tool_call};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

struct Noop(Value);

#[async_trait]
impl AgentTool for Noop {
    fn name(&self) -> &str {
        "noop"
    }
    fn description(&self) -> &str {
        "does nothing"
    }
    fn parameters(&self) -> &Value {
        &self.0
    }
    async fn execute(
        &self,
        _id: &str,
        _args: Value,
        _cancel: CancellationToken,
        _updates: ToolUpdates,
    ) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("ok"))
    }
}

fn scripted(turns: usize) -> FauxProvider {
    let provider = FauxProvider::new()
        .with_chunk_chars(1024)
        .with_usage(false)
        .with_recording(false);
    for i in 0..turns {
        provider.push(faux_message(vec![faux_tool_call(
            format!("c{i}"),
            "noop",
            json!({"n": i}),
        )]));
    }
    provider.push(faux_message(vec![faux_text("done")]));
    provider
}

fn bench_turns(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let tool: Arc<dyn AgentTool> = Arc::new(Noop(
        json!({"type":"object","properties":{"n":{"type":"integer"}}}),
    ));
    let mut group = c.benchmark_group("loop");
    group.sample_size(10);
    for turns in [100usize, 1000] {
        group.throughput(Throughput::Elements(turns as u64));
        group.bench_function(format!("{turns}_turns_one_tool_each"), |b| {
            b.iter_batched(
                || scripted(turns),
                |provider| {
                    let config = LoopConfig::new(provider.model(), Arc::new(provider));
                    let context = LoopContext {
                        system_prompt: Some("bench".into()),
                        messages: Vec::new(),
                        tools: vec![tool.clone()],
                    };
                    // A sink that serializes nothing: the loop's own work only.
                    let sink = Arc::new(|event: AgentEvent| {
                        std::hint::black_box(event);
                    });
                    let prompt = vec![UserMessage::text("go").into()];
                    runtime
                        .block_on(run_agent_loop(
                            prompt,
                            context,
                            &config,
                            CancellationToken::new(),
                            sink,
                        ))
                        .unwrap()
                },
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, bench_turns);
criterion_main!(benches);
