//! The `edit` tool (pi-reference §6.3): exact-text replacements in one file, every edit matched
//! against the original content, serialised with `write` through the file mutation queue.

pub mod apply;
pub mod diff;
pub mod patch;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use rho_agent::{AgentTool, ToolError, ToolOutput, ToolUpdates};
use rho_gate::{GatePolicy, GuardedOpenError};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use self::apply::{
    Edit, apply_edits, detect_line_ending, normalize_to_lf, restore_line_endings, strip_bom,
};
use self::diff::{CONTEXT_LINES, diff_text};
use self::patch::patch_text;
use super::mutation_queue::MutationQueue;
use super::path::resolve_to_cwd;
use super::write::{ABORTED, node_error, node_error_code, string_arg, write_guarded};

/// The tool's name.
const NAME: &str = "edit";

/// The description sent to the model (Pi 0.73.1, verbatim).
const DESCRIPTION: &str = "Edit a single file using exact text replacement. Every edits[].oldText must match a unique, non-overlapping region of the original file. If two changes affect the same block or nearby lines, merge them into one edit instead of emitting overlapping edits. Do not include large unchanged regions just to connect distant changes.";

/// Pi's text for a missing or empty `edits` array.
const NO_EDITS: &str = "Edit tool input is invalid. edits must contain at least one replacement.";

/// Edits files relative to a session's working directory.
pub struct EditTool {
    cwd: PathBuf,
    queue: Arc<MutationQueue>,
    schema: Value,
    gate: Option<Arc<GatePolicy>>,
}

impl EditTool {
    /// An `edit` tool resolving relative paths against `cwd`, serialising with the other
    /// mutating tools that share `queue`.
    pub fn new(cwd: impl Into<PathBuf>, queue: Arc<MutationQueue>) -> Self {
        // Key order is TypeBox's (`type`, `required`, `properties`, then options), as Pi sends it.
        let schema = json!({
            "type": "object",
            "required": ["path", "edits"],
            "properties": {
                "path": {
                    "type": "string",
                    "description": "Path to the file to edit (relative or absolute)"
                },
                "edits": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["oldText", "newText"],
                        "properties": {
                            "oldText": {
                                "type": "string",
                                "description": "Exact text for one targeted replacement. It must be unique in the original file and must not overlap with any other edits[].oldText in the same call."
                            },
                            "newText": {
                                "type": "string",
                                "description": "Replacement text for this targeted edit."
                            }
                        }
                    },
                    "description": "One or more targeted replacements. Each edit is matched against the original file, not incrementally. Do not include overlapping or nested edits. If two changes touch the same block or nearby lines, merge them into one edit instead."
                }
            }
        });
        EditTool {
            cwd: cwd.into(),
            queue,
            schema,
            gate: None,
        }
    }

    /// Reads and writes files through `gate`, which re-checks the opened file against its roots.
    pub fn with_gate(mut self, gate: impl Into<Option<Arc<GatePolicy>>>) -> Self {
        self.gate = gate.into();
        self
    }

    /// Runs one call: what [`AgentTool::execute`] does, without needing a [`ToolUpdates`].
    ///
    /// `args` is `{path, edits: [{oldText, newText}]}` (after [`AgentTool::prepare_arguments`]).
    /// Fails with `Operation aborted` if `cancel` fires before the result is ready; the file is
    /// not written once cancellation has been seen.
    pub async fn edit_file(
        &self,
        args: &Value,
        cancel: &CancellationToken,
    ) -> Result<ToolOutput, ToolError> {
        let edits = parse_edits(args)?;
        let path = string_arg(args, "path")?.to_owned();
        let absolute = resolve_to_cwd(&path, &self.cwd);
        let _guard = tokio::select! {
            biased;
            () = cancel.cancelled() => return Err(ToolError::new(ABORTED)),
            guard = self.queue.lock(&absolute) => guard,
        };
        if cancel.is_cancelled() {
            return Err(ToolError::new(ABORTED));
        }
        let token = cancel.clone();
        // Runs to completion even when cancelled, so the lock is held while the file is touched;
        // `token` is checked where Pi checks its signal.
        let gate = self.gate.clone();
        let outcome = tokio::task::spawn_blocking(move || {
            edit_on_disk(&absolute, &path, &edits, &token, gate.as_deref())
        })
        .await
        .map_err(|e| ToolError::new(e.to_string()))?;
        if cancel.is_cancelled() {
            return Err(ToolError::new(ABORTED));
        }
        outcome
    }
}

#[async_trait]
impl AgentTool for EditTool {
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

    /// Pi's `prepareEditArguments`: `edits` sent as a JSON string holding an array is parsed;
    /// legacy top-level `oldText`/`newText` strings become one more entry of `edits`.
    fn prepare_arguments(&self, args: Value) -> Result<Value, ToolError> {
        Ok(prepare_edit_arguments(args))
    }

    async fn execute(
        &self,
        _tool_call_id: &str,
        args: Value,
        cancel: CancellationToken,
        _updates: ToolUpdates,
    ) -> Result<ToolOutput, ToolError> {
        self.edit_file(&args, &cancel).await
    }
}

/// An object with string `oldText` and `newText` (Pi's `isSingleEditInput`).
fn is_single_edit(value: &Value) -> bool {
    value.get("oldText").is_some_and(Value::is_string)
        && value.get("newText").is_some_and(Value::is_string)
        && value.is_object()
}

