//! The hook events, with Claude Code's names, and the names of rho's tools Claude Code's
//! matchers use.

use serde::Serialize;

/// When a hook runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum HookEvent {
    /// Before a tool call runs, after its arguments are validated (the seed's `beforeToolCall`).
    PreToolUse,
    /// After a tool call ran, before its result is final (the seed's `afterToolCall`).
    PostToolUse,
    /// Before a prompt reaches the model.
    UserPromptSubmit,
    /// When a run would end because the model stopped.
    Stop,
    /// Before a session's first prompt.
    SessionStart,
    /// When a session ends.
    SessionEnd,
    /// Before a compaction.
    PreCompact,
    /// When rho needs the user (an approval).
    Notification,
}

impl HookEvent {
    /// Every event, in the order the README lists them.
    pub const ALL: [HookEvent; 8] = [
        HookEvent::PreToolUse,
        HookEvent::PostToolUse,
        HookEvent::UserPromptSubmit,
        HookEvent::Stop,
        HookEvent::SessionStart,
        HookEvent::SessionEnd,
        HookEvent::PreCompact,
        HookEvent::Notification,
    ];

    /// Claude Code's name of the event.
    pub fn name(self) -> &'static str {
        match self {
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
            HookEvent::Stop => "Stop",
            HookEvent::SessionStart => "SessionStart",
            HookEvent::SessionEnd => "SessionEnd",
            HookEvent::PreCompact => "PreCompact",
            HookEvent::Notification => "Notification",
        }
    }

    /// The event called `name`.
    pub fn from_name(name: &str) -> Option<HookEvent> {
        HookEvent::ALL.into_iter().find(|e| e.name() == name)
    }

    /// Whether a matcher of this event names tools (otherwise it names the event's source,
    /// trigger or kind).
    pub fn matches_tools(self) -> bool {
        matches!(self, HookEvent::PreToolUse | HookEvent::PostToolUse)
    }
}

/// The names Claude Code's matchers use for a rho tool (`Bash` for `bash`, `Glob` for `find`
/// …); none for tools Claude Code does not have.
pub fn claude_names(tool: &str) -> &'static [&'static str] {
    match tool {
        "bash" => &["Bash"],
        "read" => &["Read"],
        "edit" => &["Edit", "MultiEdit"],
        "write" => &["Write"],
        "grep" => &["Grep"],
        "find" => &["Glob"],
        "ls" => &["LS"],
        _ => &[],
    }
}
