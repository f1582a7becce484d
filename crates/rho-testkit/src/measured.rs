//! A child process run to the end with bounds: its wall time, its peak resident memory (from
//! `wait4`'s `ru_maxrss`, the child's own), and a kill (of its whole process group) when it
//! outlives its time. For tests that assert a safety bound ("no hang", "under 256 MiB"), not
//! a speed.

use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How a measured run ended.
#[derive(Debug)]
pub struct Measured {
    /// The exit code, if it exited.
    pub code: Option<i32>,
    /// Everything it wrote on stdout.
    pub stdout: String,
    /// Everything it wrote on stderr.
    pub stderr: String,
    /// Its peak resident set, in KiB.
    pub peak_rss_kib: u64,
    /// Wall time from spawn to exit.
    pub elapsed: Duration,
    /// It outlived `limit` and was killed.
    pub timed_out: bool,
}

/// Runs `command` (stdin closed, in a process group of its own) until it exits or `limit`
/// passes, then kills its group.
pub fn run(mut command: Command, limit: Duration) -> std::io::Result<Measured> {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let started = Instant::now();
    let mut child = command.spawn()?;
    let pid = i32::try_from(child.id()).map_err(std::io::Error::other)?;
    let drain = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        let fired = done_rx.recv_timeout(limit).is_err();
        if fired {
            // SAFETY: signals the child's own process group.
            unsafe { libc::kill(-pid, libc::SIGKILL) };
        }
        fired
    });
    let mut status = 0;
    // SAFETY: `rusage` is plain data, filled by the kernel.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: waits for our own child with valid pointers.
        let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if waited == pid {
            break;
        }
        let error = std::io::Error::last_os_error();
        if error.raw_os_error() != Some(libc::EINTR) {
            return Err(error);
        }
    }
    let elapsed = started.elapsed();
    let _ = done_tx.send(());
    let timed_out = watchdog.join().unwrap_or(false);
    // Whatever the child left behind in its group goes too.
    // SAFETY: signals the child's own process group.
    unsafe { libc::kill(-pid, libc::SIGKILL) };
    Ok(Measured {
        code: libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status)),
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
        peak_rss_kib: u64::try_from(usage.ru_maxrss).unwrap_or(0),
        elapsed,
        timed_out,
    })
}
