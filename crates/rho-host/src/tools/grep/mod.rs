//! The `grep` tool (pi-reference §6.5): searches file contents in-process with ripgrep's crates.
//!
//! Pi runs `rg --json --line-number --color=never --hidden [--ignore-case] [--fixed-strings]
//! [--glob G] -- PATTERN PATH` and formats the match events; rho runs the same walk and matcher
//! in-process ([`search`]) and formats the same way. Matches come in path order (rg's own order
//! is whatever its threads finish first).

pub(crate) mod guard;
pub(crate) mod output;
mod search;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use rho_agent::{AgentTool, ToolError, ToolOutput, ToolUpdates};
use rho_gate::GatePolicy;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use self::guard::{GuardedDir, NAME};
use self::output::{finish, js_number, number_arg};
use self::search::{FoundLine, SearchError, SearchRequest};
use super::path::resolve_to_cwd;

/// The description sent to the model (Pi 0.73.1, verbatim).
const DESCRIPTION: &str = "Search file contents for a pattern. Returns matching lines with file paths and line numbers. Respects .gitignore. Output is truncated to 100 matches or 50KB (whichever is hit first). Long lines are truncated to 500 chars.";

/// Matches returned when the model gives no `limit`.
const DEFAULT_LIMIT: f64 = 100.0;

/// `Number.MAX_SAFE_INTEGER`, the largest limit or context Pi passes on.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// Longest line (in UTF-16 code units, like JavaScript) shown before `... [truncated]`.
pub const GREP_MAX_LINE_LENGTH: usize = 500;

/// The error text of an aborted call.
const ABORTED: &str = "Operation aborted";

/// Searches file contents relative to a session's working directory.
pub struct GrepTool {
    cwd: PathBuf,
    schema: Value,
    gate: Option<Arc<GatePolicy>>,
}

impl GrepTool {
    /// A `grep` tool resolving relative paths (and `glob`s) against `cwd`.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        let schema = json!({
            "type": "object",
            "required": ["pattern"],
            "properties": {
                "pattern": {"type": "string", "description": "Search pattern (regex or literal string)"},
                "path": {"type": "string", "description": "Directory or file to search (default: current directory)"},
                "glob": {"type": "string", "description": "Filter files by glob pattern relative to path, e.g. 'src/**/*.ts'. Without '/', e.g. '*.ts', it matches file names at any depth"},
                "ignoreCase": {"type": "boolean", "description": "Case-insensitive search (default: false)"},
                "literal": {"type": "boolean", "description": "Treat pattern as literal string instead of regex (default: false)"},
                "context": {"type": "number", "description": "Number of lines to show before and after each match (default: 0)"},
                "limit": {"type": "number", "description": "Maximum number of matches to return (default: 100)"}
            }
        });
        GrepTool {
            cwd: cwd.into(),
            schema,
            gate: None,
        }
    }

    /// Opens the search root and every file read through `gate` (the re-check at open time,
    /// see `guard`).
    pub fn with_gate(mut self, gate: impl Into<Option<Arc<GatePolicy>>>) -> Self {
        self.gate = gate.into();
        self
    }

    /// Runs one call: what [`AgentTool::execute`] does, without needing a [`ToolUpdates`].
    ///
    /// `args` is `{pattern, path?, glob?, ignoreCase?, literal?, context?, limit?}`.
    pub async fn grep(
        &self,
        args: &Value,
        cancel: &CancellationToken,
    ) -> Result<ToolOutput, ToolError> {
        if cancel.is_cancelled() {
            return Err(ToolError::new(ABORTED));
        }
        let pattern = args
            .get("pattern")
            .and_then(Value::as_str)
            .ok_or_else(|| ToolError::new("Invalid arguments: \"pattern\" must be a string"))?;
        let text_arg = |key: &str| {
            args.get(key)
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
        };
        let flag = |key: &str| args.get(key).and_then(Value::as_bool).unwrap_or(false);
        let root = resolve_to_cwd(text_arg("path").unwrap_or("."), &self.cwd);
        // Pi 1.6: `context > 0 ? floor(context) : 0`, `max(1, floor(limit ?? 100))`.
        let context = number_arg(args, "context")
            .filter(|&c| c > 0.0)
            .map_or(0, |c| c.floor().min(MAX_SAFE_INTEGER) as usize);
        let limit = number_arg(args, "limit")
            .unwrap_or(DEFAULT_LIMIT)
            .floor()
            .max(1.0);
        // rg roots `--glob` at its working directory: the search directory (a file search runs
        // in the session's). rg never matches a leading `./`, so Pi drops it (after a `!`).
        let glob_root = if root.is_dir() {
            root.clone()
        } else {
            self.cwd.clone()
        };
        let request = SearchRequest {
            root,
            glob_root,
            pattern: pattern.to_owned(),
            ignore_case: flag("ignoreCase"),
            literal: flag("literal"),
            glob: text_arg("glob").map(strip_leading_dot_slash),
            limit: limit.min(MAX_SAFE_INTEGER) as usize,
            context,
            gate: self.gate.clone(),
        };
        let cancel = cancel.clone();
        tokio::task::spawn_blocking(move || run(&request, limit, &cancel))
            .await
            .map_err(|e| ToolError::new(e.to_string()))?
    }
}

