//! Drives a running shell to its end: reads the merged output, throttles progress updates, and
//! enforces the timeout and the cancellation token by killing the process group.

use std::process::ExitStatus;
use std::time::Duration;

use rho_agent::ToolError;
use serde_json::{Value, json};
use tokio::io::AsyncReadExt;
use tokio::time::{Instant, sleep_until};
use tokio_util::sync::CancellationToken;

use super::output::OutputAccumulator;
use super::process::Running;

/// At most one progress update per this interval (Pi's `BASH_UPDATE_THROTTLE_MS`).
const UPDATE_INTERVAL: Duration = Duration::from_millis(100);

/// How long the pipe may stay quiet after the shell exited (Pi's `EXIT_STDIO_GRACE_MS`): a quiet
/// background process that inherited the pipe must not hold the call open.
const EXIT_GRACE: Duration = Duration::from_millis(100);

/// The same grace after the group was killed. Every holder of the pipe got SIGKILL, so the end of
/// the output comes as soon as they are gone; waiting for it means no process of the group is
/// still running when the call returns. The bound only matters for a process that left the group.
const KILLED_GRACE: Duration = Duration::from_secs(2);

/// Size of one read from the pipe.
const READ_CHUNK: usize = 64 * 1024;

/// How the command ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Ending {
    /// The shell exited with this code (`128 + signo` when a signal killed it, as Pi's
    /// `createLocalShellOperations` resolves it).
    Exited(i32),
    /// The timeout fired and the group was killed; `shell_exit` is set when the shell itself had
    /// exited before the deadline (background processes kept the output open).
    TimedOut {
        /// The shell's exit code and how long after the start it exited.
        shell_exit: Option<(i32, Duration)>,
    },
    /// The cancellation token fired and the group was killed.
    Aborted,
}

/// Sends throttled `{content, details}` progress updates (Pi's `scheduleOutputUpdate`).
pub(super) struct Throttle<'a> {
    on_update: &'a (dyn Fn(Value) + Send + Sync),
    last_sent: Option<Instant>,
    dirty: bool,
    /// When a postponed update is due.
    due: Option<Instant>,
}

impl<'a> Throttle<'a> {
    /// A throttle sending through `on_update`.
    pub fn new(on_update: &'a (dyn Fn(Value) + Send + Sync)) -> Self {
        Throttle {
            on_update,
            last_sent: None,
            dirty: false,
            due: None,
        }
    }

    /// New output arrived: sends now if the interval has passed, else schedules a send.
    async fn schedule(&mut self, output: &mut OutputAccumulator) -> Result<(), ToolError> {
        self.dirty = true;
        let now = Instant::now();
        match self.last_sent.map(|last| last + UPDATE_INTERVAL) {
            Some(next) if next > now => {
                self.due.get_or_insert(next);
                Ok(())
            }
            _ => self.flush(output).await,
        }
    }

    /// Sends the pending update, if any.
    pub async fn flush(&mut self, output: &mut OutputAccumulator) -> Result<(), ToolError> {
        self.due = None;
        if !self.dirty {
            return Ok(());
        }
        self.dirty = false;
        self.last_sent = Some(Instant::now());
        let snapshot = output.snapshot(true).await.map_err(save_error)?;
        let mut details = serde_json::Map::new();
        if snapshot.truncation.truncated {
            let truncation = serde_json::to_value(&snapshot.truncation)
                .map_err(|e| ToolError::new(e.to_string()))?;
            details.insert("truncation".into(), truncation);
        }
        if let Some(path) = &snapshot.full_output_path {
            details.insert("fullOutputPath".into(), json!(path.to_string_lossy()));
        }
        (self.on_update)(json!({
            "content": [{"type": "text", "text": snapshot.content}],
            "details": details,
        }));
        Ok(())
    }
}

/// The error of a temp file that could not be written.
pub(super) fn save_error(error: std::io::Error) -> ToolError {
    ToolError::new(format!("Failed to save full output: {error}"))
}

/// Runs `running` to its end, feeding `output` and `throttle`.
pub(super) async fn drive(
    running: &mut Running,
    output: &mut OutputAccumulator,
    throttle: &mut Throttle<'_>,
    timeout: Option<Duration>,
    cancel: &CancellationToken,
) -> Result<Ending, ToolError> {
    // An unrepresentable deadline (absurdly long timeout) means none, never a panic.
    let deadline = timeout.and_then(|t| Instant::now().checked_add(t));
    let mut aborted = false;
    let mut timed_out = false;
    let mut status: Option<ExitStatus> = None;
    let started = Instant::now();
    let mut shell_exited_after: Option<Duration> = None;
    let mut exited_before_deadline: Option<Duration> = None;
    let mut eof = false;
    let mut grace_until: Option<Instant> = None;
    let mut buf = vec![0u8; READ_CHUNK];

    while !(eof && status.is_some()) {
        let killed = aborted || timed_out;
        tokio::select! {
            biased;
            () = cancel.cancelled(), if !aborted => {
                running.kill_group();
                aborted = true;
                if status.is_some() {
                    grace_until = Some(Instant::now() + KILLED_GRACE);
                }
            }
            () = sleep_until(deadline.unwrap_or_else(Instant::now)), if deadline.is_some() && !killed => {
                running.kill_group();
                timed_out = true;
                exited_before_deadline = shell_exited_after;
                if status.is_some() {
                    grace_until = Some(Instant::now() + KILLED_GRACE);
                }
            }
            () = sleep_until(grace_until.unwrap_or_else(Instant::now)), if grace_until.is_some() => break,
            exited = running.child.wait(), if status.is_none() => {
                status = Some(exited.map_err(|e| ToolError::new(e.to_string()))?);
                shell_exited_after = Some(started.elapsed());
                let grace = if killed { KILLED_GRACE } else { EXIT_GRACE };
                grace_until = Some(Instant::now() + grace);
            }
            read = running.output.read(&mut buf), if !eof => match read {
                Ok(0) | Err(_) => eof = true,
                Ok(n) => {
                    // Output still arriving after the exit re-arms the grace (Pi 1.6's
                    // `waitForChildProcess`): an actively writing descendant keeps the call.
                    if status.is_some() && !killed {
                        grace_until = Some(Instant::now() + EXIT_GRACE);
                    }
                    output.append(&buf[..n]).await.map_err(save_error)?;
                    throttle.schedule(output).await?;
                }
            },
            () = sleep_until(throttle.due.unwrap_or_else(Instant::now)), if throttle.due.is_some() => {
                throttle.flush(output).await?;
            }
        }
    }

    if aborted {
        return Ok(Ending::Aborted);
    }
    let code = status.map_or(1, exit_code);
    if timed_out {
        return Ok(Ending::TimedOut {
            shell_exit: exited_before_deadline.map(|after| (code, after)),
        });
    }
    running.disarm();
    Ok(Ending::Exited(code))
}

/// The shell's exit code; `128 + signo` for a shell a signal killed.
fn exit_code(status: ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status
        .code()
        .or_else(|| status.signal().map(|signo| 128 + signo))
        .unwrap_or(1)
}
