//! rho-google: the `google-generative-ai` provider (pi-reference §5.4), Gemini's
//! `streamGenerateContent?alt=sse` endpoint.
//!
//! [`request`] builds the HTTP call (endpoint, `x-goog-api-key` header, JSON body) from a rho
//! context, with [`convert`] shaping the messages and tools into the typed, borrowed body of
//! [`wire`] and [`thinking`] the reasoning settings; [`stream`] folds Gemini's SSE chunks into rho's assistant-message events;
//! [`classify`] names Gemini's error statuses and finish reasons in rho's terms; [`provider`] ties
//! them to the shared HTTP driver. No retries happen here: a failed call is one `error` event.

pub mod classify;
pub mod convert;
pub mod provider;
pub mod request;
pub mod stream;
pub mod thinking;
pub mod wire;

pub use convert::normalize_tool_call_id;
pub use provider::GoogleProvider;
pub use request::{google_headers, google_request_body, stream_url, to_google_request};
pub use stream::{GoogleFolder, generate_tool_call_id};
