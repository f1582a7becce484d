//! OpenAI Chat Completions (`openai-completions`), also spoken by most OpenAI-compatible servers
//! (pi-reference §5.3): request building, compat switches, and the stream folder.

pub mod compat;
pub mod convert;
mod errors;
pub mod provider;
pub mod request;
pub mod stream;
mod usage;
pub mod wire;

pub use compat::{CompletionsCompat, MaxTokensField, ThinkingFormat};
pub use convert::normalize_tool_call_id;
pub use errors::{classify_http_error, http_error_message, is_quota_code};
pub use provider::{CompletionsProvider, is_loopback_url};
pub use request::{
    CompletionsWriter, completions_request_body, completions_url, request_headers,
    to_completions_request,
};
pub use stream::CompletionsFolder;
