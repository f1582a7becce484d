//! The crate's integration tests, one module per concern, linked into one test binary.
mod branching;
mod compaction_checkpoint;
mod context_edit;
mod dirs;
mod lazy_decode;
mod pi_compat;
mod repair;
mod round_trip;
