//! Target `google`: a `google-generative-ai` SSE body through `GoogleFolder`, in pieces (first
//! byte: their size); the stream must end in exactly one terminal event.

use rho_fuzz::providers::{fold, model};
use rho_google::GoogleFolder;

/// Folds `data` as a Gemini response body.
pub fn run(data: &[u8]) {
    fold(GoogleFolder::new(&model("google-generative-ai")), data);
}

rho_fuzz::main!(run);
