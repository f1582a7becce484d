//! Sessions in the UI (Pi's `/resume`, `/new`, `/fork`, `/tree`): the pickers' state and keys,
//! and the [`SessionSwitcher`] through which the binary lists session files and replaces the
//! running session. The UI never touches a session file itself: listing, locking, forking,
//! moving the leaf and writing labels are the binary's, so they stay shared with the RPC mode.

pub mod fork;
pub mod picker;
mod rename;
pub mod replay;
pub mod resume_order;
mod resume_view;
pub mod tree;
pub mod tree_filter;
mod tree_label;
pub mod view;
mod widgets;

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use async_trait::async_trait;
use rho_agent::AgentMessage;
use rho_host::AgentSession;

use crate::status::SessionInfo;

pub use fork::ForkPicker;
pub use picker::{PickerStatus, SessionFileChange, SessionPicker};
pub use rename::RenameInput;
pub use resume_order::{NameFilter, SortMode};
pub use tree::TreeView;
pub use tree_filter::TreeFilter;
pub use tree_label::{LabelChange, LabelInput};

/// One session file as the `/resume` picker lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct SessionRow {
    /// The file.
    pub path: PathBuf,
    /// The session's name, when it has one (shown instead of the first message, as Pi does).
    pub name: Option<String>,
    /// The first user message, or `(no messages)`.
    pub first_message: String,
    /// The working directory it ran in.
    pub cwd: String,
    /// The last activity.
    pub modified: SystemTime,
    /// The number of message entries.
    pub message_count: usize,
    /// The file's size in bytes.
    pub size: u64,
    /// The session it was forked from (the header's `parentSession`), under which the threaded
    /// sort lists it.
    pub parent: Option<PathBuf>,
}

/// A user message `/fork` can start a new session before.
#[derive(Clone, Debug, PartialEq)]
pub struct ForkPoint {
    /// The message's entry id.
    pub entry_id: String,
    /// Its text.
    pub text: String,
}

/// One entry of the session tree, in display order (depth first, file order among siblings).
/// Every entry of the file has a row; the navigator's [`TreeFilter`] picks the ones shown.
#[derive(Clone, Debug, PartialEq)]
pub struct TreeRow {
    /// The entry id.
    pub entry_id: String,
    /// Its parent entry (`None`: a root), so that a row whose parent is filtered out hangs under
    /// the nearest shown ancestor.
    pub parent_id: Option<String>,
    /// What kind of entry it is, as the filters tell them apart.
    pub kind: TreeEntryKind,
    /// The line shown for it: `user: "…"`, `assistant: "…"`, `[model: p/id]`, `[label: x]`, …
    pub text: String,
    /// Its label, if one is set (the latest `label` entry targeting it; an empty one clears).
    pub label: Option<String>,
    /// Whether it is the current leaf.
    pub current: bool,
    /// Whether it lies on the path from the root to the current leaf.
    pub on_branch: bool,
}

/// The kinds of entries Pi's tree filters tell apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TreeEntryKind {
    /// A `message` entry with role `user`.
    UserMessage,
    /// A `message` entry with role `toolResult`.
    ToolResult,
    /// Any other part of the conversation: assistant and other messages, extension messages,
    /// compactions, branch summaries, entry types rho does not know.
    Conversation,
    /// What Pi's default view hides: `label`, `custom`, `model_change`,
    /// `thinking_level_change` and `session_info` entries.
    Bookkeeping,
}

/// What the user asked to switch to.
#[derive(Clone, Debug, PartialEq)]
pub enum SwitchRequest {
    /// `/resume`: continue the session in this file.
    Open(PathBuf),
    /// `/new`: a fresh session in a new file.
    New,
    /// `/fork`: a new file holding the session up to before this user message.
    Fork(String),
    /// `/tree`: move the leaf of the current file to this entry, recording a summary of the
    /// branch left behind when `summarize` (Pi's "Summarize branch?").
    Branch {
        /// The picked entry.
        entry_id: String,
        /// Whether the model summarises the abandoned branch first.
        summarize: bool,
    },
}

