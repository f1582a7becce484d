//! `!command` values (an API key or header read from a password manager, say): run with
//! `sh -c` in a process group of their own, killed — the whole group — when they outlive
//! [`COMMAND_TIMEOUT`] or when rho is told to stop ([`kill_running_commands`]), so no command
//! rho started outlives it.
//!
//! These calls block for as long as the command runs: callers on an async runtime run them on a
//! blocking thread.

use std::io::Read;
use std::os::unix::process::CommandExt as _;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use rho_stdx::sync::lock;

/// How long a `!command` may run before it is killed and counts as failed (Pi: 10 s).
pub const COMMAND_TIMEOUT: Duration = Duration::from_secs(10);

/// The process groups of the commands running now.
static RUNNING: Mutex<Vec<i32>> = Mutex::new(Vec::new());

/// Kills every `!command` running now, with its whole process group (on SIGTERM, SIGINT,
/// SIGHUP and at exit).
pub fn kill_running_commands() {
    for pgid in lock(&RUNNING).drain(..) {
        kill_group(pgid);
    }
}

fn kill_group(pgid: i32) {
    // SAFETY: `kill` has no memory-safety preconditions; the negative pid addresses the process
    // group the command leads, which holds only processes it started.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
}

/// Registered while its command runs; kills the group if it is still registered when dropped
/// (a timeout), and unregisters it.
struct Running(i32);

impl Drop for Running {
    fn drop(&mut self) {
        let mut running = lock(&RUNNING);
        if let Some(index) = running.iter().position(|pgid| *pgid == self.0) {
            running.swap_remove(index);
        }
    }
}

/// Runs `sh -c command` with no input and stderr discarded; its trimmed stdout on success,
/// `None` when it fails, prints nothing, or runs past [`COMMAND_TIMEOUT`].
pub fn run_config_command(command: &str) -> Option<String> {
    run_with_timeout(command, COMMAND_TIMEOUT)
}

fn run_with_timeout(command: &str, timeout: Duration) -> Option<String> {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .ok()?;
    let pgid = i32::try_from(child.id()).ok()?;
    lock(&RUNNING).push(pgid);
    let running = Running(pgid);
    let mut stdout = child.stdout.take()?;
    // Read on a helper thread so the timeout can be enforced here; the reader ends when the
    // pipe closes (every process of the group exited, or was killed below).
    let (sender, receiver) = mpsc::channel();
    let reader = thread::Builder::new().spawn(move || {
        let mut output = Vec::new();
        let result = stdout.read_to_end(&mut output).map(|_| output);
        let _ = sender.send(result);
    });
    let output = match reader.ok().map(|_| receiver.recv_timeout(timeout)) {
        Some(Ok(Ok(output))) => Some(output),
        _ => None,
    };
    if output.is_none() {
        kill_group(pgid);
    }
    let status = child.wait().ok();
    drop(running);
    let output = output?;
    if !status?.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&output).trim().to_owned();
    (!text.is_empty()).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tests share the process-wide registry: one at a time.
    static SERIAL: Mutex<()> = Mutex::new(());

    #[test]
    fn a_command_prints_its_value() {
        let _serial = lock(&SERIAL);
        assert_eq!(run_config_command("echo ' sk-1 '"), Some("sk-1".to_owned()));
        assert_eq!(run_config_command("exit 3"), None);
        assert_eq!(run_config_command("true"), None);
    }

    /// Whether `pid` exists and is not a zombie.
    fn running(pid: i32) -> bool {
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            return false;
        };
        let state = stat.rsplit_once(')').map(|(_, rest)| rest.trim_start());
        !state.is_some_and(|rest| rest.starts_with('Z') || rest.starts_with('X'))
    }

    /// Whether `pid` stops running within 10 s. A SIGKILL takes effect when the process is next
    /// scheduled; killed, it is a zombie (state Z) until its new parent reaps it, which is not a
    /// running process.
    fn gone(pid: i32) -> bool {
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while running(pid) && std::time::Instant::now() < deadline {
            thread::yield_now();
        }
        !running(pid)
    }

    #[test]
    fn a_command_past_its_timeout_fails_and_its_whole_group_is_killed() {
        let _serial = lock(&SERIAL);
        let marker =
            std::env::temp_dir().join(format!("rho-key-timeout-{}.pid", std::process::id()));
        let script = format!("sleep 30 & echo $! > {}; wait", marker.display());
        let started = std::time::Instant::now();
        assert_eq!(run_with_timeout(&script, Duration::from_secs(1)), None);
        // It returned at the timeout, not when the sleep would have ended.
        assert!(started.elapsed() < Duration::from_secs(25));
        let pid: i32 = std::fs::read_to_string(&marker)
            .unwrap_or_default()
            .trim()
            .parse()
            .unwrap_or(0);
        let _ = std::fs::remove_file(&marker);
        assert!(pid > 0, "the command never started its background process");
        assert!(
            gone(pid),
            "the timed-out command's background process outlived it"
        );
        assert!(lock(&RUNNING).is_empty());
    }

    #[test]
    fn killing_the_running_commands_ends_the_whole_group() {
        let _serial = lock(&SERIAL);
        let dir = std::env::temp_dir().join(format!("rho-key-{}", std::process::id()));
        let marker = dir.with_extension("pid");
        let script = format!("sleep 30 & echo $! > {}; wait", marker.display());
        let waiter = thread::spawn(move || run_config_command(&script));
        // The grandchild's pid appears once the group runs.
        let pid = loop {
            if let Ok(text) = std::fs::read_to_string(&marker)
                && let Ok(pid) = text.trim().parse::<i32>()
            {
                break pid;
            }
            thread::yield_now();
        };
        // The group is registered right after the spawn returns, which may be after the marker.
        while lock(&RUNNING).is_empty() {
            thread::yield_now();
        }
        kill_running_commands();
        assert_eq!(waiter.join().ok().flatten(), None);
        let _ = std::fs::remove_file(&marker);
        assert!(
            gone(pid),
            "the command's background process outlived the kill"
        );
    }
}
