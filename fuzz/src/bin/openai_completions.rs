//! Target `openai_completions`: an `openai-completions` SSE body through `CompletionsFolder`, in
//! pieces (first byte: their size); the stream must end in exactly one terminal event.

use rho_fuzz::providers::{fold, model};
use rho_openai::CompletionsFolder;

/// Folds `data` as a Chat Completions response body.
pub fn run(data: &[u8]) {
    fold(CompletionsFolder::new(&model("openai-completions")), data);
}

rho_fuzz::main!(run);
