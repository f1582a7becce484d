//! One hooked run: a project, rho's home with the hooks in its `settings.json`, hook scripts,
//! and `rho --mode json` driven by a faux script; the events and the session file read back.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

use crate::mcp_runs::harness::McpArena;

/// Every built-in tool (the default set has no `ls`, `find` or `grep`).
pub const ALL_TOOLS: &str = "read,bash,edit,write,grep,find,ls";

/// The directories of one run (the MCP runs' arena: a project and rho's home in a temporary
/// directory).
pub struct HookArena(McpArena);

impl std::ops::Deref for HookArena {
    type Target = McpArena;

    fn deref(&self) -> &McpArena {
        &self.0
    }
}

impl HookArena {
    pub fn new() -> HookArena {
        HookArena(McpArena::new())
    }

    /// Writes `RHO_HOME/settings.json` with `hooks`.
    pub fn hooks(&self, hooks: Value) {
        let text = json!({ "hooks": hooks }).to_string();
        std::fs::write(self.rho_home.join("settings.json"), text).unwrap();
    }

    /// An executable script `name` with `body`; its path.
    pub fn script(&self, name: &str, body: &str) -> String {
        let path = self.base.join(name);
        std::fs::write(&path, body).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path.display().to_string()
    }

    /// A file under the base directory (what a hook wrote).
    pub fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.base.join(name)).unwrap_or_default()
    }

    /// `rho` in the project with a cleared environment.
    pub fn rho(&self) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_rho"));
        command
            .current_dir(&self.project)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.base)
            .env("RHO_HOME", &self.rho_home)
            .stdin(Stdio::null());
        command
    }

    fn write_script(&self, turns: Vec<Vec<Value>>) -> PathBuf {
        let mut turns: Vec<Value> = turns.into_iter().map(Value::from).collect();
        turns.push(json!([{"type": "text", "text": "done"}]));
        let script = self.base.join("script.json");
        let fallback = json!([{"type": "text", "text": "again"}]);
        std::fs::write(
            &script,
            json!({ "turns": turns, "fallback": fallback }).to_string(),
        )
        .unwrap();
        script
    }

    /// `rho --mode json <flags> --faux-script … <prompt>` with `turns` then a final `done`.
    pub fn run(&self, flags: &[&str], prompt: &str, turns: Vec<Vec<Value>>) -> HookRun {
        let script = self.write_script(turns);
        let output = self
            .rho()
            .args(["--mode", "json", "--tools", ALL_TOOLS, "--session-dir"])
            .arg(self.base.join("sessions"))
            .args(flags)
            .arg("--faux-script")
            .arg(&script)
            .arg(prompt)
            .output()
            .unwrap();
        HookRun::new(output, self.base.join("sessions"))
    }

    /// The same in `-p` text mode.
    pub fn print(&self, prompt: &str, turns: Vec<Vec<Value>>) -> Output {
        let script = self.write_script(turns);
        self.rho()
            .args(["-p", "--no-session", "--faux-script"])
            .arg(&script)
            .arg(prompt)
            .output()
            .unwrap()
    }
}

/// A finished run.
pub struct HookRun {
    pub code: Option<i32>,
    pub stderr: String,
    pub stdout: String,
    pub events: Vec<Value>,
    sessions: PathBuf,
}

impl HookRun {
    fn new(output: Output, sessions: PathBuf) -> HookRun {
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        HookRun {
            code: output.status.code(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
            events: stdout
                .lines()
                .filter_map(|line| serde_json::from_str(line).ok())
                .collect(),
            stdout,
            sessions,
        }
    }

    /// The event types, without `message_update`s and the session header.
    pub fn kinds(&self) -> Vec<String> {
        self.events
            .iter()
            .filter_map(|e| e["type"].as_str())
            .filter(|t| *t != "message_update" && *t != "session")
            .map(str::to_owned)
            .collect()
    }

    /// The events of `kind`.
    pub fn of(&self, kind: &str) -> Vec<&Value> {
        self.events.iter().filter(|e| e["type"] == kind).collect()
    }

    /// The last event: `agent_settled`.
    pub fn settled(&self) -> &Value {
        let last = self.events.last().unwrap();
        assert_eq!(last["type"], "agent_settled", "{}", self.stdout);
        last
    }

    /// Every tool result: (tool, text of all its blocks, isError, has durationMs), in order.
    pub fn results(&self) -> Vec<(String, String, bool, bool)> {
        self.events
            .iter()
            .filter(|e| e["type"] == "message_end" && e["message"]["role"] == "toolResult")
            .map(|e| {
                let message = &e["message"];
                (
                    message["toolName"].as_str().unwrap_or_default().to_owned(),
                    texts(&message["content"]),
                    message["isError"] == true,
                    message.get("durationMs").is_some(),
                )
            })
            .collect()
    }

    /// The user messages' text blocks, in order.
    pub fn user_texts(&self) -> Vec<Vec<String>> {
        self.events
            .iter()
            .filter(|e| e["type"] == "message_end" && e["message"]["role"] == "user")
            .map(|e| {
                e["message"]["content"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|b| b["text"].as_str().map(str::to_owned))
                    .collect()
            })
            .collect()
    }

    /// The session file.
    pub fn session_file(&self) -> PathBuf {
        let mut files: Vec<PathBuf> = files_under(&self.sessions)
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
            .collect();
        files.sort();
        files.pop().expect("a session file")
    }

    /// The session file's entries.
    pub fn entries(&self) -> Vec<Value> {
        std::fs::read_to_string(self.session_file())
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

/// Every file under `dir`.
pub fn files_under(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(files_under(&path));
        } else {
            found.push(path);
        }
    }
    found
}

/// The text blocks of a `content` array, one per line.
pub fn texts(content: &Value) -> String {
    content
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|b| b["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A tool call block.
pub fn call(tool: &str, arguments: Value) -> Value {
    json!({"type": "tool_call", "name": tool, "arguments": arguments})
}

/// One matcher group of command hooks.
pub fn group(matcher: Option<&str>, commands: &[Value]) -> Value {
    let mut group = json!({ "hooks": commands });
    if let Some(matcher) = matcher {
        group["matcher"] = json!(matcher);
    }
    group
}

/// A command hook.
pub fn command(command: &str) -> Value {
    json!({"type": "command", "command": command})
}
