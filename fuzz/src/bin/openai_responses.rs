//! Target `openai_responses`: an `openai-responses` SSE body through `ResponsesFolder`, in pieces
//! (first byte: their size); the stream must end in exactly one terminal event.

use rho_fuzz::providers::{fold, model};
use rho_openai::ResponsesFolder;

/// Folds `data` as a Responses API response body.
pub fn run(data: &[u8]) {
    fold(ResponsesFolder::new(&model("openai-responses")), data);
}

rho_fuzz::main!(run);
