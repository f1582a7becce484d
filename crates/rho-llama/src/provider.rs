//! The model layer's [`Provider`] over a GGUF model in this process.

use std::path::PathBuf;

use rho_ai::{AssistantMessageEventStream, Context, Model, Provider, StreamOptions};
use tokio_util::sync::CancellationToken;

use crate::emit::Emitter;
use crate::generate::Job;
use crate::worker::submit;

/// Runs GGUF models in this process with llama.cpp: what the model process `rho-llama` does
/// for rho, and what its benchmarks measure. Each model file (the model's `base_url`) is loaded
/// once per process and shared; every call gets its own context of at most
/// `rho_local::CONTEXT_WINDOW` tokens. Calls run one at a time, in order, on one dedicated thread
/// that lives as long as the process (llama.cpp's OpenMP threads slow down when several threads
/// start them). Output is capped by `rho_local::call_limits`; decoding is greedy unless
/// `options.temperature` is above zero.
#[derive(Clone, Debug, Default)]
pub struct LlamaProvider {
    _private: (),
}

impl LlamaProvider {
    /// The provider.
    pub fn new() -> Self {
        Self::default()
    }
}

impl Provider for LlamaProvider {
    fn stream(
        &self,
        model: &Model,
        context: Context,
        options: StreamOptions,
    ) -> AssistantMessageEventStream {
        let (window, max_tokens) = rho_local::call_limits(model, &options);
        start(
            model,
            context,
            window,
            max_tokens,
            options.temperature,
            options.cancel,
        )
    }
}

/// Queues one call on the llama.cpp thread; its events arrive on the stream returned.
pub(crate) fn start(
    model: &Model,
    context: Context,
    context_window: u32,
    max_tokens: u64,
    temperature: Option<f64>,
    cancel: CancellationToken,
) -> AssistantMessageEventStream {
    let template = rho_ai::AssistantMessage::empty(&model.api, &model.provider, &model.id);
    let (sender, stream) = rho_ai::channel(template);
    let job = Job {
        path: PathBuf::from(&model.base_url),
        context,
        context_window,
        max_tokens,
        temperature,
        cancel,
        emitter: Emitter::new(sender, model),
    };
    // Loading and generating block for a long time, and llama.cpp must stay on one thread
    // (see `worker`): the call goes to that thread's queue.
    submit(job);
    stream
}
