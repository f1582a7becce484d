//! The facts behind the status line: model, thinking level, context, cost, cwd, queues and the
//! session's retry and compaction notices.

use std::path::{Path, PathBuf};
use std::time::Instant;

use rho_ai::ThinkingLevel;
use rho_stdx::js::to_fixed;

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

/// Everything the status line and the notice line show. Read through its accessors; only the
/// app changes it, through the methods named after what happened.
#[derive(Clone, Debug, PartialEq)]
pub struct Status {
    /// What the session was started with (model and thinking level follow the user's picks).
    info: SessionInfo,
    /// Input tokens of every assistant message so far.
    input: u64,
    /// Output tokens so far.
    output: u64,
    /// Cache-read tokens so far.
    cache_read: u64,
    /// Cache-write tokens so far.
    cache_write: u64,
    /// Cost so far in USD.
    cost: f64,
    /// Tokens of the context at the last model answer; `None` when unknown (after compaction).
    context_tokens: Option<u64>,
    /// Pending steering texts.
    steering: Vec<String>,
    /// Pending follow-up texts.
    follow_up: Vec<String>,
    /// A retry wait in progress.
    retry: Option<RetryWait>,
    /// A compaction in progress, with the words that announce it.
    compacting: Option<String>,
    /// The git branch of the working directory (`detached` on a detached HEAD); `None`
    /// outside a repository.
    git_branch: Option<String>,
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

    /// The same status, showing `branch` as the working directory's git branch.
    pub fn with_git_branch(mut self, branch: Option<String>) -> Self {
        self.git_branch = branch;
        self
    }

    /// The session's model, thinking level, context window and directory.
    pub fn info(&self) -> &SessionInfo {
        &self.info
    }

    /// Input tokens of every assistant message so far.
    pub fn input(&self) -> u64 {
        self.input
    }

    /// Output tokens so far.
    pub fn output(&self) -> u64 {
        self.output
    }

    /// Cache-read tokens so far.
    pub fn cache_read(&self) -> u64 {
        self.cache_read
    }

    /// Cache-write tokens so far.
    pub fn cache_write(&self) -> u64 {
        self.cache_write
    }

    /// Cost so far in USD.
    pub fn cost(&self) -> f64 {
        self.cost
    }

    /// Tokens of the context at the last model answer; `None` when unknown (after compaction).
    pub fn context_tokens(&self) -> Option<u64> {
        self.context_tokens
    }

    /// Pending steering texts.
    pub fn steering(&self) -> &[String] {
        &self.steering
    }

    /// Pending follow-up texts.
    pub fn follow_up(&self) -> &[String] {
        &self.follow_up
    }

    /// The retry wait in progress.
    pub fn retry(&self) -> Option<&RetryWait> {
        self.retry.as_ref()
    }

    /// The words announcing the compaction in progress.
    pub fn compacting(&self) -> Option<&str> {
        self.compacting.as_deref()
    }

    /// The git branch of the working directory.
    pub fn git_branch(&self) -> Option<&str> {
        self.git_branch.as_deref()
    }

    /// The share of the context window in use, in percent, when both numbers are known.
    pub fn context_percent(&self) -> Option<f64> {
        let tokens = self.context_tokens?;
        (self.info.context_window > 0)
            .then(|| tokens as f64 * 100.0 / self.info.context_window as f64)
    }

    /// Counts one assistant message's tokens and cost into the totals.
    fn add_usage(&mut self, usage: &rho_ai::Usage) {
        self.input += usage.input;
        self.output += usage.output;
        self.cache_read += usage.cache_read;
        self.cache_write += usage.cache_write;
        self.cost += usage.cost.total;
    }

    /// An assistant message ended: its usage counts, and an answer that did not fail or abort
    /// tells how large the context now is.
    pub(crate) fn assistant_ended(&mut self, assistant: &rho_ai::AssistantMessage) {
        let usage = &assistant.usage;
        self.add_usage(usage);
        if !matches!(
            assistant.stop_reason,
            rho_ai::StopReason::Error | rho_ai::StopReason::Aborted
        ) {
            let tokens = usage.input + usage.output + usage.cache_read + usage.cache_write;
            self.context_tokens = Some(tokens);
        }
    }

    /// The session's queues as its `queue_update` lists them.
    pub(crate) fn set_queues(&mut self, steering: Vec<String>, follow_up: Vec<String>) {
        self.steering = steering;
        self.follow_up = follow_up;
    }

    /// Takes the queued texts out, steering first.
    pub(crate) fn take_queued(&mut self) -> Vec<String> {
        let mut queued = std::mem::take(&mut self.steering);
        queued.append(&mut self.follow_up);
        queued
    }

    /// A retry wait began.
    pub(crate) fn retry_started(&mut self, wait: RetryWait) {
        self.retry = Some(wait);
    }

    /// The retry wait is over (the retry ran, failed for good, or the run settled).
    pub(crate) fn retry_ended(&mut self) {
        self.retry = None;
    }

    /// A compaction began, announced with `label`.
    pub(crate) fn compaction_started(&mut self, label: &str) {
        self.compacting = Some(label.to_owned());
    }

    /// The compaction ended; when it `compacted`, the context's size is unknown until the next
    /// answer.
    pub(crate) fn compaction_ended(&mut self, compacted: bool) {
        self.compacting = None;
        if compacted {
            self.context_tokens = None;
        }
    }

    /// The thinking level now in effect.
    pub(crate) fn set_thinking(&mut self, level: ThinkingLevel) {
        self.info.thinking = level;
    }

    /// The model now in use, with the thinking level it came with.
    pub(crate) fn set_model(&mut self, model: &crate::slash::ModelOption, thinking: ThinkingLevel) {
        self.info.provider = model.provider.clone();
        self.info.model_id = model.id.clone();
        self.info.reasoning = model.reasoning;
        self.info.context_window = model.context_window;
        self.info.thinking = thinking;
    }

    /// Whether compaction now runs on its own.
    pub(crate) fn set_auto_compact(&mut self, enabled: bool) {
        self.info.auto_compact = enabled;
    }

    /// The status of another session (`info`) whose `assistants` were already spent; the git
    /// branch stays, as the directory does.
    pub(crate) fn switched<'a>(
        &self,
        info: SessionInfo,
        assistants: impl Iterator<Item = &'a rho_ai::AssistantMessage>,
    ) -> Status {
        let mut status = Status::new(info).with_git_branch(self.git_branch.clone());
        for assistant in assistants {
            status.add_usage(&assistant.usage);
        }
        status
    }
}

/// Pi's token count format: `999`, `1.2k`, `45k`, `1.5M`, `12M`.
pub fn format_tokens(count: u64) -> String {
    match count {
        0..1_000 => count.to_string(),
        1_000..10_000 => format!("{}k", to_fixed(count as f64 / 1_000.0, 1)),
        10_000..1_000_000 => format!("{}k", (count as f64 / 1_000.0).round()),
        1_000_000..10_000_000 => format!("{}M", to_fixed(count as f64 / 1_000_000.0, 1)),
        _ => format!("{}M", (count as f64 / 1_000_000.0).round()),
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
