//! The `local` provider: the model layer's [`Provider`] over an in-process GGUF model.

use std::path::{Path, PathBuf};

use rho_ai::{
    AssistantMessage, AssistantMessageEventStream, Context, Model, ModelCost, Provider,
    StreamOptions,
};

use crate::emit::Emitter;
use crate::generate::Job;
use crate::worker::submit;

/// The provider name and api of local models.
pub const LOCAL_PROVIDER: &str = "local";
/// The api name local models carry.
pub const LOCAL_API: &str = "local";
/// The context window the local provider runs with, in tokens.
pub const CONTEXT_WINDOW: u32 = 4096;
/// The default output cap, so a small model's answer cannot loop for the whole window.
pub const DEFAULT_MAX_TOKENS: u64 = 512;

/// The description of the local model in the GGUF file at `path`: provider and api `local`, id
/// the file stem, the file's path as `base_url` (where [`LocalProvider`] loads it from), a
/// 4,096-token window, no cost, no reasoning, text only.
pub fn local_model(path: &Path) -> Model {
    let id = path.file_stem().map_or_else(
        || path.display().to_string(),
        |stem| stem.to_string_lossy().into_owned(),
    );
    Model {
        name: id.clone(),
        id,
        api: LOCAL_API.to_owned(),
        provider: LOCAL_PROVIDER.to_owned(),
        base_url: path.display().to_string(),
        reasoning: false,
        input: vec!["text".to_owned()],
        cost: ModelCost::default(),
        context_window: u64::from(CONTEXT_WINDOW),
        max_tokens: DEFAULT_MAX_TOKENS,
        headers: None,
        compat: None,
    }
}

/// Runs GGUF models in process with llama.cpp. Each model file (the model's `base_url`) is
/// loaded once per process and shared; every call gets its own context of at most
/// [`CONTEXT_WINDOW`] tokens. Calls run one at a time, in order, on one dedicated thread that
/// lives as long as the process (llama.cpp's OpenMP threads slow down when several threads
/// start them). Output is capped at the smaller of
/// `options.max_tokens` and the model's `max_tokens`; decoding is greedy unless
/// `options.temperature` is above zero.
#[derive(Clone, Debug, Default)]
pub struct LocalProvider {
    _private: (),
}

impl LocalProvider {
    /// The provider.
    pub fn new() -> Self {
        Self::default()
    }
}

impl Provider for LocalProvider {
    fn stream(
        &self,
        model: &Model,
        context: Context,
        options: StreamOptions,
    ) -> AssistantMessageEventStream {
        let template = AssistantMessage::empty(&model.api, &model.provider, &model.id);
        let (sender, stream) = rho_ai::channel(template);
        let window = u32::try_from(model.context_window)
            .ok()
            .filter(|&n| n > 0)
            .unwrap_or(CONTEXT_WINDOW)
            .min(CONTEXT_WINDOW);
        let max_tokens = options
            .max_tokens
            .unwrap_or(model.max_tokens)
            .min(model.max_tokens.max(1));
        let job = Job {
            path: PathBuf::from(&model.base_url),
            context,
            context_window: window,
            max_tokens,
            temperature: options.temperature,
            cancel: options.cancel,
            emitter: Emitter::new(sender, model),
        };
        // Loading and generating block for a long time, and llama.cpp must stay on one thread
        // (see `worker`): the call goes to that thread's queue.
        submit(job);
        stream
    }
}
