//! Target `anthropic`: an `anthropic-messages` SSE body through `AnthropicFolder`, in pieces
//! (first byte: their size); the stream must end in exactly one terminal event.

use rho_anthropic::AnthropicFolder;
use rho_fuzz::providers::{fold, model};

/// Folds `data` as an Anthropic response body.
pub fn run(data: &[u8]) {
    fold(AnthropicFolder::new(&model("anthropic-messages")), data);
}

rho_fuzz::main!(run);
