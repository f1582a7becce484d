//! The `grep` tool (pi-reference §6.5): searches file contents in-process with ripgrep's crates.
//!
//! Pi runs `rg --json --line-number --color=never --hidden [--ignore-case] [--fixed-strings]
//! [--glob G] -- PATTERN PATH` and formats the match events; rho runs the same walk and matcher
//! in-process ([`search`]) and formats the same way. Matches come in path order (rg's own order
//! is whatever its threads finish first).

pub(crate) mod guard;
pub(crate) mod output;
mod search;

use std::io::Read;
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
        let context = number_arg(args, "context")
            .filter(|&c| c > 0.0)
            .unwrap_or(0.0);
        let limit = number_arg(args, "limit").unwrap_or(DEFAULT_LIMIT).max(1.0);
        let request = SearchRequest {
            root,
            glob_root: self.cwd.clone(),
            pattern: pattern.to_owned(),
            ignore_case: flag("ignoreCase"),
            literal: flag("literal"),
            glob: text_arg("glob").map(str::to_owned),
            // The count is compared with `>=`, so a fractional limit rounds up.
            max_matches: limit.ceil() as usize,
            gate: self.gate.clone(),
        };
        let cancel = cancel.clone();
        tokio::task::spawn_blocking(move || run(&request, context, limit, &cancel))
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

/// The blocking part of a call: search, then format like Pi.
fn run(
    request: &SearchRequest,
    context: f64,
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
    let outcome = search::search(request, cancel).map_err(|e| match e {
        SearchError::Aborted => ToolError::new(ABORTED),
        SearchError::Failed(message) => ToolError::new(message),
    })?;
    if let (Some(guarded), Some(gate)) = (&guarded, gate) {
        guarded.recheck(gate, NAME)?;
    }
    if outcome.matches.is_empty() {
        return Ok(ToolOutput::text("No matches found"));
    }
    let mut formatter = Formatter {
        root: &request.root,
        is_dir,
        context,
        lines_truncated: false,
        file_cache: None,
        gate,
    };
    let mut lines = Vec::new();
    for found in &outcome.matches {
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
    let listing = finish(&lines, limit_notice, lines_notice);
    Ok(ToolOutput {
        details: listing.details,
        ..ToolOutput::text(listing.text)
    })
}

/// Turns matches into Pi's output lines.
struct Formatter<'a> {
    root: &'a Path,
    is_dir: bool,
    context: f64,
    lines_truncated: bool,
    /// The last file read for context lines (matches of one file arrive together).
    file_cache: Option<(PathBuf, Vec<String>)>,
    /// Context lines are re-read from the file, through the gate like the search itself.
    gate: Option<&'a GatePolicy>,
}

impl Formatter<'_> {
    /// Appends the line(s) for one match: `path:n: text`, with `path-n- text` context around.
    fn format(&mut self, found: &FoundLine, out: &mut Vec<String>) {
        // rg sends non-UTF-8 paths as bytes, which Pi skips (while still counting the match).
        let Some(display) = self.display_path(&found.path) else {
            return;
        };
        if self.context == 0.0
            && let Some(text) = &found.text
        {
            let line = text.replace("\r\n", "\n").replace('\r', "");
            let line = line.strip_suffix('\n').unwrap_or(&line);
            let shown = self.truncate(line);
            out.push(format!("{display}:{}: {shown}", found.line_number));
            return;
        }
        self.format_block(&display, found, out);
    }

    /// Pi's block: the match line and `context` lines each side, re-read from the file.
    fn format_block(&mut self, display: &str, found: &FoundLine, out: &mut Vec<String>) {
        self.load_file(&found.path);
        // Taken out while formatting so `truncate` can borrow `self`; put back below.
        let cache = self.file_cache.take();
        let lines = cache
            .as_ref()
            .map_or(&[][..], |(_, lines)| lines.as_slice());
        let number = found.line_number as f64;
        if lines.is_empty() {
            out.push(format!(
                "{display}:{}: (unable to read file)",
                found.line_number
            ));
            self.file_cache = cache;
            return;
        }
        let count = lines.len() as f64;
        let (start, end) = if self.context > 0.0 {
            (
                (number - self.context).max(1.0),
                (number + self.context).min(count),
            )
        } else {
            (number, number)
        };
        let mut current = start;
        let mut block = Vec::new();
        while current <= end {
            // A fractional context gives fractional line numbers, which index nothing in Pi.
            let text = if current.fract() == 0.0 {
                lines.get(current as usize - 1).map_or("", String::as_str)
            } else {
                ""
            };
            let shown = self.truncate(text);
            let n = js_number(current);
            if current == number {
                block.push(format!("{display}:{n}: {shown}"));
            } else {
                block.push(format!("{display}-{n}- {shown}"));
            }
            current += 1.0;
        }
        out.extend(block);
        self.file_cache = cache;
    }

    /// The file's lines as Pi splits them (`\r\n`, `\r` and `\n` all end a line); empty if
    /// unreadable.
    fn load_file(&mut self, path: &Path) {
        let cached = matches!(&self.file_cache, Some((p, _)) if p == path);
        if !cached {
            let mut bytes = Vec::new();
            let read = guard::open_file(self.gate, NAME, path)
                .ok()
                .and_then(|mut file| file.read_to_end(&mut bytes).ok());
            let lines = match read.map(|_| bytes) {
                Some(bytes) => String::from_utf8_lossy(&bytes)
                    .replace("\r\n", "\n")
                    .replace('\r', "\n")
                    .split('\n')
                    .map(str::to_owned)
                    .collect(),
                None => Vec::new(),
            };
            self.file_cache = Some((path.to_path_buf(), lines));
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
