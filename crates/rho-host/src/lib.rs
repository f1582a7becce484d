//! rho-host: what runs around the agent: the session layer that turns agent events into the
//! session's event stream, and the coding tools.

pub mod budget;
mod compact;
pub mod compaction;
pub mod gate;
pub mod hooks;
pub mod mcp;
pub mod prompt;
pub mod providers;
pub mod record;
pub mod retry;
pub mod session;
pub mod settings;
pub mod tool_selection;
pub mod tool_set;
pub mod tools;
pub mod toolset;
pub mod trust;
pub mod ui;

pub use budget::{Budget, Tally};
pub use record::SessionRecord;
pub use retry::{RETRY_CANCELLED, RetryPolicy};
pub use session::{
    AgentSession, SessionBuilder, SessionError, SessionEvent, SessionNotice, Settled, SettledReason,
};
