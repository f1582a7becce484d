//! The `bash` tool (pi-reference §6.4): runs a command with the shell in the session's working
//! directory, streams its merged output as progress updates, and returns the tail of it.
//!
//! Decisions where Pi's behaviour is a quirk or does not apply:
//! - Shell: Pi's rule, not `$SHELL`: a configured shell path (which must exist), else `/bin/bash`,
//!   else `bash` on `PATH`, else `sh`.
//! - Environment: the process environment, unchanged. Pi prepends `~/.pi/agent/bin` to `PATH`
//!   for the tools it downloads; rho downloads none.
//! - A shell killed by a signal rho did not send (exit code `null`) counts as success, as in Pi:
//!   the output is returned as is. Changing this would change what a Pi client sees.
//! - The full output goes to `<tmpdir>/rho-bash-<16 hex>.log` (Pi: `pi-bash-…`).
//! - After a timeout or an abort the call returns once every process holding the output pipe
//!   is gone (bounded by a grace period), so no process of the group outlives the call.
//! - A normally finished command may leave background processes running, as in Pi.
//! - With a sandbox (`with_sandbox`, from `rho_gate`), the shell starts confined by Landlock
//!   and gets the sandbox's private `TMPDIR`; where the kernel has no Landlock, rho says so once
//!   on stderr and in the result's `details.sandbox`, and the command runs unconfined.

mod drive;
mod output;
mod process;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use rho_agent::{AgentTool, ToolError, ToolOutput, ToolUpdates};
use rho_gate::Sandbox;
use serde_json::{Number, Value, json};
use tokio_util::sync::CancellationToken;

use self::drive::{Ending, Throttle, drive, save_error};
use self::output::{OutputAccumulator, Snapshot};
use super::truncate::{DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, TruncatedBy, format_size};

/// The tool's name.
const NAME: &str = "bash";

/// Prefix of the temp files holding full outputs.
const TEMP_PREFIX: &str = "rho-bash";

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
    sandbox: Option<Arc<Sandbox>>,
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
            "properties": {
                "command": {
                    "type": "string",
                    "description": "Bash command to execute"
                },
                "timeout": {
                    "type": "number",
                    "description": "Timeout in seconds (optional, no default timeout)"
                }
            },
            "required": ["command"]
        });
        BashTool {
            cwd: cwd.into(),
            shell_path: None,
            command_prefix: None,
            sandbox: None,
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

    /// Runs every command inside `sandbox` (see `rho_gate::sandbox`).
    pub fn with_sandbox(mut self, sandbox: impl Into<Option<Arc<Sandbox>>>) -> Self {
        self.sandbox = sandbox.into();
        self
    }

    /// The working directory commands run in.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// Runs one call: what [`AgentTool::execute`] does, with progress going to `on_update`.
    ///
    /// `args` is `{command, timeout?}` (seconds). A non-zero exit, a timeout and an abort through
    /// `cancel` fail with the output followed by Pi's status line; the process group is killed
    /// on timeout and abort.
    pub async fn run_command(
        &self,
        args: &Value,
        cancel: &CancellationToken,
        on_update: &(dyn Fn(Value) + Send + Sync),
    ) -> Result<ToolOutput, ToolError> {
        let args = parse_args(args)?;
        let command = match &self.command_prefix {
            Some(prefix) => format!("{prefix}\n{}", args.command),
            None => args.command.to_owned(),
        };
        let timeout = args.timeout.and_then(timeout_duration);
        on_update(json!({"content": []}));

        let shell = process::resolve_shell(self.shell_path.as_deref())?;
        if !self.cwd.exists() {
            return Err(ToolError::new(format!(
                "Working directory does not exist: {}\nCannot execute bash commands.",
                self.cwd.display()
            )));
        }
        if cancel.is_cancelled() {
            return Err(ToolError::new("Command aborted"));
        }

        let sandbox = self.sandbox.as_deref();
        if let Some(sandbox) = sandbox {
            sandbox.warn_once_if_unavailable();
        }
        let mut running = process::spawn(&shell, &command, &self.cwd, sandbox)?;
        let mut output = OutputAccumulator::new(TEMP_PREFIX);
        let mut throttle = Throttle::new(on_update);
        let ending = drive(&mut running, &mut output, &mut throttle, timeout, cancel).await?;
        drop(running);

        output.finish().await.map_err(save_error)?;
        throttle.flush(&mut output).await?;
        let snapshot = output.snapshot(true).await.map_err(save_error)?;
        output.close_temp_file().await.map_err(save_error)?;
        let last_line_bytes = output.last_line_bytes();

        match ending {
            Ending::Aborted => Err(ToolError::new(with_status(
                &format_text(&snapshot, last_line_bytes, ""),
                "Command aborted",
            ))),
            Ending::TimedOut => {
                let seconds = args
                    .timeout
                    .map(rho_stdx::js::json_number_text)
                    .unwrap_or_default();
                Err(ToolError::new(with_status(
                    &format_text(&snapshot, last_line_bytes, ""),
                    &format!("Command timed out after {seconds} seconds"),
                )))
            }
            Ending::Exited(Some(code)) if code != 0 => Err(ToolError::new(with_status(
                &format_text(&snapshot, last_line_bytes, "(no output)"),
                &format!("Command exited with code {code}"),
            ))),
            // Exit code 0, or `None` (killed by a foreign signal): success, as in Pi.
            Ending::Exited(_) => {
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
                if let Some(warning) = sandbox.and_then(|s| s.status().warning()) {
                    let object = details.get_or_insert_with(|| json!({}));
                    if let Some(map) = object.as_object_mut() {
                        map.insert("sandbox".into(), json!(warning));
                    }
                }
                Ok(ToolOutput {
                    details,
                    ..ToolOutput::text(text)
                })
            }
        }
    }
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

/// A positive timeout as a duration; zero, negative and unrepresentable values set none.
fn timeout_duration(seconds: &Number) -> Option<Duration> {
    let seconds = seconds.as_f64()?;
    if seconds > 0.0 {
        Duration::try_from_secs_f64(seconds).ok()
    } else {
        None
    }
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
