//! The shell process of one `bash` call: which shell, spawning it in its own process group with
//! stdout and stderr on one pipe, and killing the whole group.

use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use rho_agent::ToolError;
use rho_gate::{Sandbox, ToolEnvironment};
use tokio::net::unix::pipe;
use tokio::process::{Child, Command};

use super::env::ShellEnv;

/// The shell that runs commands, invoked as `<program> -c <command>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Shell {
    /// The executable.
    pub program: PathBuf,
}

/// Pi's `getShellConfig` on Unix: the configured shell (which must exist), else `/bin/bash`,
/// else `bash` on `PATH`, else `sh`.
pub(super) fn resolve_shell(custom: Option<&Path>) -> Result<Shell, ToolError> {
    if let Some(custom) = custom {
        if custom.exists() {
            return Ok(Shell {
                program: custom.to_path_buf(),
            });
        }
        return Err(ToolError::new(format!(
            "Custom shell path not found: {}",
            custom.display()
        )));
    }
    let bin_bash = Path::new("/bin/bash");
    let program = if bin_bash.exists() {
        bin_bash.to_path_buf()
    } else {
        bash_on_path().unwrap_or_else(|| PathBuf::from("sh"))
    };
    Ok(Shell { program })
}

/// The first executable `bash` in the directories of `PATH`.
fn bash_on_path() -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join("bash"))
        .find(|candidate| {
            std::fs::metadata(candidate)
                .map(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
                .unwrap_or(false)
        })
}

/// A running shell: the child, the read end of its merged output, and its process group.
pub(super) struct Running {
    /// The shell process; waiting on it is cancel safe.
    pub child: Child,
    /// Where stdout and stderr arrive, in the order they were written.
    pub output: pipe::Receiver,
    /// The process group id (the shell's pid: it leads its own group).
    pgid: Option<i32>,
    /// Whether the group is left alone when this is dropped (the command finished normally).
    disarmed: bool,
}

impl Running {
    /// Kills every process of the group with SIGKILL (Pi's `killProcessTree`); if the group is
    /// already gone, kills the shell itself in case it has not been reaped.
    pub fn kill_group(&mut self) {
        let group_killed = self.pgid.is_some_and(|pgid| {
            // SAFETY: `kill` has no memory-safety preconditions; a negative pid addresses the
            // process group the shell leads, which only holds processes this call started.
            unsafe { libc::kill(-pgid, libc::SIGKILL) == 0 }
        });
        if !group_killed {
            // `start_kill` does nothing once the shell has been reaped, so no reused pid is hit.
            let _ = self.child.start_kill();
        }
    }

    /// Leaves background processes of a normally finished command running, as Pi does.
    pub fn disarm(&mut self) {
        self.disarmed = true;
    }
}

impl Drop for Running {
    /// A call dropped mid-way (its future cancelled) leaves no process behind.
    fn drop(&mut self) {
        if !self.disarmed {
            self.kill_group();
        }
    }
}

/// Starts `<shell> -c <command>` in `cwd`, stdin null, stdout and stderr on one pipe, as the
/// leader of a new process group; confined by `sandbox` when there is one, with rho's
/// environment filtered by `inherited` when given (else inherited whole, as Pi does).
pub(super) fn spawn(
    shell: &Shell,
    command: &str,
    cwd: &Path,
    sandbox: Option<&Sandbox>,
    env: &ShellEnv,
    inherited: Option<&ToolEnvironment>,
) -> Result<Running, ToolError> {
    let (sender, receiver) = pipe::pipe().map_err(|e| ToolError::new(e.to_string()))?;
    let writer: OwnedFd = sender
        .into_blocking_fd()
        .map_err(|e| ToolError::new(e.to_string()))?;
    let writer_for_stderr = writer
        .try_clone()
        .map_err(|e| ToolError::new(e.to_string()))?;
    let mut cmd = Command::new(&shell.program);
    cmd.arg("-c")
        .arg(command)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::from(writer))
        .stderr(Stdio::from(writer_for_stderr))
        .process_group(0)
        .kill_on_drop(true);
    if let Some(rule) = inherited {
        cmd.env_clear().envs(rule.apply(std::env::vars_os()));
    }
    env.apply(&mut cmd);
    if let Some(sandbox) = sandbox {
        if let Some(tmp) = sandbox.tmp_dir() {
            cmd.env("TMPDIR", tmp);
        }
        // SAFETY: the hook was prepared before the fork and only makes async-signal-safe
        // syscalls on captured integers (no allocation, no locks); `sandbox` outlives the spawn.
        unsafe {
            cmd.pre_exec(sandbox.child_hook(cwd));
        }
    }
    let spawned = cmd.spawn();
    // The command holds the parent's copies of the write end; they must close, or the read end
    // never sees end-of-file.
    drop(cmd);
    let child = spawned.map_err(|e| spawn_error(&e, &shell.program))?;
    let pgid = child.id().and_then(|pid| i32::try_from(pid).ok());
    Ok(Running {
        child,
        output: receiver,
        pgid,
        disarmed: false,
    })
}

/// Node's spawn error text, e.g. `spawn /bad/shell ENOENT`.
fn spawn_error(error: &std::io::Error, program: &Path) -> ToolError {
    let code = match error.raw_os_error() {
        Some(libc::ENOENT) => "ENOENT".to_owned(),
        Some(libc::EACCES) => "EACCES".to_owned(),
        Some(libc::ENOTDIR) => "ENOTDIR".to_owned(),
        Some(libc::ENOEXEC) => "ENOEXEC".to_owned(),
        Some(libc::E2BIG) => "E2BIG".to_owned(),
        Some(libc::EMFILE) => "EMFILE".to_owned(),
        Some(libc::EAGAIN) => "EAGAIN".to_owned(),
        _ => error.to_string(),
    };
    ToolError::new(format!("spawn {} {code}", program.display()))
}
