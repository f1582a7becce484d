//! The `bash` tool (pi-reference §6.4): runs a command with the shell in the session's working
//! directory, streams its merged output as progress updates, and returns the tail of it.
//!
//! Decisions where Pi's behaviour is a quirk or does not apply:
//! - Shell: Pi's rule, not `$SHELL`: a configured shell path (which must exist), else `/bin/bash`,
//!   else `bash` on `PATH`, else `sh`.
//! - Environment: the process environment (filtered by `with_environment`: keys and tokens
//!   dropped by default, settings `toolEnvironment`) without stale `PI_SESSION_ID`, `PI_SESSION_FILE`,
//!   `PI_PROVIDER`, `PI_MODEL`, `PI_REASONING_LEVEL`; a model's call gets them from its
//!   [`ToolContext`] (Pi 1.6's `resolveSpawnContext`), and every shell gets `AI_AGENT=rho`.
//!   Pi prepends `~/.pi/agent/bin` to `PATH` for the tools it downloads; rho downloads none.
//! - A non-zero exit *returns* an error result (`isError`, Pi 1.6): the text ends with
//!   `Command exited with code N`, and `structuredContent` carries the whole output; a shell a
//!   signal killed exits with `128 + signo`, as Pi's `createLocalShellOperations` says.
//! - The full output goes to `<tmpdir>/rho-bash-<16 hex>.log` (Pi: `pi-bash-…`).
//! - After a timeout or an abort the call returns once every process holding the output pipe
//!   is gone (bounded by a grace period), so no process of the group outlives the call.
//! - A normally finished command may leave background processes running, as in Pi.
//! - With a sandbox (`with_sandbox`, from `rho_gate`), the shell starts confined by Landlock
//!   and gets the sandbox's private `TMPDIR`; where the kernel has no Landlock, rho says so once
//!   on stderr and in the result's `details.sandbox`, and the command runs unconfined.

mod drive;
mod env;
mod output;
mod process;

pub use env::ShellEnv;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use rho_agent::{AgentTool, ToolContext, ToolError, ToolOutput, ToolUpdates};
use rho_gate::{LazySandbox, ToolEnvironment};
use serde_json::{Number, Value, json};
use tokio_util::sync::CancellationToken;

use self::drive::{Ending, Throttle, drive, save_error};
use self::output::{OutputAccumulator, Snapshot};
use super::truncate::{DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, TruncatedBy, format_size};

/// The tool's name.
const NAME: &str = "bash";

/// Prefix of the temp files holding full outputs.
const TEMP_PREFIX: &str = "rho-bash";

/// Most raw bytes of `structuredContent.output` (Pi's `STRUCTURED_OUTPUT_MAX_BYTES`).
const STRUCTURED_OUTPUT_MAX_BYTES: usize = 1024 * 1024;

/// The longest timeout, in milliseconds (Node's timer limit, Pi's `MAX_TIMEOUT_MS`).
const MAX_TIMEOUT_MS: f64 = 2_147_483_647.0;

/// Validated arguments of one call.
struct BashArgs<'a> {
    command: &'a str,
    /// Seconds as the model wrote them; only a positive value sets a timeout.
    timeout: Option<&'a Number>,
}

/// Runs shell commands in a session's working directory.
pub struct BashTool {
    cwd: PathBuf,
    shell_path: Option<PathBuf>,
    command_prefix: Option<String>,
    sandbox: Option<Arc<LazySandbox>>,
    environment: Option<Arc<ToolEnvironment>>,
    description: String,
    schema: Value,
}

