//! `rho acp` driven by the protocol's own Rust client (`agent-client-protocol`'s client side,
//! over a spawned `rho acp`) and by raw lines: prompts and what they stream, permissions,
//! cancel, content, sessions loaded and rebuilt in another mode, the project's trust asked of
//! the client, hostile input.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod client;
mod prompts;
mod sessions;
