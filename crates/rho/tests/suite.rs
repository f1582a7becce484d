//! The crate's integration tests, one module per concern, linked into one test binary
//! (one link instead of one per file: less time and disk for `cargo test`).

mod cli_budget;
mod cli_json;
mod cli_providers;
mod cli_retry;
mod cli_signals;
mod verify;
