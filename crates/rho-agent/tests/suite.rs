//! The crate's integration tests, one module per concern, linked into one test binary
//! (one link instead of one per file: less time and disk for `cargo test`).

mod common;

mod aborts_and_limits;
mod agent_api;
mod batch_properties;
mod context_hooks;
mod event_json;
mod loop_order;
mod preflight;
mod queues;
mod shims_and_terminate;
