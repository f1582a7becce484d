//! The `ls` tool (pi-reference §6.7): one directory's entries, sorted like Pi sorts them.

use std::cmp::Ordering;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use icu_collator::options::CollatorOptions;
use icu_collator::{Collator, CollatorBorrowed};
use rho_agent::{AgentTool, ToolError, ToolOutput, ToolUpdates};
use rho_gate::GatePolicy;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::grep::guard::GuardedDir;
use super::grep::output::{finish, js_number, number_arg};
use super::path::resolve_to_cwd;

/// The tool's name.
const NAME: &str = "ls";

/// The description sent to the model (Pi 0.73.1, verbatim).
const DESCRIPTION: &str = "List directory contents. Returns entries sorted alphabetically, with '/' suffix for directories. Includes dotfiles. Output is truncated to 500 entries or 50KB (whichever is hit first).";

/// Entries returned when the model gives no `limit`.
const DEFAULT_LIMIT: f64 = 500.0;

/// The error text of an aborted call.
const ABORTED: &str = "Operation aborted";

/// Lists directories relative to a session's working directory.
pub struct LsTool {
    cwd: PathBuf,
    schema: Value,
    gate: Option<Arc<GatePolicy>>,
}

impl LsTool {
    /// An `ls` tool resolving relative paths against `cwd`.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        let schema = json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Directory to list (default: current directory)"},
                "limit": {"type": "number", "description": "Maximum number of entries to return (default: 500)"}
            }
        });
        LsTool {
            cwd: cwd.into(),
            schema,
            gate: None,
        }
    }

    /// Opens the directory through `gate` (the re-check at open time, see `grep::guard`).
    pub fn with_gate(mut self, gate: impl Into<Option<Arc<GatePolicy>>>) -> Self {
        self.gate = gate.into();
        self
    }

    /// Runs one call: what [`AgentTool::execute`] does, without needing a [`ToolUpdates`].
    ///
    /// `args` is `{path?, limit?}`.
    pub async fn list(
        &self,
        args: &Value,
        cancel: &CancellationToken,
    ) -> Result<ToolOutput, ToolError> {
        if cancel.is_cancelled() {
            return Err(ToolError::new(ABORTED));
        }
        let path = args
            .get("path")
            .and_then(Value::as_str)
            .filter(|p| !p.is_empty());
        let dir = resolve_to_cwd(path.unwrap_or("."), &self.cwd);
        // Pi 1.6: `max(1, floor(limit ?? 500))` (a limit of 0 would list nothing).
        let limit = number_arg(args, "limit")
            .unwrap_or(DEFAULT_LIMIT)
            .floor()
            .clamp(1.0, 9_007_199_254_740_991.0);
        let gate = self.gate.clone();
        let listing = tokio::task::spawn_blocking(move || list_dir(&dir, limit, gate.as_deref()));
        tokio::select! {
            biased;
            () = cancel.cancelled() => Err(ToolError::new(ABORTED)),
            result = listing => result.map_err(|e| ToolError::new(e.to_string()))?,
        }
    }
}

#[async_trait]
impl AgentTool for LsTool {
    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn parameters(&self) -> &Value {
        &self.schema
    }

    async fn execute(
        &self,
        _tool_call_id: &str,
        args: Value,
        cancel: CancellationToken,
        _updates: ToolUpdates,
    ) -> Result<ToolOutput, ToolError> {
        self.list(&args, &cancel).await
    }
}

/// Reads, sorts and formats one directory; with a gate, the directory read is the one the gate
/// verified (through its fd), not whatever the path names by then.
fn list_dir(dir: &Path, limit: f64, gate: Option<&GatePolicy>) -> Result<ToolOutput, ToolError> {
    let shown = dir.display();
    // Like Node's `existsSync` + `statSync`, both following symlinks.
    let meta =
        std::fs::metadata(dir).map_err(|_| ToolError::new(format!("Path not found: {shown}")))?;
    if !meta.is_dir() {
        return Err(ToolError::new(format!("Not a directory: {shown}")));
    }
    let guarded = gate
        .map(|gate| GuardedDir::open(gate, NAME, dir, |e| scandir_error(&e, dir)))
        .transpose()?;
    let opened = guarded
        .as_ref()
        .map_or_else(|| dir.to_path_buf(), GuardedDir::fd_path);
    let reader = std::fs::read_dir(&opened).map_err(|e| scandir_error(&e, dir))?;
    let mut names: Vec<String> = Vec::new();
    for entry in reader {
        let entry = entry.map_err(|e| scandir_error(&e, dir))?;
        names.push(entry.file_name().to_string_lossy().into_owned());
    }
    sort_like_pi(&mut names);

    let mut results: Vec<String> = Vec::new();
    let mut limit_reached = false;
    for name in names {
        if results.len() as f64 >= limit {
            limit_reached = true;
            break;
        }
        // Entries that cannot be stat'ed (e.g. dangling symlinks) are skipped, as in Pi.
        let Ok(meta) = std::fs::metadata(opened.join(&name)) else {
            continue;
        };
        let suffix = if meta.is_dir() { "/" } else { "" };
        results.push(format!("{name}{suffix}"));
    }
    if results.is_empty() {
        return Ok(ToolOutput::text("(empty directory)"));
    }
    let limit_notice = limit_reached.then(|| {
        let notice = format!(
            "{} entries limit reached. Use limit={} for more",
            js_number(limit),
            js_number(limit * 2.0)
        );
        ("entryLimitReached", limit, notice)
    });
    let listing = finish(&results, limit_notice, None);
    Ok(ToolOutput {
        details: listing.details,
        ..ToolOutput::text(listing.text)
    })
}

/// Pi's order: `a.toLowerCase().localeCompare(b.toLowerCase())`, i.e. ICU collation of the
/// lowercased names (root/en rules: punctuation before digits before letters, accents
/// secondary). Names that collate equal keep a stable byte order.
pub fn sort_like_pi(names: &mut [String]) {
    let collator = Collator::try_new(Default::default(), CollatorOptions::default()).ok();
    let mut keyed: Vec<(String, String)> = names
        .iter()
        .map(|name| (name.to_lowercase(), name.clone()))
        .collect();
    keyed.sort_by(|(a_key, a), (b_key, b)| {
        compare(collator.as_ref(), a_key, b_key).then_with(|| a.cmp(b))
    });
    for (slot, (_, name)) in names.iter_mut().zip(keyed) {
        *slot = name;
    }
}

/// Collation order, or plain code-point order if the collator could not be built.
fn compare(collator: Option<&CollatorBorrowed<'static>>, a: &str, b: &str) -> Ordering {
    collator.map_or_else(|| a.cmp(b), |c| c.compare(a, b))
}

/// Node's `readdirSync` error, e.g. `Cannot read directory: EACCES: permission denied, scandir '/x'`.
fn scandir_error(error: &std::io::Error, dir: &Path) -> ToolError {
    let code = match error.kind() {
        ErrorKind::NotFound => "ENOENT: no such file or directory",
        ErrorKind::PermissionDenied => "EACCES: permission denied",
        ErrorKind::NotADirectory => "ENOTDIR: not a directory",
        _ => return ToolError::new(format!("Cannot read directory: {error}")),
    };
    ToolError::new(format!(
        "Cannot read directory: {code}, scandir '{}'",
        dir.display()
    ))
}