/// The running session after a switch.
pub struct Switched {
    /// The session the UI talks to from now on; `None`: the same one (a branch switch).
    pub session: Option<AgentSession>,
    /// What the status line shows for it.
    pub info: SessionInfo,
    /// Its transcript, to show as the conversation.
    pub messages: Vec<AgentMessage>,
    /// Text to put in the editor (a forked or re-branched user message).
    pub editor_text: Option<String>,
    /// A line for the conversation saying what happened.
    pub notice: String,
    /// Warnings of the switch (a recorded model that is gone, a repaired file), one line each.
    pub warnings: Vec<String>,
}

/// The binary's side of switching sessions. Its calls are made beside the UI task, one at a
/// time and in the order the user asked for them: the plain methods on tokio's blocking pool, so
/// they may read and write files; [`SessionSwitcher::switch`] on a task of its own, which should
/// move its own blocking work off the runtime.
#[async_trait]
pub trait SessionSwitcher: Send + Sync {
    /// The sessions of this working directory (`all`: of every directory), newest first.
    fn list(&self, all: bool) -> Vec<SessionRow>;
    /// The user messages of the current session, oldest first.
    fn fork_points(&self) -> Vec<ForkPoint>;
    /// The current session's tree: a row for every entry of its file.
    fn tree(&self) -> Vec<TreeRow>;
    /// The filter `/tree` opens with (the `treeFilterMode` setting).
    fn tree_filter(&self) -> TreeFilter {
        TreeFilter::Default
    }
    /// Sets (`Some`, non-empty) or clears the label of entry `entry_id` by appending a `label`
    /// entry to the session file. `Err` is a message for the user.
    fn set_label(&self, entry_id: &str, label: Option<&str>) -> Result<(), String>;
    /// The file of the session rho has open, which the `/resume` picker refuses to delete.
    fn current_session(&self) -> Option<PathBuf> {
        None
    }
    /// Deletes the session file `path` (Pi: to the trash when a `trash` command is there, else
    /// for good). The open session and a file another rho process has open are refused. `Err`
    /// is a message for the user.
    fn delete_session(&self, path: &Path) -> Result<Deleted, String>;
    /// Names the session in `path` by appending a `session_info` entry to its file (the open
    /// session's through its own writer). `Err` is a message for the user.
    fn rename_session(&self, path: &Path, name: &str) -> Result<(), String>;
    /// Replaces (or re-branches) the running session; the old run is aborted first. `Err` is a
    /// message for the user, and the old session stays as it was.
    async fn switch(&self, request: SwitchRequest) -> Result<Switched, String>;
}

/// Where a deleted session went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Deleted {
    /// Moved to the trash by the `trash` command.
    Trashed,
    /// Removed for good.
    Removed,
}

impl Deleted {
    /// What the picker says about it (Pi's words).
    pub fn message(self) -> &'static str {
        match self {
            Deleted::Trashed => "Session moved to trash",
            Deleted::Removed => "Session deleted",
        }
    }
}

/// The sessions overlay on screen, which takes every key while open.
#[derive(Clone, Debug)]
pub enum SessionsOverlay {
    /// `/resume`.
    Resume(SessionPicker),
    /// `/fork`.
    Fork(ForkPicker),
    /// `/tree`.
    Tree(TreeView),
}

/// What a key did to an overlay.
#[derive(Clone, Debug, PartialEq)]
pub enum OverlayOutcome {
    /// Still open.
    Open,
    /// Closed without a choice.
    Cancelled,
    /// Closed with this choice.
    Chosen(SwitchRequest),
    /// Closed with a remark for the conversation (Pi's "Already at this point").
    Remark(String),
    /// Still open; this label (already shown) is to be saved and the tree's rows reloaded.
    SaveLabel(LabelChange),
    /// Still open; this change is to be made to a session file and the list reloaded.
    ChangeSessionFile(SessionFileChange),
}

impl SessionsOverlay {
    /// Handles one key.
    pub fn on_key(&mut self, key: crossterm::event::KeyEvent) -> OverlayOutcome {
        match self {
            SessionsOverlay::Resume(picker) => picker.on_key(key),
            SessionsOverlay::Fork(picker) => picker.on_key(key),
            SessionsOverlay::Tree(tree) => tree.on_key(key),
        }
    }
}
