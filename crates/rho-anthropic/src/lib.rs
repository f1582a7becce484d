//! rho-anthropic: the `anthropic-messages` provider (pi-reference §5.1).
//!
//! [`request`] builds the HTTP call (endpoint, headers, JSON body) from a rho context, with
//! [`convert`] shaping the messages and tools into the typed, borrowed body of [`wire`] and
//! [`thinking`] the reasoning settings;
//! [`stream`] folds Anthropic's SSE events into rho's assistant-message events; [`classify`]
//! names Anthropic's error types and stop reasons in rho's terms; [`provider`] ties them to the
//! shared HTTP driver. No retries happen here: a failed call is one `error` event.

pub mod classify;
pub mod convert;
pub mod provider;
pub mod request;
pub mod stream;
pub mod thinking;
pub mod wire;

pub use convert::{CacheRetention, normalize_tool_call_id};
pub use provider::AnthropicProvider;
pub use request::{anthropic_headers, anthropic_request_body, messages_url, to_anthropic_request};
pub use stream::AnthropicFolder;
