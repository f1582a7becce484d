//! The facts behind the status line: model, thinking level, context, cost, cwd, queues and the
//! session's retry and compaction notices.

use std::path::{Path, PathBuf};
use std::time::Instant;

use rho_ai::ThinkingLevel;

/// What the interactive mode is told about the session when it starts.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionInfo {
    /// The provider of the model.
    pub provider: String,
    /// The model id.
    pub model_id: String,
    /// Whether the model reasons (Pi shows the thinking level only then).
    pub reasoning: bool,
    /// The starting thinking level.
    pub thinking: ThinkingLevel,
    /// The model's context window in tokens (0 when unknown).
    pub context_window: u64,
    /// Whether compaction runs on its own (Pi's `(auto)` mark).
    pub auto_compact: bool,
    /// The working directory, already shortened for display (`~` for the home directory).
    pub cwd: String,
}

/// A retry wait announced by `auto_retry_start`.
#[derive(Clone, Debug, PartialEq)]
pub struct RetryWait {
    /// 1-based attempt.
    pub attempt: u32,
    /// Most attempts.
    pub max_attempts: u32,
    /// When the wait ends.
    pub until: Instant,
}

impl RetryWait {
    /// Whole seconds left, rounded up (Pi's countdown).
    pub fn seconds_left(&self, now: Instant) -> u64 {
        let left = self.until.saturating_duration_since(now);
        left.as_millis().div_ceil(1000) as u64
    }
}

/// Everything the status line and the notice line show.
#[derive(Clone, Debug, PartialEq)]
pub struct Status {
    /// What the session was started with.
    pub info: SessionInfo,
    /// Input tokens of every assistant message so far.
    pub input: u64,
    /// Output tokens so far.
    pub output: u64,
    /// Cache-read tokens so far.
    pub cache_read: u64,
    /// Cache-write tokens so far.
    pub cache_write: u64,
    /// Cost so far in USD.
    pub cost: f64,
    /// Tokens of the context at the last model answer; `None` when unknown (after compaction).
    pub context_tokens: Option<u64>,
    /// Pending steering texts.
    pub steering: Vec<String>,
    /// Pending follow-up texts.
    pub follow_up: Vec<String>,
    /// A retry wait in progress.
    pub retry: Option<RetryWait>,
    /// A compaction in progress, with the words that announce it.
    pub compacting: Option<String>,
    /// The git branch of the working directory (`detached` on a detached HEAD); `None`
    /// outside a repository.
    pub git_branch: Option<String>,
}

impl Status {
    /// A status with nothing spent yet.
    pub fn new(info: SessionInfo) -> Self {
        Status {
            info,
            input: 0,
            output: 0,
            cache_read: 0,
            cache_write: 0,
            cost: 0.0,
            context_tokens: None,
            steering: Vec::new(),
            follow_up: Vec::new(),
            retry: None,
            compacting: None,
            git_branch: None,
        }
    }

    /// Counts one assistant message's tokens and cost into the totals.
    pub fn add_usage(&mut self, usage: &rho_ai::Usage) {
        self.input += usage.input;
        self.output += usage.output;
        self.cache_read += usage.cache_read;
        self.cache_write += usage.cache_write;
        self.cost += usage.cost.total;
    }

    /// The share of the context window in use, in percent, when both numbers are known.
    pub fn context_percent(&self) -> Option<f64> {
        let tokens = self.context_tokens?;
        (self.info.context_window > 0)
            .then(|| tokens as f64 * 100.0 / self.info.context_window as f64)
    }
}

/// Pi's token count format: `999`, `1.2k`, `45k`, `1.5M`, `12M`.
pub fn format_tokens(count: u64) -> String {
    match count {
        0..1_000 => count.to_string(),
        1_000..10_000 => format!("{:.1}k", count as f64 / 1_000.0),
        10_000..1_000_000 => format!("{}k", (count as f64 / 1_000.0).round()),
        1_000_000..10_000_000 => format!("{:.1}M", count as f64 / 1_000_000.0),
        _ => format!("{}M", (count as f64 / 1_000_000.0).round()),
    }
}

/// The thinking level as Pi names it.
pub fn thinking_name(level: ThinkingLevel) -> &'static str {
    match level {
        ThinkingLevel::Off => "off",
        ThinkingLevel::Minimal => "minimal",
        ThinkingLevel::Low => "low",
        ThinkingLevel::Medium => "medium",
        ThinkingLevel::High => "high",
        ThinkingLevel::Xhigh => "xhigh",
    }
}

/// The branch checked out in the repository holding `cwd`, read from `HEAD` (no `git`
/// process: start-up must stay fast). `.git` may be a directory or, in a worktree or a
/// submodule, a file saying `gitdir: <path>`. A detached HEAD is `detached`, as Pi shows it.
pub fn git_branch(cwd: &Path) -> Option<String> {
    let git_dir = find_git_dir(cwd)?;
    let head = std::fs::read_to_string(git_dir.join("HEAD")).ok()?;
    let head = head.trim();
    match head.strip_prefix("ref:") {
        Some(reference) => {
            let reference = reference.trim();
            let name = reference.strip_prefix("refs/heads/").unwrap_or(reference);
            (!name.is_empty()).then(|| name.to_owned())
        }
        None if !head.is_empty() => Some("detached".to_owned()),
        None => None,
    }
}

/// The git directory for `cwd`: the nearest `.git` walking up, followed through `gitdir:`.
fn find_git_dir(cwd: &Path) -> Option<PathBuf> {
    for dir in cwd.ancestors() {
        let dot_git = dir.join(".git");
        let Ok(meta) = std::fs::metadata(&dot_git) else {
            continue;
        };
        if meta.is_dir() {
            return Some(dot_git);
        }
        let text = std::fs::read_to_string(&dot_git).ok()?;
        let target = text
            .lines()
            .find_map(|line| line.strip_prefix("gitdir:"))?
            .trim();
        let target = Path::new(target);
        return Some(if target.is_absolute() {
            target.to_path_buf()
        } else {
            dir.join(target)
        });
    }
    None
}
