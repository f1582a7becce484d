//! The user's `!cmd` runs: their numbers, and the results held back until no prompt runs (Pi
//! keeps a tool call and its result together, so a `bashExecution` message is recorded only
//! between prompts).

use super::input::ShellRun;
use crate::user_shell::{ShellLine, ShellOutput};

/// Runs started and results not yet recorded.
#[derive(Clone, Debug, Default)]
pub(crate) struct UserShells {
    /// Runs started so far.
    runs: u64,
    /// Finished while a prompt ran: recorded once it settles, in the order they finished.
    held: Vec<(ShellLine, ShellOutput)>,
}

impl UserShells {
    /// The next run, for `line`.
    pub(crate) fn next_run(&mut self, line: ShellLine) -> ShellRun {
        self.runs += 1;
        ShellRun {
            id: self.runs,
            line,
        }
    }

    /// A run finished with `output`: held for recording.
    pub(crate) fn hold(&mut self, line: ShellLine, output: ShellOutput) {
        self.held.push((line, output));
    }

    /// Every held result, oldest first.
    pub(crate) fn take_held(&mut self) -> Vec<(ShellLine, ShellOutput)> {
        std::mem::take(&mut self.held)
    }
}
