//! One attack run: a project (optionally a git repository) beside an outside directory, rho's
//! home and a user home of its own, and `rho --mode json` driven by a faux script.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use rho_testkit::measured::{Measured, run};
use serde_json::{Value, json};

/// A run that outlives this has hung.
pub const TIME_BOUND: Duration = Duration::from_secs(60);

/// A safety bound on rho's memory in every attack run (not a target).
pub const RSS_BOUND_KIB: u64 = 256 * 1024;

/// Text that must never reach an event, a result or the session file.
pub const SECRET: &str = "SECRETKEY";

/// The directories of one attack.
pub struct Arena {
    _dir: tempfile::TempDir,
    pub base: PathBuf,
    pub project: PathBuf,
    pub outside: PathBuf,
    pub rho_home: PathBuf,
    pub user_home: PathBuf,
}

impl Arena {
    pub fn new() -> Arena {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let arena = Arena {
            project: base.join("project"),
            outside: base.join("outside"),
            rho_home: base.join("rho-home"),
            user_home: base.join("user-home"),
            base,
            _dir: dir,
        };
        for dir in [
            &arena.project,
            &arena.outside,
            &arena.rho_home,
            &arena.user_home,
        ] {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::write(arena.outside.join("outside.txt"), "outside\n").unwrap();
        arena
    }

    /// Makes the project a git repository with one commit.
    pub fn git_init(&self) {
        for args in [
            &["init", "-q"][..],
            &["config", "user.email", "t@example.com"],
            &["config", "user.name", "t"],
        ] {
            git(&self.project, args);
        }
        std::fs::write(self.project.join("README"), "hi\n").unwrap();
        git(&self.project, &["add", "README"]);
        git(&self.project, &["commit", "-q", "-m", "first"]);
    }

    /// Runs `rho --mode json` in the project with `turns` (each a list of tool calls), then a
    /// final text turn; `env` is added to a cleared environment.
    pub fn attack(&self, flags: &[&str], env: &[(&str, &str)], turns: Vec<Vec<Value>>) -> Run {
        let mut turns: Vec<Value> = turns.into_iter().map(Value::from).collect();
        turns.push(json!([{"type": "text", "text": "done"}]));
        let script = self.base.join("script.json");
        std::fs::write(&script, json!({ "turns": turns }).to_string()).unwrap();
        let mut command = Command::new(rho_bin());
        command
            .current_dir(&self.project)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.user_home)
            .env("RHO_HOME", &self.rho_home)
            .envs(env.iter().copied())
            .args(["--tools", "read,bash,edit,write,grep,find,ls"])
            .args(["--mode", "json", "--session-dir"])
            .arg(self.base.join("sessions"))
            .args(flags)
            .arg("--faux-script")
            .arg(&script)
            .arg("go");
        let measured = run(command, TIME_BOUND).unwrap();
        Run::checked(measured, &self.base.join("sessions"))
    }
}

/// The rho binary: this build's, or `RHO_TEST_RHO` (CI's run as nobody copies it where an
/// unprivileged user can run it).
pub fn rho_bin() -> PathBuf {
    std::env::var_os("RHO_TEST_RHO").map_or_else(|| env!("CARGO_BIN_EXE_rho").into(), PathBuf::from)
}

/// `git <args>` in `dir`, which must succeed.
pub fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .current_dir(dir)
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .status()
        .unwrap();
    assert!(status.success(), "git {args:?}");
}

/// A bash call.
pub fn bash(command: &str) -> Value {
    json!({"type": "tool_call", "name": "bash", "arguments": {"command": command}})
}

/// A call of any tool.
pub fn call(tool: &str, arguments: Value) -> Value {
    json!({"type": "tool_call", "name": tool, "arguments": arguments})
}

/// A finished attack run, already checked against the bounds every attack shares.
pub struct Run {
    pub measured: Measured,
    pub events: Vec<Value>,
}

impl Run {
    fn checked(measured: Measured, sessions: &Path) -> Run {
        assert!(!measured.timed_out, "rho hung: {measured:?}");
        assert!(
            measured.peak_rss_kib < RSS_BOUND_KIB,
            "rho's peak RSS {} KiB is over the bound",
            measured.peak_rss_kib
        );
        assert_eq!(measured.code, Some(0), "{}", measured.stderr);
        let events: Vec<Value> = measured
            .stdout
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        let last = events.last().unwrap();
        assert_eq!(last["type"], "agent_settled", "{last}");
        assert_eq!(last["reason"], "completed", "{last}");
        assert!(
            !measured.stdout.contains(SECRET),
            "a secret reached the event stream"
        );
        for file in session_files(sessions) {
            let text = std::fs::read_to_string(&file).unwrap();
            assert!(
                !text.contains(SECRET),
                "a secret reached {}",
                file.display()
            );
        }
        Run { measured, events }
    }

    /// Every tool result: (text, isError), in order.
    pub fn results(&self) -> Vec<(String, bool)> {
        self.events
            .iter()
            .filter(|e| e["type"] == "message_end" && e["message"]["role"] == "toolResult")
            .map(|e| {
                let text = e["message"]["content"][0]["text"]
                    .as_str()
                    .unwrap_or_default();
                (text.to_owned(), e["message"]["isError"] == true)
            })
            .collect()
    }
}

/// Every session file under `dir`.
fn session_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files
}

/// Requires what the bash routes need: Landlock, and namespaces where the machine gives them
/// (as root always; otherwise where CI recorded unprivileged user namespaces).
pub fn sandbox_ready() -> bool {
    rho_testkit::prerequisite::require(
        "the bash attacks need Landlock",
        rho_gate::sandbox::landlock_abi().map(drop),
    )
    .is_some()
}
