//! The `find` tool (pi-reference §6.6): files by glob, in-process with ripgrep's crates.
//!
//! Pi runs `fd --glob --color=never --hidden --no-require-git --max-results LIMIT [--full-path]
//! -- PATTERN PATH`; rho walks with the same `ignore` settings and matches with fd's glob →
//! regex translation (smart case included). Results come in path order, which is what fd prints
//! when it finishes quickly (it sorts a buffered result set); a slow fd streams in thread order.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use globset::GlobBuilder;
use regex::bytes::{Regex, RegexBuilder};
use regex_syntax::hir::{Class, Hir, HirKind};
use rho_agent::{AgentTool, ToolError, ToolOutput, ToolUpdates};
use rho_gate::GatePolicy;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

mod walk;

use crate::tools::grep::guard::GuardedDir;
use crate::tools::grep::output::{finish, js_number, number_arg};
use crate::tools::path::resolve_to_cwd;

/// The tool's name.
const NAME: &str = "find";

/// The description sent to the model (Pi 0.73.1, verbatim).
const DESCRIPTION: &str = "Search for files by glob pattern. Returns matching file paths relative to the search directory. Respects .gitignore. Output is truncated to 1000 results or 50KB (whichever is hit first).";

/// Results returned when the model gives no `limit`.
const DEFAULT_LIMIT: f64 = 1000.0;

/// `Number.MAX_SAFE_INTEGER`, the largest limit Pi passes on.
const MAX_SAFE_INTEGER: f64 = 9_007_199_254_740_991.0;

/// The error text of an aborted call.
const ABORTED: &str = "Operation aborted";

/// Finds files relative to a session's working directory.
pub struct FindTool {
    cwd: PathBuf,
    schema: Value,
    gate: Option<Arc<GatePolicy>>,
}

impl FindTool {
    /// A `find` tool resolving relative paths against `cwd`.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        let schema = json!({
            "type": "object",
            "required": ["pattern"],
            "properties": {
                "pattern": {"type": "string", "description": "Glob pattern relative to the search directory, e.g. 'src/**/*.ts'. Without '/', e.g. '*.ts', it matches file names at any depth"},
                "path": {"type": "string", "description": "Directory to search in (default: current directory)"},
                "limit": {"type": "number", "description": "Maximum number of results (default: 1000)"}
            }
        });
        FindTool {
            cwd: cwd.into(),
            schema,
            gate: None,
        }
    }

    /// Opens the search root through `gate` and checks it again after the walk (the re-check
    /// at open time, see `grep::guard`).
    pub fn with_gate(mut self, gate: impl Into<Option<Arc<GatePolicy>>>) -> Self {
        self.gate = gate.into();
        self
    }

    /// Runs one call: what [`AgentTool::execute`] does, without needing a [`ToolUpdates`].
    ///
    /// `args` is `{pattern, path?, limit?}`.
    pub async fn find(
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
            .ok_or_else(|| ToolError::new("Invalid arguments: \"pattern\" must be a string"))?
            .to_owned();
        let path = args
            .get("path")
            .and_then(Value::as_str)
            .filter(|p| !p.is_empty());
        let root = resolve_to_cwd(path.unwrap_or("."), &self.cwd);
        let limit = number_arg(args, "limit").unwrap_or(DEFAULT_LIMIT);
        let cancel = cancel.clone();
        let gate = self.gate.clone();
        tokio::task::spawn_blocking(move || run(&root, &pattern, limit, &cancel, gate.as_deref()))
            .await
            .map_err(|e| ToolError::new(e.to_string()))?
    }
}

#[async_trait]
impl AgentTool for FindTool {
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
        self.find(&args, &cancel).await
    }
}

/// The blocking part of a call: validate like fd, walk, format like Pi.
fn run(
    root: &Path,
    pattern: &str,
    limit: f64,
    cancel: &CancellationToken,
    gate: Option<&GatePolicy>,
) -> Result<ToolOutput, ToolError> {
    // Pi 1.6: `max(1, floor(limit ?? 1000))`, and fd looks for one result more.
    let limit = limit.floor().clamp(1.0, MAX_SAFE_INTEGER);
    if !root.is_dir() {
        return Err(ToolError::new(format!(
            "[fd error]: Search path '{}' is not a directory.\n[fd error]: No valid search paths given.",
            root.display()
        )));
    }
    let matcher = FdMatcher::new(pattern, root)?;
    let max = Some((limit as usize).saturating_add(1));
    let not_a_dir = |_| {
        ToolError::new(format!(
            "[fd error]: Search path '{}' is not a directory.\n[fd error]: No valid search paths given.",
            root.display()
        ))
    };
    let guarded = gate
        .map(|gate| GuardedDir::open(gate, NAME, root, not_a_dir))
        .transpose()?;
    let mut found = match gate {
        Some(gate) => gate.confined_walk(root, || walk::walk(root, &matcher, max, cancel))?,
        None => walk::walk(root, &matcher, max, cancel)?,
    };
    if let (Some(guarded), Some(gate)) = (&guarded, gate) {
        guarded.recheck(gate, NAME)?;
    }
    if found.is_empty() {
        return Ok(ToolOutput::text("No files found matching pattern"));
    }
    // Only a result past the limit proves that the limit cut results off.
    let reached = found.len() as f64 > limit;
    found.truncate(limit as usize);
    let limit_notice = reached.then(|| {
        let notice = format!(
            "{} results limit reached. Use limit={} for more, or refine pattern",
            js_number(limit),
            js_number(limit * 2.0)
        );
        ("resultLimitReached", limit, notice)
    });
    let listing = finish(&found, limit_notice, None);
    Ok(ToolOutput {
        details: listing.details,
        ..ToolOutput::text(listing.text)
    })
}

