//! The command handlers, one function per command, grouped by what they act on.

pub mod model;
pub mod run;
pub mod session;
pub mod state;
