//! What the conversation pane shows, as plain data: the reducer builds it from session events and
//! the view renders it, so neither needs the other to be tested.

use std::time::{Duration, Instant};

use rho_ai::{AssistantMessage, ContentBlock};
use serde_json::Value;

/// One block of the conversation, in the order it happened.
#[derive(Clone, Debug, PartialEq)]
pub enum Entry {
    /// A message the user sent (a prompt, or a steering / follow-up message once delivered).
    User(String),
    /// One assistant message, streaming or finished.
    Assistant(AssistantEntry),
    /// One tool call, from `tool_execution_start` to `tool_execution_end`.
    Tool(ToolEntry),
    /// A failure the user must see (a model error, a failed retry chain, a refused prompt).
    Error(String),
    /// A neutral remark of the session (aborted run, compaction done).
    Notice(String),
    /// A summary standing in for history the model no longer sees whole (a compaction's, or
    /// the branch left behind by a tree switch); collapsed unless Ctrl+O expands tool output.
    Summary(SummaryEntry),
}

/// A compaction or branch summary as shown.
#[derive(Clone, Debug, PartialEq)]
pub struct SummaryEntry {
    /// Which kind of summary.
    pub kind: SummaryKind,
    /// The summary text (Markdown).
    pub summary: String,
}

/// What a summary stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SummaryKind {
    /// A compaction of the context, which held `tokens_before` tokens.
    Compaction {
        /// The estimated context tokens before compacting.
        tokens_before: u64,
    },
    /// The branch left by a `/tree` switch.
    Branch,
}

/// An assistant message's visible parts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AssistantEntry {
    /// Text and thinking blocks in stream order (tool calls are shown as their own entries).
    pub blocks: Vec<AssistantBlock>,
    /// Whether deltas may still arrive.
    pub streaming: bool,
}

/// A visible block of an assistant message.
#[derive(Clone, Debug, PartialEq)]
pub enum AssistantBlock {
    /// Answer text, rendered as Markdown.
    Text(String),
    /// Reasoning, collapsed unless the thinking toggle is on.
    Thinking(String),
}

/// Where a tool call stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolStatus {
    /// Between `tool_execution_start` and `tool_execution_end`.
    Running,
    /// Executed and succeeded.
    Done,
    /// Executed and failed.
    Failed,
    /// Never executed: refused before running (gate, unknown tool, invalid arguments).
    Refused,
    /// The run was aborted before the call ended.
    Cancelled,
}

impl ToolStatus {
    /// How a call ended, from its result: an error with a duration ran and failed; an error
    /// without one never ran (refused in preflight).
    pub fn ended(is_error: bool, duration_ms: Option<u64>) -> Self {
        match (is_error, duration_ms) {
            (false, _) => ToolStatus::Done,
            (true, Some(_)) => ToolStatus::Failed,
            (true, None) => ToolStatus::Refused,
        }
    }
}

/// The newest tool block of `origin` with `id` among `entries`.
pub fn tool_entry_mut<'a>(
    entries: &'a mut [Entry],
    origin: ToolOrigin,
    id: &str,
) -> Option<&'a mut ToolEntry> {
    entries.iter_mut().rev().find_map(|entry| match entry {
        Entry::Tool(tool) if tool.origin == origin && tool.id == id => Some(tool),
        _ => None,
    })
}

/// The text blocks of a message's content, one per line.
pub fn blocks_text(blocks: &[rho_ai::ContentBlock]) -> String {
    let texts: Vec<&str> = blocks
        .iter()
        .filter_map(rho_ai::ContentBlock::as_text)
        .collect();
    texts.join("\n")
}

/// Who started a tool block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolOrigin {
    /// A call of the model's, run by the agent; its `id` is the `toolCallId`.
    Agent,
    /// A `!cmd` the user typed, run beside the agent; its `id` is the run's number. The end of
    /// the agent's run leaves it running.
    UserShell,
}

/// One tool call as shown.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolEntry {
    /// Who started it: the model's call or the user's `!cmd`.
    pub origin: ToolOrigin,
    /// The key that ties the start to its end among blocks of the same origin: the
    /// `toolCallId` of an agent's call, the run number of a `!cmd`.
    pub id: String,
    /// The tool name.
    pub name: String,
    /// The raw arguments.
    pub args: Value,
    /// Where it stands.
    pub status: ToolStatus,
    /// When the reducer saw it start.
    pub started: Instant,
    /// How long it ran: `durationMs` when it executed, else the time the reducer saw.
    pub elapsed: Option<Duration>,
    /// Live output (`tool_execution_update`), then the result text.
    pub output: String,
    /// The result's `details` (`edit`'s `diff`, `bash`'s truncation), once it ended; boxed, as
    /// most calls have none and every entry would otherwise pay for it.
    pub details: Option<Box<Value>>,
    /// What the hooks that judged it said, one line each.
    pub hooks: Vec<String>,
}

impl ToolEntry {
    /// The argument that says what the call does, for the block's title.
    pub fn key_argument(&self) -> Option<String> {
        let preferred: &[&str] = match self.name.as_str() {
            "bash" => &["command"],
            "read" | "write" | "edit" | "ls" => &["path", "file_path"],
            "grep" | "find" => &["pattern", "path"],
            _ => &[],
        };
        let object = self.args.as_object()?;
        let pick = |key: &&str| object.get(*key).and_then(Value::as_str);
        preferred
            .iter()
            .find_map(pick)
            .or_else(|| object.values().find_map(Value::as_str))
            .map(str::to_owned)
    }
}

/// The text and thinking blocks of an assistant message, in order (tool calls get their own
/// blocks from the tool events).
pub fn assistant_blocks(message: &AssistantMessage) -> Vec<AssistantBlock> {
    message
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text(t) => Some(AssistantBlock::Text(t.text.clone())),
            ContentBlock::Thinking(t) => Some(AssistantBlock::Thinking(t.thinking.clone())),
            _ => None,
        })
        .collect()
}
