//! rho-openai: OpenAI's wire APIs. `completions` speaks Chat Completions (`openai-completions`),
//! the API most OpenAI-compatible servers implement; `responses` speaks the Responses API
//! (`openai-responses`).

pub mod body;
pub mod completions;
pub mod provider_error;
pub mod responses;

pub use completions::{CompletionsCompat, CompletionsFolder, CompletionsProvider};
pub use responses::{ResponsesFolder, ResponsesProvider};
