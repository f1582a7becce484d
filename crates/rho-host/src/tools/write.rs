//! The `write` tool (pi-reference §6.2): creates or overwrites a file, creating its parent
//! directories, serialised with `edit` through the file mutation queue.
//!
//! Deliberate difference from Pi: the success text counts real UTF-8 bytes, where Pi reports
//! the JavaScript string length (UTF-16 code units) as "bytes".

use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use rho_agent::{AgentTool, ToolError, ToolOutput, ToolUpdates};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::mutation_queue::MutationQueue;
use super::path::resolve_to_cwd;

/// The tool's name.
const NAME: &str = "write";

/// The description sent to the model (Pi 0.73.1, verbatim).
const DESCRIPTION: &str = "Write content to a file. Creates the file if it doesn't exist, overwrites if it does. Automatically creates parent directories.";

/// Writes `bytes` to `absolute`: through the gate when there is one (missing parents made
/// and the file opened without following a symlink out of the roots, a hard-linked file
/// replaced rather than changed in place), else directly; a FIFO or device is refused either
/// way.
pub(crate) fn write_guarded(
    gate: Option<&rho_gate::GatePolicy>,
    tool: &str,
    absolute: &Path,
    bytes: &[u8],
) -> Result<(), ToolError> {
    let written = match gate {
        Some(gate) => gate.write_file(tool, absolute, bytes),
        None => {
            if let Some(dir) = absolute.parent() {
                std::fs::create_dir_all(dir).map_err(|e| node_error(&e, "mkdir", Some(dir)))?;
            }
            rho_gate::write_regular(absolute, bytes)
        }
    };
    written.map_err(|error| match error {
        rho_gate::GuardedOpenError::Refused(refusal) => ToolError::new(refusal.to_string()),
        rho_gate::GuardedOpenError::Io(e) if e.kind() == ErrorKind::NotFound => {
            node_error(&e, "mkdir", absolute.parent())
        }
        rho_gate::GuardedOpenError::Io(e) => node_error(&e, "open", Some(absolute)),
    })
}

/// The error text of an aborted call.
pub(crate) const ABORTED: &str = "Operation aborted";

/// Writes files relative to a session's working directory.
pub struct WriteTool {
    cwd: PathBuf,
    queue: Arc<MutationQueue>,
    schema: Value,
    gate: Option<Arc<rho_gate::GatePolicy>>,
}

impl WriteTool {
    /// A `write` tool resolving relative paths against `cwd`, serialising with the other
    /// mutating tools that share `queue`.
    pub fn new(cwd: impl Into<PathBuf>, queue: Arc<MutationQueue>) -> Self {
        // Key order is TypeBox's (`type`, `required`, `properties`), as Pi sends it.
        let schema = json!({
            "type": "object",
            "required": ["path", "content"],
            "properties": {
                "path": {
                    "type": "string",
                    "description": "Path to the file to write (relative or absolute)"
                },
                "content": {
                    "type": "string",
                    "description": "Content to write to the file"
                }
            }
        });
        WriteTool {
            cwd: cwd.into(),
            queue,
            schema,
            gate: None,
        }
    }

    /// Writes files through `gate`, which re-checks the opened file against its roots.
    pub fn with_gate(mut self, gate: impl Into<Option<Arc<rho_gate::GatePolicy>>>) -> Self {
        self.gate = gate.into();
        self
    }

