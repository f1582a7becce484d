//! rho-host: what runs around the agent: the session layer that turns agent events into the
//! session's event stream, and the coding tools.

pub mod providers;
pub mod session;
pub mod tools;
pub mod toolset;

pub use session::{
    AgentSession, SessionError, SessionEvent, SessionNotice, Settled, SettledReason,
};
