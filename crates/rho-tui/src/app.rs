//! The interactive mode's state and its one reducer: every session event goes through
//! [`App::apply`], so a whole run can be replayed in a test without a terminal.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use rho_agent::{AgentEvent, AgentMessage};
use rho_ai::StopReason;
use rho_host::compaction::CompactionReason;
use rho_host::{SessionEvent, SessionNotice};
use serde_json::Value;

use crate::editor::Editor;
use crate::status::{RetryWait, SessionInfo, Status};
use crate::transcript::{AssistantEntry, Entry, SummaryEntry, SummaryKind, ToolEntry, ToolStatus};

/// The interactive mode's whole state; the view renders it, nothing else.
#[derive(Clone, Debug)]
pub struct App {
    /// The conversation, oldest first.
    pub transcript: Vec<Entry>,
    /// The status line's facts.
    pub status: Status,
    /// The prompt editor.
    pub editor: Editor,
    /// Whether thinking blocks are expanded (Ctrl+T).
    pub show_thinking: bool,
    /// Whether tool output is shown in full (Ctrl+O).
    pub expand_tools: bool,
    /// A prompt is running: Enter steers, Alt+Enter queues a follow-up, Escape aborts.
    pub working: bool,
    /// When the run started, for the working indicator.
    pub working_since: Option<Instant>,
    /// Lines scrolled up from the bottom of the conversation.
    pub scroll: usize,
    /// When Ctrl+C last cleared the editor (a second one within [`DOUBLE_PRESS`] exits).
    pub last_ctrl_c: Option<Instant>,
    /// Prompts from the command line, sent one after another.
    pub pending_prompts: VecDeque<String>,
    /// Set when the user asked to leave.
    pub exit: bool,
    /// Commands waiting for approval; the first is on screen.
    pub approvals: VecDeque<crate::approval::ApprovalDialog>,
    /// The `@` file list under the editor, while open.
    pub completion: Option<crate::completion::Completion>,
    /// The files `@` completes, once walked (`None` until the first `@`).
    pub files: Option<crate::completion::FileIndex>,
    /// When Escape was last pressed while working (a second within [`DOUBLE_PRESS`] also
    /// clears the queue).
    pub last_escape: Option<Instant>,
    /// A session switch is running: messages wait in the editor until it is done, so none
    /// reaches the session being replaced.
    pub switching: bool,
    /// `!cmd` runs started, for their entries' ids.
    pub shell_runs: u64,
    /// The `/resume`, `/fork` or `/tree` overlay, while open.
    pub sessions: Option<crate::sessions::SessionsOverlay>,
    /// `/` commands, the model picker, the keybindings and the theme.
    pub commands: crate::slash::Commands,
}

/// Two presses of Ctrl+C closer than this exit (Pi: 500 ms).
pub const DOUBLE_PRESS: Duration = Duration::from_millis(500);

impl App {
    /// A fresh app for a session described by `info`.
    pub fn new(info: SessionInfo) -> Self {
        App {
            transcript: Vec::new(),
            status: Status::new(info),
            editor: Editor::new(),
            show_thinking: false,
            expand_tools: false,
            working: false,
            working_since: None,
            scroll: 0,
            last_ctrl_c: None,
            pending_prompts: VecDeque::new(),
            exit: false,
            approvals: VecDeque::new(),
            completion: None,
            files: None,
            last_escape: None,
            switching: false,
            shell_runs: 0,
            sessions: None,
            commands: crate::slash::Commands::default(),
        }
    }

    /// Whether something on screen moves with time (spinner, elapsed time, countdown).
    pub fn animating(&self) -> bool {
        self.working || self.status.retry.is_some() || self.status.compacting.is_some()
    }

    /// Marks a prompt as sent (the run's events follow).
    pub fn start_prompt(&mut self, now: Instant) {
        self.working = true;
        self.working_since = Some(now);
        self.scroll = 0;
    }

    /// A prompt the session refused outright (no events will follow).
    pub fn prompt_failed(&mut self, message: String) {
        self.working = false;
        self.working_since = None;
        self.transcript.push(Entry::Error(message));
    }

    /// Folds one session event into the state.
    pub fn apply(&mut self, event: &SessionEvent, now: Instant) {
        match event {
            SessionEvent::Agent(event) => self.apply_agent(event, now),
            SessionEvent::Session(notice) => self.apply_notice(notice, now),
        }
    }

