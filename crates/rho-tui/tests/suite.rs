//! The crate's integration tests, one module per concern, linked into one test binary.

mod events;
mod keys;
mod reducer;
mod widgets;
