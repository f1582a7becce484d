//! The crate's integration tests, one module per concern, linked into one test binary
//! (one link instead of one per file: less time and disk for `cargo test`).

mod common;

mod chunking;
mod fixtures;
mod golden;
mod provider;
mod request;
mod stream_faults;
