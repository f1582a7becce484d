//! rho-openai: OpenAI's wire APIs. `completions` speaks Chat Completions (`openai-completions`),
//! the API most OpenAI-compatible servers implement.

pub mod completions;

pub use completions::{CompletionsCompat, CompletionsFolder, CompletionsProvider};