    fn apply_agent(&mut self, event: &AgentEvent, now: Instant) {
        match event {
            AgentEvent::MessageStart { message } if message.as_assistant().is_some() => {
                self.transcript.push(Entry::Assistant(AssistantEntry {
                    blocks: Vec::new(),
                    streaming: true,
                }));
                self.update_assistant(message, true);
            }
            AgentEvent::MessageUpdate { message, .. } => self.update_assistant(message, true),
            AgentEvent::MessageEnd { message } => self.end_message(message),
            AgentEvent::ToolExecutionStart {
                tool_call_id,
                tool_name,
                args,
            } => self.transcript.push(Entry::Tool(ToolEntry {
                id: tool_call_id.clone(),
                name: tool_name.clone(),
                args: args.clone(),
                status: ToolStatus::Running,
                started: now,
                elapsed: None,
                output: String::new(),
                details: None,
            })),
            AgentEvent::ToolExecutionUpdate {
                tool_call_id,
                partial_result,
                ..
            } => {
                if let Some(tool) = self.tool_mut(tool_call_id) {
                    tool.output = content_text(partial_result.get("content"));
                }
            }
            AgentEvent::ToolExecutionEnd {
                tool_call_id,
                result,
                is_error,
                duration_ms,
                ..
            } => {
                if let Some(tool) = self.tool_mut(tool_call_id) {
                    tool.status = ToolStatus::ended(*is_error, *duration_ms);
                    tool.elapsed = Some(duration_ms.map_or_else(
                        || now.saturating_duration_since(tool.started),
                        Duration::from_millis,
                    ));
                    tool.output = crate::transcript::blocks_text(&result.content);
                    tool.details = result.details.clone().map(Box::new);
                }
            }
            AgentEvent::AgentEnd { .. } => {
                // The run's own tools; a `!cmd` of the user's may still be running beside it.
                for entry in &mut self.transcript {
                    if let Entry::Tool(tool) = entry
                        && tool.status == ToolStatus::Running
                        && !crate::user_shell::is_user_shell(&tool.id)
                    {
                        tool.status = ToolStatus::Cancelled;
                        tool.elapsed = Some(now.saturating_duration_since(tool.started));
                    }
                }
            }
            _ => {}
        }
    }

    /// Mirrors the streamed snapshot into the last assistant entry.
    fn update_assistant(&mut self, message: &AgentMessage, streaming: bool) {
        let Some(assistant) = message.as_assistant() else {
            return;
        };
        let Some(Entry::Assistant(entry)) = self.transcript.last_mut() else {
            return;
        };
        entry.streaming = streaming;
        entry.blocks = crate::transcript::assistant_blocks(assistant);
    }

    fn end_message(&mut self, message: &AgentMessage) {
        if let Some(user) = message.as_user() {
            self.transcript.push(Entry::User(user.text_content()));
            return;
        }
        let Some(assistant) = message.as_assistant() else {
            return;
        };
        self.update_assistant(message, false);
        if matches!(self.transcript.last(), Some(Entry::Assistant(a)) if a.blocks.is_empty()) {
            self.transcript.pop();
        }
        let usage = &assistant.usage;
        self.status.add_usage(usage);
        match assistant.stop_reason {
            StopReason::Error => {
                let text = assistant
                    .error_message
                    .as_deref()
                    .unwrap_or("Unknown error");
                self.transcript.push(Entry::Error(format!("Error: {text}")));
            }
            StopReason::Aborted => self.transcript.push(Entry::Notice("Aborted".to_owned())),
            _ => {
                let tokens = usage.input + usage.output + usage.cache_read + usage.cache_write;
                self.status.context_tokens = Some(tokens);
            }
        }
    }

    fn apply_notice(&mut self, notice: &SessionNotice, now: Instant) {
        match notice {
            SessionNotice::QueueUpdate {
                steering,
                follow_up,
            } => {
                self.status.steering = steering.clone();
                self.status.follow_up = follow_up.clone();
            }
            SessionNotice::AutoRetryStart {
                attempt,
                max_attempts,
                delay_ms,
                ..
            } => {
                self.status.retry = Some(RetryWait {
                    attempt: *attempt,
                    max_attempts: *max_attempts,
                    until: now + Duration::from_millis(*delay_ms),
                });
            }
            SessionNotice::AutoRetryEnd {
                success,
                attempt,
                final_error,
            } => {
                self.status.retry = None;
                if !success {
                    let error = final_error.as_deref().unwrap_or("Unknown error");
                    self.transcript.push(Entry::Error(format!(
                        "Retry failed after {attempt} attempts: {error}"
                    )));
                }
            }
            SessionNotice::CompactionStart(start) => {
                self.status.compacting = Some(compaction_label(start.reason).to_owned());
            }
            SessionNotice::CompactionEnd(end) => {
                self.status.compacting = None;
                if let Some(error) = &end.error_message {
                    self.transcript
                        .push(Entry::Error(format!("Compaction failed: {error}")));
                } else if let Some(result) = &end.result {
                    self.status.context_tokens = None;
                    self.transcript.push(Entry::Summary(SummaryEntry {
                        kind: SummaryKind::Compaction {
                            tokens_before: result.tokens_before,
                        },
                        summary: result.summary.clone(),
                    }));
                }
            }
            SessionNotice::AgentSettled(_) => {
                self.working = false;
                self.working_since = None;
                self.status.retry = None;
            }
        }
    }

    fn tool_mut(&mut self, id: &str) -> Option<&mut ToolEntry> {
        crate::transcript::tool_entry_mut(&mut self.transcript, id)
    }
}

/// The text blocks of a message or result, joined by newlines.
/// The text blocks of a `content` array given as JSON (a tool's partial result).
fn content_text(content: Option<&Value>) -> String {
    let Some(blocks) = content.and_then(Value::as_array) else {
        return String::new();
    };
    let texts: Vec<&str> = blocks
        .iter()
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    texts.join("\n")
}

/// Pi's words for a compaction in progress.
fn compaction_label(reason: CompactionReason) -> &'static str {
    match reason {
        CompactionReason::Manual => "Compacting context...",
        CompactionReason::Threshold => "Auto-compacting...",
        CompactionReason::Overflow => "Context overflow detected, Auto-compacting...",
    }
}
