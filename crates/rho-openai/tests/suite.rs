//! The crate's integration tests, one module per concern, linked into one test binary
//! (one link instead of one per file: less time and disk for `cargo test`).

mod common;
mod responses_common;

mod completions_agent_run;
mod completions_fixtures;
mod completions_golden;
mod completions_request;
mod completions_splits;
mod completions_stream;
mod completions_writer;
mod responses_agent_run;
mod responses_fixtures;
mod responses_golden;
mod responses_request;
mod responses_splits;
mod responses_stream;
