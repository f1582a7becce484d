//! `!cmd` and `!!cmd`: a shell command the user runs, outside the agent's tools. The runner is
//! injected by the binary (which owns the shell backend and the session file), so this crate
//! only knows the shape of a result and when it may enter the transcript.

use async_trait::async_trait;

/// What a user command produced (Pi's `BashResult`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ShellOutput {
    /// stdout and stderr merged (its tail when too long).
    pub output: String,
    /// The exit code; `None` when cancelled or killed by a signal.
    pub exit_code: Option<i32>,
    /// Whether it was stopped.
    pub cancelled: bool,
    /// Whether `output` is only the tail.
    pub truncated: bool,
    /// Where the full output was saved when truncated.
    pub full_output_path: Option<String>,
}

/// Runs user commands and records them in the session.
#[async_trait]
pub trait UserShell: Send + Sync {
    /// Runs `command` in the session's directory; `Err` says why it could not start.
    async fn run(&self, command: &str) -> Result<ShellOutput, String>;

    /// Records the result as a `bashExecution` message (kept out of the model's context when
    /// `exclude_from_context`, the `!!` form). Called only while no prompt runs, so the
    /// message never lands between a tool call and its result.
    fn record(&self, command: &str, output: &ShellOutput, exclude_from_context: bool);

    /// Stops the running command (its whole process group); nothing when none runs.
    fn cancel(&self);
}

/// Pi's warning for a `!cmd` typed while another still runs.
pub const SHELL_BUSY: &str = "A bash command is already running. Press Esc to cancel it first.";

/// A `!` line parsed: the command and whether it stays out of the context (`!!`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShellLine {
    /// The command without the bangs.
    pub command: String,
    /// `!!cmd`.
    pub exclude_from_context: bool,
}

/// `!cmd` / `!!cmd` as Pi reads the editor's text; `None` for anything else (and for a bare
/// `!`, which is sent as a prompt).
pub fn parse_shell_line(text: &str) -> Option<ShellLine> {
    let text = text.trim();
    let (rest, exclude) = if let Some(rest) = text.strip_prefix("!!") {
        (rest, true)
    } else {
        (text.strip_prefix('!')?, false)
    };
    let command = rest.trim();
    (!command.is_empty()).then(|| ShellLine {
        command: command.to_owned(),
        exclude_from_context: exclude,
    })
}

/// The text shown under the command: the output, then Pi's notes on how it ended.
pub fn shown_output(output: &ShellOutput) -> String {
    let mut text = output.output.trim_end().to_owned();
    let mut note = |line: String| {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&line);
    };
    if output.cancelled {
        note("(command cancelled)".to_owned());
    } else if let Some(code) = output.exit_code.filter(|c| *c != 0) {
        note(format!("Command exited with code {code}"));
    }
    if let (true, Some(path)) = (output.truncated, &output.full_output_path) {
        note(format!("[Output truncated. Full output: {path}]"));
    }
    text
}