impl BashTool {
    /// A `bash` tool running commands in `cwd` with the default shell.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        let description = format!(
            "Execute a bash command in the current working directory. Returns stdout and stderr. Output is truncated to last {DEFAULT_MAX_LINES} lines or {}KB (whichever is hit first). If truncated, full output is saved to a temp file. Optionally provide a timeout in seconds.",
            DEFAULT_MAX_BYTES / 1024
        );
        let schema = json!({
            "type": "object",
            "required": ["command"],
            "properties": {
                "command": {
                    "type": "string",
                    "description": "Shell command to execute"
                },
                "timeout": {
                    "type": "number",
                    "description": "Timeout in seconds (optional, no default timeout)"
                }
            }
        });
        BashTool {
            cwd: cwd.into(),
            shell_path: None,
            command_prefix: None,
            sandbox: None,
            environment: None,
            description,
            schema,
        }
    }

    /// Uses `shell` (settings `shellPath`) instead of the default; a missing file fails each call
    /// with `Custom shell path not found: <path>`.
    pub fn with_shell_path(mut self, shell: impl Into<PathBuf>) -> Self {
        self.shell_path = Some(shell.into());
        self
    }

    /// Runs `<prefix>\n<command>` instead of the command (settings `shellCommandPrefix`).
    pub fn with_command_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.command_prefix = Some(prefix.into());
        self
    }

    /// Runs every command inside `sandbox` (see `rho_gate::sandbox`), prepared on the first
    /// call.
    pub fn with_sandbox(mut self, sandbox: impl Into<Option<Arc<LazySandbox>>>) -> Self {
        self.sandbox = sandbox.into();
        self
    }

    /// Gives commands rho's environment filtered by `rule` (settings `toolEnvironment`)
    /// instead of all of it.
    pub fn with_environment(mut self, rule: impl Into<Option<Arc<ToolEnvironment>>>) -> Self {
        self.environment = rule.into();
        self
    }

    /// The working directory commands run in.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// Runs one call outside any session (no `PI_SESSION_*` variables): what
    /// [`AgentTool::execute`] does, with progress going to `on_update`.
    pub async fn run_command(
        &self,
        args: &Value,
        cancel: &CancellationToken,
        on_update: &(dyn Fn(Value) + Send + Sync),
    ) -> Result<ToolOutput, ToolError> {
        self.run_command_with(args, cancel, on_update, &ShellEnv::plain())
            .await
    }

    /// Runs one call in the environment `env`.
    ///
    /// `args` is `{command, timeout?}` (seconds). A timeout and an abort through `cancel` fail
    /// with the output followed by Pi's status line (the process group is killed); a non-zero
    /// exit returns an error result.
    pub async fn run_command_with(
        &self,
        args: &Value,
        cancel: &CancellationToken,
        on_update: &(dyn Fn(Value) + Send + Sync),
        env: &ShellEnv,
    ) -> Result<ToolOutput, ToolError> {
        let args = parse_args(args)?;
        let command = match &self.command_prefix {
            Some(prefix) => format!("{prefix}\n{}", args.command),
            None => args.command.to_owned(),
        };
        on_update(json!({"content": []}));
        let started = std::time::Instant::now();
        let timeout = args.timeout.map(timeout_duration).transpose()?;

        if cancel.is_cancelled() {
            return Err(ToolError::new("Command aborted"));
        }
        let shell = process::resolve_shell(self.shell_path.as_deref())?;
        if !self.cwd.exists() {
            return Err(ToolError::new(format!(
                "Working directory does not exist: {}\nCannot execute bash commands.",
                self.cwd.display()
            )));
        }

        let sandbox = match &self.sandbox {
            Some(lazy) => Some(prepared(lazy).await?),
            None => None,
        };
        let mut running = process::spawn(
            &shell,
            &command,
            &self.cwd,
            sandbox,
            env,
            self.environment.as_deref(),
        )?;
        let mut output = OutputAccumulator::new(TEMP_PREFIX);
        let mut throttle = Throttle::new(on_update);
        let ending = drive(&mut running, &mut output, &mut throttle, timeout, cancel).await?;
        drop(running);

        output.finish().await.map_err(save_error)?;
        throttle.flush(&mut output).await?;
        let snapshot = output.snapshot(true).await.map_err(save_error)?;
        output.close_temp_file().await.map_err(save_error)?;
        let last_line_bytes = output.last_line_bytes();

        let code = match ending {
            Ending::Aborted => {
                return Err(ToolError::new(with_status(
                    &format_text(&snapshot, last_line_bytes, ""),
                    "Command aborted",
                )));
            }
            Ending::TimedOut { shell_exit } => {
                let seconds = args
                    .timeout
                    .map(rho_stdx::js::json_number_text)
                    .unwrap_or_default();
                let mut status = format!("Command timed out after {seconds} seconds");
                if let Some((code, after)) = shell_exit {
                    status.push_str(&format!(
                        ". The shell exited with code {code} after {} seconds, but background processes it started kept writing output until the timeout.",
                        tenths_of_seconds(after)
                    ));
                }
                return Err(ToolError::new(with_status(
                    &format_text(&snapshot, last_line_bytes, ""),
                    &status,
                )));
            }
            Ending::Exited(code) => code,
        };
        let text = format_text(&snapshot, last_line_bytes, "(no output)");
        let mut details = if snapshot.truncation.truncated {
            let truncation = serde_json::to_value(&snapshot.truncation)
                .map_err(|e| ToolError::new(e.to_string()))?;
            let path = snapshot
                .full_output_path
                .as_ref()
                .map(|p| p.to_string_lossy().into_owned());
            Some(json!({"truncation": truncation, "fullOutputPath": path}))
        } else {
            None
        };
        let unpredicted = self
            .sandbox
            .as_ref()
            .map(|lazy| lazy.unpredicted_warnings())
            .unwrap_or_default();
        let warning = sandbox
            .and_then(|s| s.status().warning())
            .or_else(|| (!unpredicted.is_empty()).then(|| unpredicted.join("; ")));
        if let Some(warning) = warning {
            let object = details.get_or_insert_with(|| json!({}));
            if let Some(map) = object.as_object_mut() {
                map.insert("sandbox".into(), json!(warning));
            }
        }
        let wall_time = tenths_of_seconds(started.elapsed());
        let (full, cut) = output
            .read_full_output(STRUCTURED_OUTPUT_MAX_BYTES)
            .await
            .map_err(save_error)?;
        let mut structured = serde_json::Map::new();
        structured.insert("output".into(), Value::String(full));
        structured.insert("truncated".into(), Value::Bool(cut));
        if let (true, Some(path)) = (cut, &snapshot.full_output_path) {
            structured.insert(
                "full_output_path".into(),
                Value::String(path.to_string_lossy().into_owned()),
            );
        }
        structured.insert("exit_code".into(), Value::from(code));
        structured.insert("wall_time_seconds".into(), wall_time);
        let (text, is_error) = if code == 0 {
            (text, None)
        } else {
            (
                with_status(&text, &format!("Command exited with code {code}")),
                Some(true),
            )
        };
        Ok(ToolOutput {
            details,
            structured_content: Some(Value::Object(structured)),
            is_error,
            ..ToolOutput::text(text)
        })
    }
}