/// See [`EditTool::prepare_arguments`]; anything else is returned unchanged.
pub fn prepare_edit_arguments(args: Value) -> Value {
    let Value::Object(mut object) = args else {
        return args;
    };
    // Some models send `edits` as a JSON string, or one edit object instead of a list (Pi 1.6).
    match object.get("edits") {
        Some(Value::String(text)) => match serde_json::from_str::<Value>(text) {
            Ok(parsed @ Value::Array(_)) => {
                object.insert("edits".to_owned(), parsed);
            }
            Ok(single) if is_single_edit(&single) => {
                object.insert("edits".to_owned(), Value::Array(vec![single]));
            }
            _ => {}
        },
        Some(single) if is_single_edit(single) => {
            let single = single.clone();
            object.insert("edits".to_owned(), Value::Array(vec![single]));
        }
        _ => {}
    }
    let legacy = match (object.get("oldText"), object.get("newText")) {
        (Some(Value::String(old)), Some(Value::String(new))) => {
            json!({ "oldText": old, "newText": new })
        }
        _ => return Value::Object(object),
    };
    let mut edits = match object.get("edits") {
        Some(Value::Array(edits)) => edits.clone(),
        _ => Vec::new(),
    };
    edits.push(legacy);
    let mut rest: Map<String, Value> = object
        .into_iter()
        .filter(|(key, _)| key != "oldText" && key != "newText")
        .collect();
    // Like `{...rest, edits}`: an existing `edits` key keeps its place, a new one goes last.
    rest.insert("edits".to_owned(), Value::Array(edits));
    Value::Object(rest)
}

/// The `edits` array: non-empty, each entry with string `oldText` and `newText`.
fn parse_edits(args: &Value) -> Result<Vec<Edit>, ToolError> {
    let entries = match args.get("edits") {
        Some(Value::Array(entries)) if !entries.is_empty() => entries,
        _ => return Err(ToolError::new(NO_EDITS)),
    };
    entries
        .iter()
        .enumerate()
        .map(|(i, entry)| {
            let text = |key: &str| entry.get(key).and_then(Value::as_str).map(str::to_owned);
            match (text("oldText"), text("newText")) {
                (Some(old_text), Some(new_text)) => Ok(Edit { old_text, new_text }),
                _ => Err(ToolError::new(format!(
                    "Invalid arguments: edits[{i}] must have string \"oldText\" and \"newText\""
                ))),
            }
        })
        .collect()
}

/// Reads, edits and writes the file (blocking); `path` is the path as given, for messages.
fn edit_on_disk(
    absolute: &Path,
    path: &str,
    edits: &[Edit],
    cancel: &CancellationToken,
    gate: Option<&GatePolicy>,
) -> Result<ToolOutput, ToolError> {
    let raw = read_for_edit(absolute, path, gate)?;
    if cancel.is_cancelled() {
        return Err(ToolError::new(ABORTED));
    }
    // Node's `buffer.toString("utf-8")`: invalid sequences become U+FFFD, a BOM is kept.
    let raw = String::from_utf8_lossy(&raw);
    let (bom, content) = strip_bom(&raw);
    let ending = detect_line_ending(content);
    let normalized = normalize_to_lf(content);
    let applied =
        apply_edits(&normalized, edits, path).map_err(|e| ToolError::new(e.to_string()))?;
    if cancel.is_cancelled() {
        return Err(ToolError::new(ABORTED));
    }
    let written = format!("{bom}{}", restore_line_endings(&applied.new, ending));
    write_guarded(gate, NAME, absolute, written.as_bytes())?;

    let diff = diff_text(&applied.base, &applied.new, CONTEXT_LINES);
    let mut details = Map::new();
    details.insert("diff".to_owned(), Value::String(diff.diff));
    let patch = patch_text(path, &applied.base, &applied.new, CONTEXT_LINES);
    details.insert("patch".to_owned(), Value::String(patch));
    if let Some(line) = diff.first_changed_line {
        details.insert("firstChangedLine".to_owned(), json!(line));
    }
    Ok(ToolOutput {
        details: Some(Value::Object(details)),
        ..ToolOutput::text(format!(
            "Successfully replaced {} block(s) in {path}.",
            edits.len()
        ))
    })
}

/// Checks the file is readable and writable (Pi's `access(R_OK | W_OK)`) and reads it.
///
/// A failed check gives `Could not edit file: <path>. Error code: <code>.`; a directory passes
/// Node's check and then fails to read, as in Pi.
fn read_for_edit(
    absolute: &Path,
    path: &str,
    gate: Option<&GatePolicy>,
) -> Result<Vec<u8>, ToolError> {
    let cannot_edit = |error: &std::io::Error| {
        let reason = match node_error_code(error) {
            Some(code) => format!("Error code: {code}"),
            None => format!("Error: {error}"),
        };
        ToolError::new(format!("Could not edit file: {path}. {reason}."))
    };
    let metadata = std::fs::metadata(absolute).map_err(|e| cannot_edit(&e))?;
    if metadata.is_dir() {
        return Err(ToolError::new(
            "EISDIR: illegal operation on a directory, read",
        ));
    }
    // Opening for reading and writing (without truncating) is the access check.
    let opened = match gate {
        Some(gate) => gate.open_for_edit(NAME, absolute),
        None => rho_gate::open_regular(absolute, libc::O_RDWR),
    };
    let mut file = opened.map_err(|error| match error {
        GuardedOpenError::Refused(refusal) => ToolError::new(refusal.to_string()),
        GuardedOpenError::Io(e) => cannot_edit(&e),
    })?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|e| node_error(&e, "read", None))?;
    Ok(bytes)
}