#[async_trait]
impl AgentTool for GrepTool {
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
        self.grep(&args, &cancel).await
    }
}

/// `glob` without leading `./` segments, keeping a leading `!` (Pi's
/// `glob.replace(/^(!?)(?:\.\/)+/, "$1")`).
fn strip_leading_dot_slash(glob: &str) -> String {
    let (negation, mut rest) = match glob.strip_prefix('!') {
        Some(rest) => ("!", rest),
        None => ("", glob),
    };
    let stripped = rest.starts_with("./");
    while let Some(after) = rest.strip_prefix("./") {
        rest = after;
    }
    if stripped {
        format!("{negation}{rest}")
    } else {
        glob.to_owned()
    }
}

/// The blocking part of a call: search, then format like Pi.
fn run(
    request: &SearchRequest,
    limit: f64,
    cancel: &CancellationToken,
) -> Result<ToolOutput, ToolError> {
    let is_dir = match std::fs::metadata(&request.root) {
        Ok(meta) => meta.is_dir(),
        Err(_) => {
            let root = request.root.display();
            return Err(ToolError::new(format!("Path not found: {root}")));
        }
    };
    let gate = request.gate.as_deref();
    // A file root is opened through the gate with every other file the search reads.
    let guarded = match gate {
        Some(gate) if is_dir => {
            let not_found =
                |_| ToolError::new(format!("Path not found: {}", request.root.display()));
            Some(GuardedDir::open(gate, NAME, &request.root, not_found)?)
        }
        _ => None,
    };
    // Taken now: the confined walk cannot look at the secrets outside the roots itself.
    let secrets = gate.map(GatePolicy::secret_inodes).unwrap_or_default();
    let search = || search::search(request, &secrets, cancel);
    let searched = match (&guarded, gate) {
        (Some(_), Some(gate)) => gate.confined_walk(&request.root, search),
        _ => search(),
    };
    let outcome = searched.map_err(|e| match e {
        SearchError::Aborted => ToolError::new(ABORTED),
        SearchError::Failed(message) => ToolError::new(message),
    })?;
    if let (Some(guarded), Some(gate)) = (&guarded, gate) {
        guarded.recheck(gate, NAME)?;
    }
    let secrets_notice = (outcome.secrets_skipped > 0).then(|| {
        format!(
            "{} secret file(s) not searched: rho's gate never reads them",
            outcome.secrets_skipped
        )
    });
    if outcome.match_count == 0 {
        return Ok(match secrets_notice {
            None => ToolOutput::text("No matches found"),
            Some(notice) => ToolOutput {
                details: Some(serde_json::json!({"secretFilesSkipped": outcome.secrets_skipped})),
                ..ToolOutput::text(format!("No matches found\n\n[{notice}]"))
            },
        });
    }
    let mut formatter = Formatter {
        root: &request.root,
        is_dir,
        lines_truncated: false,
    };
    let mut lines = Vec::new();
    for found in &outcome.lines {
        formatter.format(found, &mut lines);
    }
    let limit_notice = outcome.limit_reached.then(|| {
        let notice = format!(
            "{} matches limit reached. Use limit={} for more, or refine pattern",
            js_number(limit),
            js_number(limit * 2.0)
        );
        ("matchLimitReached", limit, notice)
    });
    let lines_notice = formatter.lines_truncated.then(|| {
        let notice = format!(
            "Some lines truncated to {GREP_MAX_LINE_LENGTH} chars. Use read tool to see full lines"
        );
        ("linesTruncated", notice)
    });
    let mut listing = finish(&lines, limit_notice, lines_notice);
    if let Some(notice) = secrets_notice {
        listing.text.push_str(&format!("\n\n[{notice}]"));
        let details = listing
            .details
            .get_or_insert_with(|| Value::Object(Default::default()));
        if let Value::Object(map) = details {
            map.insert(
                "secretFilesSkipped".to_owned(),
                Value::from(outcome.secrets_skipped),
            );
        }
    }
    Ok(ToolOutput {
        details: listing.details,
        ..ToolOutput::text(listing.text)
    })
}