/// fd's `--glob` matcher for Pi 1.6's pattern: on the file name, or on the whole path when the
/// pattern contains `/`; a relative path pattern is anchored at the search directory.
struct FdMatcher {
    regex: Option<Regex>,
    full_path: bool,
}

impl FdMatcher {
    /// Translates the pattern like Pi and fd; a bad glob fails with fd's message.
    fn new(pattern: &str, root: &Path) -> Result<Self, ToolError> {
        let mut pattern = pattern;
        while let Some(rest) = pattern.strip_prefix("./") {
            pattern = rest;
        }
        let full_path = pattern.contains('/');
        let relative_path = full_path && !pattern.starts_with('/');
        // Pi passes `--ignore-case` for an all-lower-case relative path pattern; otherwise fd's
        // smart case reads the (anchored) pattern.
        let lower_case = pattern.to_lowercase() == pattern;
        let effective = if relative_path {
            let root = root.to_string_lossy();
            format!("{}/{pattern}", escape_glob(root.trim_end_matches('/')))
        } else {
            pattern.to_owned()
        };
        if effective.is_empty() {
            // fd treats an empty pattern as "match everything".
            return Ok(FdMatcher {
                regex: None,
                full_path,
            });
        }
        let fd_error = |e: &dyn std::fmt::Display| ToolError::new(format!("[fd error]: {e}"));
        let glob = GlobBuilder::new(&effective)
            .literal_separator(true)
            .build()
            .map_err(|e| fd_error(&e))?;
        let source = glob.regex();
        let case_sensitive = !(relative_path && lower_case) && has_uppercase(source);
        let regex = RegexBuilder::new(source)
            .case_insensitive(!case_sensitive)
            .dot_matches_new_line(true)
            .build()
            .map_err(|e| fd_error(&e))?;
        Ok(FdMatcher {
            regex: Some(regex),
            full_path,
        })
    }

    /// Whether fd prints `path` for this pattern.
    fn is_match(&self, path: &Path) -> bool {
        use std::os::unix::ffi::OsStrExt;
        let Some(regex) = &self.regex else {
            return true;
        };
        let subject = if self.full_path {
            path.as_os_str()
        } else {
            path.file_name().unwrap_or(path.as_os_str())
        };
        regex.is_match(subject.as_bytes())
    }
}

/// `text` with glob metacharacters escaped (Pi: `replace(/[\\*?[\]{}]/g, "\\$&")`).
fn escape_glob(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '\\' | '*' | '?' | '[' | ']' | '{' | '}') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// fd's smart case: case-sensitive exactly when the regex has an uppercase literal or class end.
fn has_uppercase(source: &str) -> bool {
    fn walk(hir: &Hir) -> bool {
        match hir.kind() {
            HirKind::Literal(literal) => String::from_utf8_lossy(&literal.0)
                .chars()
                .any(char::is_uppercase),
            HirKind::Class(Class::Unicode(ranges)) => ranges
                .iter()
                .any(|r| r.start().is_uppercase() || r.end().is_uppercase()),
            HirKind::Class(Class::Bytes(ranges)) => ranges.iter().any(|r| {
                char::from(r.start()).is_uppercase() || char::from(r.end()).is_uppercase()
            }),
            HirKind::Capture(capture) => walk(&capture.sub),
            HirKind::Repetition(repetition) => walk(&repetition.sub),
            HirKind::Concat(hirs) | HirKind::Alternation(hirs) => hirs.iter().any(walk),
            HirKind::Empty | HirKind::Look(_) => false,
        }
    }
    regex_syntax::ParserBuilder::new()
        .utf8(false)
        .build()
        .parse(source)
        .is_ok_and(|hir| walk(&hir))
}
