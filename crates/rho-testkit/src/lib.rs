//! rho-testkit: test doubles shared by rho's crates. Used only as a dev-dependency.
//!
//! [`MockServer`] is a small HTTP/1.1 server on `127.0.0.1:<ephemeral port>` that answers requests
//! with a script of [`MockResponse`]s, in order, and records every request it received. A
//! response body is a list of [`Chunk`]s — bytes, pauses and an abrupt close — so a test can
//! stage the faults a real provider produces: a stream cut mid-way, a stall, garbage.
//!
//! ```ignore
//! let server = MockServer::start(vec![
//!     MockResponse::json_error(529, r#"{"type":"error"}"#),
//!     MockResponse::sse(&[r#"{"delta":"Hi"}"#, "[DONE]"]),
//! ])
//! .await;
//! let url = format!("{}/v1/messages", server.base_url());
//! // … run the code under test against `url` …
//! assert_eq!(server.requests().len(), 2);
//! ```
//!
//! The server speaks just enough HTTP for a client under test: it reads the request line, the
//! headers and a `content-length` body (no chunked request bodies), answers with a chunked body
//! and `connection: close`, and never keeps a connection alive. Dropping the server stops it and
//! every connection it is serving.
//!
//! [`fold::fold_sse`] feeds an SSE body, in any chunking, through a provider's `SseFolder` without
//! HTTP and collects the events, the way the HTTP driver ends a stream. [`golden`] holds the
//! representative transcripts every provider's request body is pinned on, byte for byte. With
//! the `agent` feature, `tools` holds agent tools with fixed answers for runs of the real agent
//! loop.

pub mod features;
pub mod fold;
pub mod golden;
pub mod measured;
pub mod prerequisite;
mod response;
mod server;
#[cfg(feature = "agent")]
pub mod tools;

pub use response::{Chunk, MockResponse};
pub use server::{MockServer, RecordedRequest};