    /// Runs one call: what [`AgentTool::execute`] does, without needing a [`ToolUpdates`].
    ///
    /// `args` is `{path, content}`. Fails with `Operation aborted` if `cancel` fires before the
    /// result is ready (a write already under way still completes, as in Pi).
    pub async fn write_file(
        &self,
        args: &Value,
        cancel: &CancellationToken,
    ) -> Result<ToolOutput, ToolError> {
        let path = string_arg(args, "path")?;
        let content = string_arg(args, "content")?;
        let absolute = resolve_to_cwd(path, &self.cwd);
        let _guard = tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(ToolError::new(ABORTED)),
            guard = self.queue.lock(&absolute) => guard,
        };
        if cancel.is_cancelled() {
            return Err(ToolError::new(ABORTED));
        }
        let bytes = content.as_bytes().to_vec();
        let token = cancel.clone();
        let gate = self.gate.clone();
        // Runs to completion even when cancelled, so the lock is held for as long as the file
        // is being written; the cancellation checks sit where Pi checks its signal.
        let outcome = tokio::task::spawn_blocking(move || {
            if token.is_cancelled() {
                return Ok(());
            }
            write_guarded(gate.as_deref(), NAME, &absolute, &bytes)
        })
        .await
        .map_err(|e| ToolError::new(e.to_string()))?;
        if cancel.is_cancelled() {
            return Err(ToolError::new(ABORTED));
        }
        outcome?;
        Ok(ToolOutput::text(format!("Successfully wrote to {path}")))
    }
}

#[async_trait]
impl AgentTool for WriteTool {
    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn parameters(&self) -> &Value {
        &self.schema
    }

    fn constrained_sampling(&self) -> Option<Value> {
        Some(serde_json::json!({"type": "json_schema", "strict": "prefer"}))
    }

    async fn execute(
        &self,
        _tool_call_id: &str,
        args: Value,
        cancel: CancellationToken,
        _updates: ToolUpdates,
    ) -> Result<ToolOutput, ToolError> {
        self.write_file(&args, &cancel).await
    }
}

/// A required string argument; a missing or mistyped one fails instead of panicking.
pub(crate) fn string_arg<'a>(args: &'a Value, key: &str) -> Result<&'a str, ToolError> {
    args.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| ToolError::new(format!("Invalid arguments: \"{key}\" must be a string")))
}

/// Node's error code for an I/O error (`ENOENT`, `EACCES`, …), when it has a well-known one.
pub(crate) fn node_error_code(error: &std::io::Error) -> Option<&'static str> {
    // EPERM and EACCES share `PermissionDenied`; the OS number tells them apart.
    if error.raw_os_error() == Some(1) {
        return Some("EPERM");
    }
    Some(match error.kind() {
        ErrorKind::NotFound => "ENOENT",
        ErrorKind::PermissionDenied => "EACCES",
        ErrorKind::AlreadyExists => "EEXIST",
        ErrorKind::NotADirectory => "ENOTDIR",
        ErrorKind::IsADirectory => "EISDIR",
        ErrorKind::ReadOnlyFilesystem => "EROFS",
        ErrorKind::InvalidFilename => "ENAMETOOLONG",
        ErrorKind::StorageFull => "ENOSPC",
        _ => return None,
    })
}

/// Node's description of an error code, as in `ENOENT: no such file or directory`.
fn node_error_description(code: &str) -> &'static str {
    match code {
        "EPERM" => "operation not permitted",
        "ENOENT" => "no such file or directory",
        "EACCES" => "permission denied",
        "EEXIST" => "file already exists",
        "ENOTDIR" => "not a directory",
        "EISDIR" => "illegal operation on a directory",
        "EROFS" => "read-only file system",
        "ENAMETOOLONG" => "name too long",
        "ENOSPC" => "no space left on device",
        _ => "unknown error",
    }
}

/// Node's text for a failed file-system call, e.g. `EISDIR: illegal operation on a directory,
/// open '/x'` (Node names no path for reads from an open file: pass `None`); errors without a
/// well-known code keep the OS text.
pub(crate) fn node_error(error: &std::io::Error, syscall: &str, path: Option<&Path>) -> ToolError {
    let Some(code) = node_error_code(error) else {
        return ToolError::new(error.to_string());
    };
    let description = node_error_description(code);
    ToolError::new(match path {
        Some(path) => format!("{code}: {description}, {syscall} '{}'", path.display()),
        None => format!("{code}: {description}, {syscall}"),
    })
}
