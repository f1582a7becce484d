//! One command hook as a process: `sh -c <command>` in the session's directory, the leader of
//! its own process group, with the tools' environment (no keys), the event's JSON on stdin. Its
//! output is read up to a limit; at its timeout, or when the run is aborted, the whole group is
//! killed; when it exits, what it left running in its group is killed too.

use std::ffi::OsString;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;
use tokio_util::sync::CancellationToken;

/// The most of stdout or stderr kept (the rest is read and dropped).
const OUTPUT_LIMIT: usize = 1 << 20;

/// How a hook's process ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exit {
    /// With this exit code.
    Code(i32),
    /// Killed by a signal it did not get from rho.
    Signal(i32),
    /// Past its timeout: rho killed it.
    TimedOut,
    /// The run was aborted: rho killed it.
    Cancelled,
    /// It could not be started.
    NotStarted(String),
}

/// What a hook's process did.
#[derive(Clone, Debug)]
pub struct Ran {
    /// How it ended.
    pub exit: Exit,
    /// Its standard output (lossy UTF-8, at most [`OUTPUT_LIMIT`] bytes).
    pub stdout: String,
    /// Its standard error, likewise.
    pub stderr: String,
    /// Its wall time.
    pub duration: Duration,
}

/// Runs `command` with `input` on stdin.
pub async fn run(
    command: &str,
    input: &[u8],
    cwd: &Path,
    env: &[(OsString, OsString)],
    timeout: Duration,
    cancel: &CancellationToken,
) -> Ran {
    let started = Instant::now();
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(command)
        .current_dir(cwd)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = match cmd.spawn() {
        Ok(child) => child,
        Err(error) => {
            return Ran {
                exit: Exit::NotStarted(error.to_string()),
                stdout: String::new(),
                stderr: String::new(),
                duration: started.elapsed(),
            };
        }
    };
    let group = child.id().and_then(|pid| i32::try_from(pid).ok());
    let stdin = child.stdin.take();
    let stdout = child.stdout.take();
    let stderr = child.stderr.take();
    let input = input.to_vec();
    let feed = async move {
        if let Some(mut stdin) = stdin {
            // A hook that does not read its input closes the pipe: that is not an error.
            let _ = stdin.write_all(&input).await;
            let _ = stdin.shutdown().await;
        }
    };
    let work = async {
        let ((), out, err, status) =
            tokio::join!(feed, read_capped(stdout), read_capped(stderr), async {
                let status = child.wait().await;
                // What the hook left behind in its group would hold the pipes open.
                kill_group(group);
                status
            });
        (out, err, status)
    };
    let outcome = tokio::select! {
        done = tokio::time::timeout(timeout, work) => done.ok(),
        () = cancel.cancelled() => None,
    };
    let Some((stdout, stderr, status)) = outcome else {
        kill_group(group);
        return Ran {
            exit: if cancel.is_cancelled() {
                Exit::Cancelled
            } else {
                Exit::TimedOut
            },
            stdout: String::new(),
            stderr: String::new(),
            duration: started.elapsed(),
        };
    };
    let exit = match status {
        Ok(status) => match (
            status.code(),
            std::os::unix::process::ExitStatusExt::signal(&status),
        ) {
            (Some(code), _) => Exit::Code(code),
            (None, Some(signal)) => Exit::Signal(signal),
            (None, None) => Exit::Code(-1),
        },
        Err(error) => Exit::NotStarted(error.to_string()),
    };
    Ran {
        exit,
        stdout,
        stderr,
        duration: started.elapsed(),
    }
}

/// Reads `stream` to its end, keeping the first [`OUTPUT_LIMIT`] bytes.
async fn read_capped(stream: Option<impl AsyncRead + Unpin>) -> String {
    let Some(mut stream) = stream else {
        return String::new();
    };
    let mut kept = Vec::new();
    let mut buffer = [0u8; 8192];
    loop {
        match stream.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let room = OUTPUT_LIMIT.saturating_sub(kept.len());
                kept.extend_from_slice(&buffer[..n.min(room)]);
            }
        }
    }
    String::from_utf8_lossy(&kept).into_owned()
}

/// SIGKILL to the process group `group` leads.
fn kill_group(group: Option<i32>) {
    if let Some(group) = group.filter(|g| *g > 0) {
        // SAFETY: killpg only sends a signal; a group that is gone gives ESRCH, ignored.
        unsafe {
            libc::killpg(group, libc::SIGKILL);
        }
    }
}
