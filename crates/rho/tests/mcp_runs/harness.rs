//! One MCP run: a project, rho's home with an `mcp.json` of scripted servers, and `rho --mode
//! json` driven by a faux script, with a time bound and a memory bound (a run that hangs or
//! balloons fails), the events parsed.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use rho_testkit::measured::{Measured, run};
use serde_json::{Value, json};

/// A run that outlives this has hung.
pub const TIME_BOUND: Duration = Duration::from_secs(60);

/// A safety bound on rho's memory (not a target).
pub const RSS_BOUND_KIB: u64 = 256 * 1024;

/// The scripted MCP server of rho-mcp's tests.
pub fn scripted() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../rho-mcp/tests/servers/scripted.py")
}

/// The directories of one run.
pub struct McpArena {
    _dir: tempfile::TempDir,
    pub base: PathBuf,
    pub project: PathBuf,
    pub rho_home: PathBuf,
}

impl McpArena {
    pub fn new() -> McpArena {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let arena = McpArena {
            project: base.join("project"),
            rho_home: base.join("rho-home"),
            base,
            _dir: dir,
        };
        std::fs::create_dir_all(&arena.project).unwrap();
        std::fs::create_dir_all(&arena.rho_home).unwrap();
        arena
    }

    /// A scripted server's entry: `python3 scripted.py <args>`, direct, its process id written
    /// to `<base>/<pid_name>.pid`, with `fields` added.
    pub fn server(&self, pid_name: &str, args: &[&str], fields: Value) -> Value {
        let mut argv = vec![scripted().display().to_string()];
        argv.extend(args.iter().map(|a| (*a).to_owned()));
        let mut entry = json!({
            "command": "python3",
            "args": argv,
            "env": {"PID_FILE": self.pid_file(pid_name).display().to_string()},
            "exposure": "direct",
        });
        if let (Value::Object(entry), Value::Object(fields)) = (&mut entry, fields) {
            for (key, value) in fields {
                match (entry.get_mut(&key), value) {
                    (Some(Value::Object(old)), Value::Object(new)) => old.extend(new),
                    (_, value) => {
                        entry.insert(key, value);
                    }
                }
            }
        }
        entry
    }

    pub fn pid_file(&self, name: &str) -> PathBuf {
        self.base.join(format!("{name}.pid"))
    }

    /// Writes `RHO_HOME/mcp.json` with `servers`.
    pub fn global(&self, servers: Value) {
        let text = json!({ "mcpServers": servers }).to_string();
        std::fs::write(self.rho_home.join("mcp.json"), text).unwrap();
    }

    /// Writes the project's `.rho/mcp.json` with `servers`.
    pub fn project_file(&self, servers: Value) {
        let dir = self.project.join(".rho");
        std::fs::create_dir_all(&dir).unwrap();
        let text = json!({ "mcpServers": servers }).to_string();
        std::fs::write(dir.join("mcp.json"), text).unwrap();
    }

    /// `rho` in the project with a cleared environment (PATH, HOME, RHO_HOME) and `env`.
    pub fn rho(&self, env: &[(&str, &str)]) -> Command {
        let mut command = Command::new(crate::gate_attacks::harness::rho_bin());
        command
            .current_dir(&self.project)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.base)
            .env("RHO_HOME", &self.rho_home)
            .envs(env.iter().copied());
        command
    }

    /// Runs `rho --mode json` with `turns` (each a list of content blocks), then a final text
    /// turn; bounded in time and memory.
    pub fn run(&self, flags: &[&str], env: &[(&str, &str)], turns: Vec<Vec<Value>>) -> McpRun {
        let mut turns: Vec<Value> = turns.into_iter().map(Value::from).collect();
        turns.push(json!([{"type": "text", "text": "done"}]));
        let script = self.base.join("script.json");
        std::fs::write(&script, json!({ "turns": turns }).to_string()).unwrap();
        let mut command = self.rho(env);
        command
            .args(["--mode", "json", "--session-dir"])
            .arg(self.base.join("sessions"))
            .args(flags)
            .arg("--faux-script")
            .arg(&script)
            .arg("go");
        let measured = run(command, TIME_BOUND).unwrap();
        assert!(!measured.timed_out, "rho hung: {measured:?}");
        assert!(
            measured.peak_rss_kib < RSS_BOUND_KIB,
            "rho's peak RSS {} KiB is over the bound",
            measured.peak_rss_kib
        );
        let events = measured
            .stdout
            .lines()
            .filter_map(|line| serde_json::from_str(line).ok())
            .collect();
        McpRun { measured, events }
    }
}

/// A finished run.
pub struct McpRun {
    pub measured: Measured,
    pub events: Vec<Value>,
}

impl McpRun {
    /// The run ended normally: exit 0, `agent_settled` last with reason `completed`.
    pub fn settled(&self) -> &Self {
        assert_eq!(self.measured.code, Some(0), "{}", self.measured.stderr);
        let last = self.events.last().unwrap();
        assert_eq!(last["type"], "agent_settled", "{last}");
        assert_eq!(last["reason"], "completed", "{last}");
        self
    }

    /// Every tool result: (tool, text, isError), in order.
    pub fn results(&self) -> Vec<(String, String, bool)> {
        self.events
            .iter()
            .filter(|e| e["type"] == "message_end" && e["message"]["role"] == "toolResult")
            .map(|e| {
                let message = &e["message"];
                let text = message["content"][0]["text"].as_str().unwrap_or_default();
                (
                    message["toolName"].as_str().unwrap_or_default().to_owned(),
                    text.to_owned(),
                    message["isError"] == true,
                )
            })
            .collect()
    }

    /// The names of the tools the model was told of, in the last `system` message that
    /// declares them.
    pub fn declared_tools(&self) -> Vec<String> {
        let mut declared: Vec<String> = Vec::new();
        for event in &self.events {
            if event["type"] != "message_end" || event["message"]["role"] != "system" {
                continue;
            }
            let message = &event["message"];
            if let Some(tools) = message["tools"].as_array() {
                declared = tools
                    .iter()
                    .filter_map(|t| t["name"].as_str().map(str::to_owned))
                    .collect();
            }
            for added in message["toolsAdded"].as_array().into_iter().flatten() {
                if let Some(name) = added["name"].as_str() {
                    declared.push(name.to_owned());
                }
            }
            for removed in message["toolsRemoved"].as_array().into_iter().flatten() {
                declared.retain(|name| Some(name.as_str()) != removed.as_str());
            }
        }
        declared
    }
}

/// A tool call block.
pub fn call(tool: &str, arguments: Value) -> Value {
    json!({"type": "tool_call", "name": tool, "arguments": arguments})
}

/// Whether the process in `pid_file` is gone (or never started): polled for a few seconds,
/// since an orphan is reaped by init a moment after its group is killed.
pub fn process_gone(pid_file: &Path) -> bool {
    let Ok(pid) = std::fs::read_to_string(pid_file) else {
        return true;
    };
    let stat = format!("/proc/{}/stat", pid.trim());
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let running = std::fs::read_to_string(&stat).is_ok_and(|text| {
            text.rsplit(')')
                .next()
                .is_some_and(|rest| !rest.trim_start().starts_with('Z'))
        });
        if !running {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
