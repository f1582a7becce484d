//! Command hooks through the rho binary, with real hook scripts (sh and Python): every event
//! and decision, the seed's batch rules, the stream's hook events, the session's entries, the
//! requests the model receives, and `rho verify`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

pub mod harness;
mod modes;
mod prompt_and_stop;
mod tool_calls;
