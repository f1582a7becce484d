//! The crate's integration tests, one module per concern, linked into one test binary
//! (one link instead of one per file: less time and disk for `cargo test`).

mod common;

mod agent_run;
mod chunking;
mod fixture_events;
mod fixtures;
mod golden;
mod provider;
mod provider_blocks;
mod request;
mod request_thinking;
mod stream_faults;
