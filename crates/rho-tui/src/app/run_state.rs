//! Where the session's work stands, as the UI sees it: a prompt running (and since when), the
//! prompts of the command line still to send, a session switch in flight, and the timing of the
//! double presses (Ctrl+C twice exits, Escape twice also drops the queues).

use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// Two presses of Ctrl+C (or Escape) closer than this count as a double press (Pi: 500 ms).
pub const DOUBLE_PRESS: Duration = Duration::from_millis(500);

/// The run's state.
#[derive(Clone, Debug, Default)]
pub(crate) struct RunState {
    /// When the running prompt was sent; `None` while idle. One field, so "working" and "since
    /// when" cannot disagree.
    working_since: Option<Instant>,
    /// Prompts from the command line, sent one after another.
    pending_prompts: VecDeque<String>,
    /// A session switch is running: messages wait in the editor until it is done, so none
    /// reaches the session being replaced, and no second switch races it.
    switching: bool,
    /// When Ctrl+C last cleared the editor.
    last_ctrl_c: Option<Instant>,
    /// When Escape was last pressed while working.
    last_escape: Option<Instant>,
}

impl RunState {
    /// `prompts` are to be sent one after another, each once nothing runs.
    pub(crate) fn queue_prompts(&mut self, prompts: Vec<String>) {
        self.pending_prompts.extend(prompts);
    }

    /// Whether a prompt is running.
    pub(crate) fn working(&self) -> bool {
        self.working_since.is_some()
    }

    /// When the running prompt was sent.
    pub(crate) fn working_since(&self) -> Option<Instant> {
        self.working_since
    }

    /// A prompt was sent at `now` (its events follow).
    pub(crate) fn start(&mut self, now: Instant) {
        self.working_since = Some(now);
    }

    /// The prompt settled, was refused, or the session was replaced.
    pub(crate) fn stop(&mut self) {
        self.working_since = None;
    }

    /// The next prompt of the command line, when idle.
    pub(crate) fn next_prompt(&mut self) -> Option<String> {
        if self.working() {
            return None;
        }
        self.pending_prompts.pop_front()
    }

    /// Whether a session switch is in flight.
    pub(crate) fn switching(&self) -> bool {
        self.switching
    }

    /// A switch was asked for.
    pub(crate) fn switch_started(&mut self) {
        self.switching = true;
    }

    /// The switch ended, either way.
    pub(crate) fn switch_ended(&mut self) {
        self.switching = false;
    }

    /// Ctrl+C at `now`: whether it is the second of a double press (else it counts as a first).
    pub(crate) fn ctrl_c(&mut self, now: Instant) -> bool {
        if Self::within(self.last_ctrl_c, now) {
            return true;
        }
        self.last_ctrl_c = Some(now);
        false
    }

    /// Any other key: the next Ctrl+C is a first press again.
    pub(crate) fn forget_ctrl_c(&mut self) {
        self.last_ctrl_c = None;
    }

    /// Escape while working at `now`: whether it is the second of a double press.
    pub(crate) fn escape(&mut self, now: Instant) -> bool {
        let double = Self::within(self.last_escape, now);
        self.last_escape = Some(now);
        double
    }

    /// Any other key (or Escape while idle): the next Escape is a first press again.
    pub(crate) fn forget_escape(&mut self) {
        self.last_escape = None;
    }

    fn within(last: Option<Instant>, now: Instant) -> bool {
        last.is_some_and(|last| now.saturating_duration_since(last) < DOUBLE_PRESS)
    }
}
