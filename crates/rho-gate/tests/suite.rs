//! The crate's integration tests, one module per concern, linked into one test binary.

mod command_rules;
mod path_gate;
mod sandbox;