/// `Math.round(ms / 100) / 10`: seconds to a tenth, as a JSON number.
fn tenths_of_seconds(elapsed: Duration) -> Value {
    let tenths = (elapsed.as_secs_f64() * 10.0).round();
    rho_stdx::js::number_value(tenths / 10.0)
}

#[async_trait]
impl AgentTool for BashTool {
    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> &Value {
        &self.schema
    }

    async fn execute(
        &self,
        _tool_call_id: &str,
        args: Value,
        cancel: CancellationToken,
        updates: ToolUpdates,
    ) -> Result<ToolOutput, ToolError> {
        let on_update = move |partial: Value| updates.send(partial);
        self.run_command(&args, &cancel, &on_update).await
    }

    async fn execute_in(
        &self,
        _tool_call_id: &str,
        args: Value,
        cancel: CancellationToken,
        updates: ToolUpdates,
        context: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let on_update = move |partial: Value| updates.send(partial);
        let env = ShellEnv::for_call(context);
        self.run_command_with(&args, &cancel, &on_update, &env)
            .await
    }

    fn constrained_sampling(&self) -> Option<Value> {
        Some(json!({"type": "json_schema", "strict": "prefer"}))
    }
}

/// Extracts the arguments, failing (never panicking) on a missing command or a wrong type.
fn parse_args(args: &Value) -> Result<BashArgs<'_>, ToolError> {
    let command = args
        .get("command")
        .and_then(Value::as_str)
        .ok_or_else(|| ToolError::new("Invalid arguments: \"command\" must be a string"))?;
    let timeout = match args.get("timeout") {
        None | Some(Value::Null) => None,
        Some(Value::Number(number)) => Some(number),
        Some(_) => {
            return Err(ToolError::new(
                "Invalid arguments: \"timeout\" must be a number",
            ));
        }
    };
    Ok(BashArgs { command, timeout })
}

/// A timeout as a duration: positive and at most Node's timer limit, or Pi 1.6's error.
fn timeout_duration(seconds: &Number) -> Result<Duration, ToolError> {
    let seconds = seconds.as_f64().filter(|s| s.is_finite() && *s > 0.0);
    let Some(seconds) = seconds else {
        return Err(ToolError::new(
            "Invalid timeout: must be a finite number of seconds",
        ));
    };
    if seconds * 1000.0 > MAX_TIMEOUT_MS {
        return Err(ToolError::new(format!(
            "Invalid timeout: maximum is {} seconds",
            rho_stdx::js::number_text(MAX_TIMEOUT_MS / 1000.0)
        )));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// `<text>\n\n<status>`, or just the status when there is no text.
fn with_status(text: &str, status: &str) -> String {
    if text.is_empty() {
        status.to_owned()
    } else {
        format!("{text}\n\n{status}")
    }
}

/// The output text with Pi's truncation notice; `empty` stands in for no output.
fn format_text(snapshot: &Snapshot, last_line_bytes: usize, empty: &str) -> String {
    let truncation = &snapshot.truncation;
    let mut text = if snapshot.content.is_empty() {
        empty.to_owned()
    } else {
        snapshot.content.clone()
    };
    if !truncation.truncated {
        return text;
    }
    let path = snapshot
        .full_output_path
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let end = truncation.total_lines;
    let start = end.saturating_sub(truncation.output_lines) + 1;
    let notice = if truncation.last_line_partial {
        format!(
            "[Showing last {} of line {end} (line is {}). Full output: {path}]",
            format_size(truncation.output_bytes),
            format_size(last_line_bytes)
        )
    } else if truncation.truncated_by == Some(TruncatedBy::Lines) {
        format!("[Showing lines {start}-{end} of {end}. Full output: {path}]")
    } else {
        format!(
            "[Showing lines {start}-{end} of {end} ({} limit). Full output: {path}]",
            format_size(DEFAULT_MAX_BYTES)
        )
    };
    text.push_str("\n\n");
    text.push_str(&notice);
    text
}

/// The session's sandbox, prepared on a blocking thread the first time (it forks a probe).
async fn prepared(lazy: &Arc<LazySandbox>) -> Result<&rho_gate::Sandbox, ToolError> {
    let preparing = lazy.clone();
    tokio::task::spawn_blocking(move || preparing.get().map(drop))
        .await
        .map_err(|e| ToolError::new(e.to_string()))?
        .map_err(|e| ToolError::new(e.to_string()))?;
    lazy.get().map_err(|e| ToolError::new(e.to_string()))
}
