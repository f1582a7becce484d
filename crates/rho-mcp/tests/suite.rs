//! The crate's integration tests, one module per concern, linked into one test binary.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod config;
mod edit;
mod server;
