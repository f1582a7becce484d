//! A running `rho --mode rpc` in a `cli_sessions` layout (a loopback model, `RHO_HOME`), read
//! line by line on a thread.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

use crate::cli_sessions::rho;

/// Longest wait for one line; only reached when something is broken.
const LINE_TIMEOUT: Duration = Duration::from_secs(20);

pub struct Rpc {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Rpc {
    /// `rho --mode rpc <args>` in `dir/project` with `RHO_HOME=dir/home`.
    pub fn start(dir: &Path, args: &[&str]) -> Rpc {
        let mut child = rho(dir)
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

    pub fn send(&mut self, command: Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{command}").unwrap();
        stdin.flush().unwrap();
    }

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

    /// Sends a prompt and waits until its run settles.
    pub fn prompt(&mut self, id: &str, message: &str) {
        let accepted = self.call(json!({"id": id, "type": "prompt", "message": message}));
        assert_eq!(
            accepted,
            ok(id, "prompt", Some(json!({"disposition": "started"})))
        );
        let (settled, _) = self.until(|line| line["type"] == "agent_settled");
        assert_eq!(settled["reason"], "completed", "{settled}");
    }

    /// `get_state`'s data.
    pub fn state(&mut self) -> Value {
        self.call(json!({"id": "state", "type": "get_state"}))["data"].clone()
    }

    /// Closes stdin and waits for rho to end (it releases its session file).
    pub fn finish(mut self) {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status}");
    }
}

impl Drop for Rpc {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn ok(id: &str, command: &str, data: Option<Value>) -> Value {
    let mut value = json!({"id": id, "type": "response", "command": command, "success": true});
    if let Some(data) = data {
        value["data"] = data;
    }
    value
}

pub fn failure(id: &str, command: &str, error: &str) -> Value {
    json!({"id": id, "type": "response", "command": command, "success": false, "error": error})
}
