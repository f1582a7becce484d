//! A stdio server's process: spawned in a process group of its own (so a wrapper such as `npx`
//! and everything it starts can be stopped together), its stderr kept as a bounded tail for
//! error messages, and stopped as Pi stops it: stdin closed, then SIGTERM to the group after
//! 500 ms, then SIGKILL after 2 s more.

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::process::{ChildStdin, ChildStdout, Command};
use tokio::sync::watch;

/// The most stderr kept.
const STDERR_KEEP: usize = 64 * 1024;

/// The most of it quoted in a message (in characters, as Pi cuts UTF-16 units).
const STDERR_TAIL_CHARS: usize = 2000;

/// After stdin closes, how long before SIGTERM, and after that before SIGKILL.
const GRACE: Duration = Duration::from_millis(500);
const TERM_GRACE: Duration = Duration::from_millis(2000);

/// A running server process.
pub struct ServerProcess {
    pid: i32,
    /// `Some(description of how it ended)` once it has.
    exited: watch::Receiver<Option<String>>,
    stderr: Arc<Mutex<Vec<u8>>>,
}

/// What spawning gives: the process and its stdio for the MCP transport.
pub struct Spawned {
    pub process: ServerProcess,
    pub stdout: ChildStdout,
    pub stdin: ChildStdin,
}

impl ServerProcess {
    /// Spawns `command` (its stdio piped, its own process group) and starts watching it.
    pub fn spawn(mut command: Command) -> std::io::Result<Spawned> {
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(false);
        let mut child = command.spawn()?;
        let pid = child
            .id()
            .and_then(|id| i32::try_from(id).ok())
            .ok_or_else(|| std::io::Error::other("the server process has no pid"))?;
        let (stdin, stdout) = match (child.stdin.take(), child.stdout.take()) {
            (Some(stdin), Some(stdout)) => (stdin, stdout),
            _ => return Err(std::io::Error::other("the server process has no stdio")),
        };
        let stderr = Arc::new(Mutex::new(Vec::new()));
        if let Some(mut pipe) = child.stderr.take() {
            let kept = stderr.clone();
            tokio::spawn(async move {
                let mut chunk = [0u8; 8192];
                while let Ok(n) = pipe.read(&mut chunk).await {
                    if n == 0 {
                        break;
                    }
                    let mut kept = rho_stdx::sync::lock(&kept);
                    kept.extend_from_slice(&chunk[..n]);
                    let excess = kept.len().saturating_sub(STDERR_KEEP);
                    kept.drain(..excess);
                }
            });
        }
        let (tell, exited) = watch::channel(None);
        tokio::spawn(async move {
            let how = match child.wait().await {
                Ok(status) => status.to_string(),
                Err(error) => error.to_string(),
            };
            let _ = tell.send(Some(how));
        });
        Ok(Spawned {
            process: ServerProcess {
                pid,
                exited,
                stderr,
            },
            stdout,
            stdin,
        })
    }

    /// The last lines of its stderr (at most 2000 characters), trimmed; empty when none.
    pub fn stderr_tail(&self) -> String {
        let bytes = rho_stdx::sync::lock(&self.stderr).clone();
        let text = String::from_utf8_lossy(&bytes);
        let text = text.trim();
        let count = text.chars().count();
        text.chars()
            .skip(count.saturating_sub(STDERR_TAIL_CHARS))
            .collect::<String>()
            .trim()
            .to_owned()
    }

    /// Whether it has ended.
    pub fn has_exited(&self) -> bool {
        self.exited.borrow().is_some()
    }

    /// Resolves when it ends.
    pub async fn wait(&self) {
        let mut exited = self.exited.clone();
        let _ = exited.wait_for(Option::is_some).await;
    }

    /// Stops it (its stdin must already be closed): waits 500 ms, SIGTERM to its group, waits
    /// 2 s, SIGKILL to its group; and SIGKILL to the group once it has ended, for what it left
    /// behind (a wrapper's child that outlived it).
    pub async fn stop(&self) {
        if tokio::time::timeout(GRACE, self.wait()).await.is_err() {
            self.signal(libc::SIGTERM);
            if tokio::time::timeout(TERM_GRACE, self.wait()).await.is_err() {
                self.signal(libc::SIGKILL);
                self.wait().await;
            }
        }
        self.signal(libc::SIGKILL);
    }

    fn signal(&self, signal: libc::c_int) {
        // SAFETY: signals the process group the server leads; rho made it for this process.
        unsafe {
            libc::kill(-self.pid, signal);
        }
    }
}

impl Drop for ServerProcess {
    /// A process still running when its owner goes (rho exiting without a clean shutdown) is
    /// killed with its group.
    fn drop(&mut self) {
        if !self.has_exited() {
            self.signal(libc::SIGKILL);
        }
    }
}
