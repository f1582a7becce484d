//! What work done beside the state hands back to the event loop.

use rho_host::AgentSession;

use crate::app::Input;

/// Work finished beside the state: the input to feed, and the session to talk to from now on
/// when a switch replaced it.
pub(crate) struct Finished {
    /// What happened.
    pub(crate) input: Input,
    /// The new session (`None`: the same one).
    pub(crate) session: Option<AgentSession>,
}

impl Finished {
    /// Work that leaves the session as it is.
    pub(super) fn input(input: Input) -> Self {
        Finished {
            input,
            session: None,
        }
    }
}