/// Turns matches and context lines into Pi's output lines.
struct Formatter<'a> {
    root: &'a Path,
    is_dir: bool,
    lines_truncated: bool,
}

impl Formatter<'_> {
    /// Appends `path:n: text` for a match, `path-n- text` for a context line.
    fn format(&mut self, found: &FoundLine, out: &mut Vec<String>) {
        // rg sends non-UTF-8 paths as bytes; rho skips them (while still counting the match).
        let Some(display) = self.display_path(&found.path) else {
            return;
        };
        // Only the line terminator goes: a lone CR inside a line is content.
        let text = found.text.strip_suffix('\n').unwrap_or(&found.text);
        let text = text.strip_suffix('\r').unwrap_or(text);
        let shown = self.truncate(text);
        let number = found.line_number;
        if found.is_match {
            out.push(format!("{display}:{number}: {shown}"));
        } else {
            out.push(format!("{display}-{number}- {shown}"));
        }
    }

    /// The path as Pi shows it: relative to a searched directory, else the file name.
    fn display_path(&self, path: &Path) -> Option<String> {
        if self.is_dir
            && let Ok(relative) = path.strip_prefix(self.root)
        {
            let relative = relative.to_str()?;
            // Pi's `!relative.startsWith("..")` also sends names like `..x/y` to the basename.
            if !relative.is_empty() && !relative.starts_with("..") {
                return Some(relative.to_owned());
            }
        }
        path.file_name().and_then(|n| n.to_str()).map(str::to_owned)
    }

    /// Pi's `truncateLine`, remembering that a line was cut.
    fn truncate(&mut self, line: &str) -> String {
        let (text, cut) = truncate_line(line, GREP_MAX_LINE_LENGTH);
        self.lines_truncated |= cut;
        text
    }
}

/// Keeps the first `max` UTF-16 code units of `line` plus `... [truncated]`, as JavaScript's
/// `line.slice(0, max)` does; half a surrogate pair becomes U+FFFD, as Node writes it.
pub fn truncate_line(line: &str, max: usize) -> (String, bool) {
    if line.encode_utf16().count() <= max {
        return (line.to_owned(), false);
    }
    let mut kept = String::new();
    let mut units = 0;
    for c in line.chars() {
        let width = c.len_utf16();
        if units + width > max {
            if units < max {
                kept.push('\u{FFFD}');
            }
            break;
        }
        kept.push(c);
        units += width;
    }
    (format!("{kept}... [truncated]"), true)
}
