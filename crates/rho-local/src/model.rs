//! The local model as the model layer describes it, and the limits a call runs with.

use std::path::Path;

use rho_ai::{Model, ModelCost, StreamOptions};

/// The provider name and api of local models.
pub const LOCAL_PROVIDER: &str = "local";
/// The api name local models carry.
pub const LOCAL_API: &str = "local";
/// The context window the local provider runs with, in tokens.
pub const CONTEXT_WINDOW: u32 = 4096;
/// The default output cap, so a small model's answer cannot loop for the whole window.
pub const DEFAULT_MAX_TOKENS: u64 = 512;

/// The description of the local model in the GGUF file at `path`: provider and api `local`, id
/// the file stem, the file's path as `base_url` (where the model is loaded from), a 4,096-token
/// window, no cost, no reasoning, text only.
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

/// The context window (at most [`CONTEXT_WINDOW`]) and output cap (the smaller of
/// `options.max_tokens` and the model's `max_tokens`) a call on `model` runs with.
pub fn call_limits(model: &Model, options: &StreamOptions) -> (u32, u64) {
    let window = u32::try_from(model.context_window)
        .ok()
        .filter(|&n| n > 0)
        .unwrap_or(CONTEXT_WINDOW)
        .min(CONTEXT_WINDOW);
    let max_tokens = options
        .max_tokens
        .unwrap_or(model.max_tokens)
        .min(model.max_tokens.max(1));
    (window, max_tokens)
}
