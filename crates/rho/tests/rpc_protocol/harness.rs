//! The harness of the RPC tests: a running `rho --mode rpc` and the expected response shapes.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use serde_json::{Value, json};

/// Longest wait for one line; only reached when something is broken.
const LINE_TIMEOUT: Duration = Duration::from_secs(20);

/// A running `rho --mode rpc` with its stdout read line by line on a thread.
pub struct Rpc {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Rpc {
    pub fn start(cwd: &Path, script: &Path) -> Rpc {
        let script = script.to_string_lossy();
        Rpc::start_with(cwd, &cwd.join(".rho-home"), &["--faux-script", &script])
    }

    /// `rho --mode rpc <args>` in `cwd` with `RHO_HOME=home`.
    pub fn start_with(cwd: &Path, home: &Path, args: &[&str]) -> Rpc {
        Rpc::start_with_env(cwd, home, args, &[])
    }

    /// As [`Rpc::start_with`], with `env` added to rho's environment.
    pub fn start_with_env(cwd: &Path, home: &Path, args: &[&str], env: &[(&str, &str)]) -> Rpc {
        let mut child = Command::new(env!("CARGO_BIN_EXE_rho"))
            .current_dir(cwd)
            .env("RHO_HOME", home)
            .envs(env.iter().copied())
            .args(["--mode", "rpc"])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if sender.send(line).is_err() {
                    return;
                }
            }
        });
        Rpc {
            stdin: child.stdin.take(),
            child,
            lines,
        }
    }

    /// Sends `signal` (a `kill` name such as `TERM`) to rho.
    pub fn signal(&self, signal: &str) {
        let status = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.child.id().to_string())
            .status()
            .unwrap();
        assert!(status.success());
    }

    pub fn send_raw(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    pub fn send(&mut self, command: Value) {
        self.send_raw(&command.to_string());
    }

    /// The next line, parsed.
    pub fn next(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(LINE_TIMEOUT)
            .expect("rho wrote no line in time");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON: {line}: {e}"))
    }

    /// Reads lines until one matches; returns it and the lines before it.
    pub fn until(&mut self, matches: impl Fn(&Value) -> bool) -> (Value, Vec<Value>) {
        let mut before = Vec::new();
        loop {
            let line = self.next();
            if matches(&line) {
                return (line, before);
            }
            before.push(line);
        }
    }

    /// Sends a command and returns its response (events before it are skipped).
    pub fn call(&mut self, command: Value) -> Value {
        let id = command["id"].clone();
        self.send(command);
        self.until(|line| line["type"] == "response" && line["id"] == id)
            .0
    }

    /// Closes stdin and waits for the exit status.
    pub fn close_stdin_and_wait(&mut self, timeout: Duration) -> ExitStatus {
        drop(self.stdin.take());
        self.wait_for_exit(timeout)
    }

    /// Waits for the exit status (stdin stays open).
    pub fn wait_for_exit(&mut self, timeout: Duration) -> ExitStatus {
        // The waiting thread takes the child; a finished stand-in keeps `Drop` simple.
        let mut child_wait =
            std::mem::replace(&mut self.child, Command::new("true").spawn().unwrap());
        let (sender, exited) = channel();
        std::thread::spawn(move || {
            let _ = sender.send(child_wait.wait().unwrap());
        });
        match exited.recv_timeout(timeout) {
            Ok(status) => status,
            Err(RecvTimeoutError::Timeout) => panic!("rho did not exit in time"),
            Err(RecvTimeoutError::Disconnected) => panic!("the waiting thread died"),
        }
    }
}

impl Drop for Rpc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A workspace with a faux script whose first turn runs `command` with bash, then answers.
pub fn workspace(command: &str, answer: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.json");
    let turns = json!({"turns": [
        [{"type": "text", "text": "Running."}, {"type": "tool_call", "name": "bash", "arguments": {"command": command}}],
        [{"type": "text", "text": answer}]
    ]});
    std::fs::write(&script, turns.to_string()).unwrap();
    (dir, script)
}

pub fn response(id: &str, command: &str, data: Option<Value>) -> Value {
    let mut value = json!({"id": id, "type": "response", "command": command, "success": true});
    if let Some(data) = data {
        value["data"] = data;
    }
    value
}

pub fn failure(id: &str, command: &str, error: &str) -> Value {
    json!({"id": id, "type": "response", "command": command, "success": false, "error": error})
}

pub fn faux_model() -> Value {
    json!({
        "id": "faux-1", "name": "Faux Model", "api": "faux", "provider": "faux",
        "baseUrl": "http://localhost:0", "reasoning": false, "input": ["text", "image"],
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 128000, "maxTokens": 16384
    })
}
