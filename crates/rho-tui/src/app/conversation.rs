//! The conversation pane's state: the entries, how far it is scrolled, and how much of thinking
//! and tool output it shows. Entries are only appended, or changed by the events that finish
//! them (a streamed answer, a tool's end); a switch replaces them whole.

use std::time::{Duration, Instant};

use rho_ai::{AssistantMessage, StopReason};
use serde_json::Value;

use crate::transcript::{
    AssistantBlock, AssistantEntry, Entry, ToolEntry, ToolOrigin, ToolStatus, assistant_blocks,
    tool_entry_mut,
};

/// How an agent's tool call ended, as `tool_execution_end` says.
pub(crate) struct ToolEnd {
    pub(crate) is_error: bool,
    pub(crate) duration_ms: Option<u64>,
    pub(crate) output: String,
    pub(crate) details: Option<Value>,
}

/// The conversation and how it is shown.
#[derive(Clone, Debug, Default)]
pub(crate) struct Conversation {
    /// Oldest first.
    entries: Vec<Entry>,
    /// Lines scrolled up from the bottom.
    scroll: usize,
    /// Whether thinking blocks are expanded (Ctrl+T).
    show_thinking: bool,
    /// Whether tool output is shown in full (Ctrl+O).
    expand_tools: bool,
}

impl Conversation {
    pub(crate) fn entries(&self) -> &[Entry] {
        &self.entries
    }

    pub(crate) fn scroll(&self) -> usize {
        self.scroll
    }

    pub(crate) fn show_thinking(&self) -> bool {
        self.show_thinking
    }

    pub(crate) fn expand_tools(&self) -> bool {
        self.expand_tools
    }

    /// A remark of the session or the UI, in the conversation's neutral colour.
    pub(crate) fn notice(&mut self, text: impl Into<String>) {
        self.entries.push(Entry::Notice(text.into()));
    }

    /// A failure the user must see.
    pub(crate) fn error(&mut self, text: impl Into<String>) {
        self.entries.push(Entry::Error(text.into()));
    }

    /// Any finished entry.
    pub(crate) fn push(&mut self, entry: Entry) {
        self.entries.push(entry);
    }

    /// Another session's conversation; back at the bottom.
    pub(crate) fn replace(&mut self, entries: Vec<Entry>) {
        self.entries = entries;
        self.scroll = 0;
    }

    /// Back at the bottom, where new output appears.
    pub(crate) fn scroll_to_bottom(&mut self) {
        self.scroll = 0;
    }

    pub(crate) fn scroll_up(&mut self, lines: usize) {
        self.scroll += lines;
    }

    pub(crate) fn scroll_down(&mut self, lines: usize) {
        self.scroll = self.scroll.saturating_sub(lines);
    }

    pub(crate) fn toggle_thinking(&mut self) {
        self.show_thinking = !self.show_thinking;
    }

    pub(crate) fn toggle_tools(&mut self) {
        self.expand_tools = !self.expand_tools;
    }

    /// An assistant message started streaming: an open entry holds it.
    pub(crate) fn assistant_started(&mut self, message: &AssistantMessage) {
        self.entries.push(Entry::Assistant(AssistantEntry {
            blocks: Vec::new(),
            streaming: true,
        }));
        self.assistant_streamed(message, true);
    }

    /// Mirrors the streamed snapshot into the last assistant entry.
    pub(crate) fn assistant_streamed(&mut self, message: &AssistantMessage, streaming: bool) {
        let Some(Entry::Assistant(entry)) = self.entries.last_mut() else {
            return;
        };
        entry.streaming = streaming;
        entry.blocks = assistant_blocks(message);
    }

    /// An assistant message ended: its entry is closed (and dropped when it showed nothing),
    /// and a failure or an abort is said after it.
    pub(crate) fn assistant_ended(&mut self, message: &AssistantMessage) {
        self.assistant_streamed(message, false);
        if matches!(self.entries.last(), Some(Entry::Assistant(a)) if a.blocks.is_empty()) {
            self.entries.pop();
        }
        match message.stop_reason {
            StopReason::Error => {
                let text = message.error_message.as_deref().unwrap_or("Unknown error");
                self.error(format!("Error: {text}"));
            }
            StopReason::Aborted => self.notice("Aborted"),
            _ => {}
        }
    }

    /// A tool block starts running.
    pub(crate) fn tool_started(
        &mut self,
        origin: ToolOrigin,
        id: String,
        name: String,
        args: Value,
        now: Instant,
    ) {
        self.entries.push(Entry::Tool(ToolEntry {
            origin,
            id,
            name,
            args,
            status: ToolStatus::Running,
            started: now,
            elapsed: None,
            output: String::new(),
            details: None,
            hooks: Vec::new(),
        }));
    }

    /// A hook judged an agent's call: its line goes under the call's block (or stands alone
    /// when the block is not there).
    pub(crate) fn tool_hook(&mut self, id: &str, line: String) {
        match self.tool_mut(ToolOrigin::Agent, id) {
            Some(tool) => tool.hooks.push(line),
            None => self.notice(line),
        }
    }

    /// The newest block of `origin` with `id`.
    pub(crate) fn tool_mut(&mut self, origin: ToolOrigin, id: &str) -> Option<&mut ToolEntry> {
        tool_entry_mut(&mut self.entries, origin, id)
    }

    /// Live output of an agent's tool (`tool_execution_update`).
    pub(crate) fn tool_progress(&mut self, id: &str, output: String) {
        if let Some(tool) = self.tool_mut(ToolOrigin::Agent, id) {
            tool.output = output;
        }
    }

    /// An agent's tool ended (`tool_execution_end`): how, how long it ran (`durationMs` when
    /// it executed, else the time seen), its result text and `details`.
    pub(crate) fn tool_ended(&mut self, id: &str, end: ToolEnd, now: Instant) {
        let Some(tool) = self.tool_mut(ToolOrigin::Agent, id) else {
            return;
        };
        tool.status = ToolStatus::ended(end.is_error, end.duration_ms);
        tool.elapsed = Some(end.duration_ms.map_or_else(
            || now.saturating_duration_since(tool.started),
            Duration::from_millis,
        ));
        tool.output = end.output;
        tool.details = end.details.map(Box::new);
    }

    /// The run ended: its own tools still running were cut off. A `!cmd` of the user's may
    /// still be running beside it and is left alone.
    pub(crate) fn run_ended(&mut self, now: Instant) {
        for entry in &mut self.entries {
            if let Entry::Tool(tool) = entry
                && tool.origin == ToolOrigin::Agent
                && tool.status == ToolStatus::Running
            {
                tool.status = ToolStatus::Cancelled;
                tool.elapsed = Some(now.saturating_duration_since(tool.started));
            }
        }
    }

    /// Whether a `!cmd` is still running.
    pub(crate) fn user_shell_running(&self) -> bool {
        self.entries.iter().any(|entry| {
            matches!(entry, Entry::Tool(tool)
                if tool.origin == ToolOrigin::UserShell && tool.status == ToolStatus::Running)
        })
    }

    /// The text of the newest assistant reply that has any.
    pub(crate) fn last_reply(&self) -> Option<String> {
        self.entries.iter().rev().find_map(|entry| match entry {
            Entry::Assistant(reply) => {
                let texts: Vec<&str> = reply
                    .blocks
                    .iter()
                    .filter_map(|b| match b {
                        AssistantBlock::Text(t) if !t.trim().is_empty() => Some(t.as_str()),
                        _ => None,
                    })
                    .collect();
                (!texts.is_empty()).then(|| texts.join("\n"))
            }
            _ => None,
        })
    }
}
