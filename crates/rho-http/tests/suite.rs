//! The crate's integration tests, one module per concern, linked into one test binary
//! (one link instead of one per file: less time and disk for `cargo test`).

mod support;

mod driver_faults;
mod sse_fixtures;
