//! Keys and pastes, as Pi binds them by default, turned into edits of the state and into
//! [`Command`]s for the session. No session is touched here, so key handling is tested on its own.

use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use rho_ai::ThinkingLevel;

use crate::app::{App, DOUBLE_PRESS};
use crate::approval::{ApprovalChoice, ApprovalDialog};
use crate::transcript::Entry;
use crate::user_shell::{SHELL_BUSY, ShellLine, parse_shell_line};

/// What the event loop must ask of the session after a key.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Run a prompt (nothing is running).
    Prompt(String),
    /// Queue a steering message (delivered after the current turn's tools).
    Steer(String),
    /// Queue a follow-up message (delivered when the run would stop).
    FollowUp(String),
    /// Drop both queues (their texts were put back into the editor).
    ClearQueue,
    /// Cancel the run or the retry wait.
    Abort,
    /// Use this thinking level from the next model call on.
    SetThinking(ThinkingLevel),
    /// The user answered an approval dialog ("always" also writes the rule).
    Answer(ApprovalDialog, ApprovalChoice),
    /// Run a `!cmd` / `!!cmd` line.
    Shell(ShellLine),
    /// Walk the working directory for `@` completion (once, off the UI task).
    IndexFiles,
    /// Stop the running `!cmd`.
    CancelShell,
    /// `/resume`: open the session picker.
    OpenSessionPicker,
    /// `/fork`: open the picker of user messages to fork before.
    OpenForkPicker,
    /// `/tree`: open the session tree navigator.
    OpenTree,
    /// Save the label entered in the open tree navigator and reload its rows.
    SaveTreeLabel,
    /// Rename or delete the session file the open `/resume` picker holds a change for, and
    /// list the sessions anew.
    ChangeSessionFile,
    /// Replace or re-branch the running session (`/new` is `SwitchSession(SwitchRequest::New)`).
    SwitchSession(crate::sessions::SwitchRequest),
    /// Work of a `/` command for the event loop (`slash/host.rs`).
    Slash(crate::slash::SlashAction),
}

/// Said when a message or a second switch comes while a session switch runs.
pub const SWITCH_BUSY: &str = "A session switch is still running; wait for it to finish.";

/// Lines one PageUp/PageDown scrolls the conversation.
const PAGE: usize = 10;

impl App {
    /// Handles one key; returns what the session must do.
    pub fn on_key(&mut self, key: KeyEvent, now: Instant) -> Vec<Command> {
        if key.kind == KeyEventKind::Release {
            return Vec::new();
        }
        if self.sessions.is_some() {
            return self.sessions_key(key);
        }
        if let Some(commands) = self.commands_overlay_key(key) {
            return commands;
        }
        let key = match self.bound_key(key) {
            Ok(key) => key,
            Err(commands) => return commands,
        };
        if let Some(commands) = self.slash_key(key) {
            return commands;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        let shift = key.modifiers.contains(KeyModifiers::SHIFT);
        if !(ctrl && key.code == KeyCode::Char('c')) {
            self.last_ctrl_c = None;
            if !self.approvals.is_empty() {
                return self.approval_key(key);
            }
            if let Some(commands) = self.completion_key(key) {
                return commands;
            }
        }
        if key.code != KeyCode::Esc {
            self.last_escape = None;
        }
        match key.code {
            KeyCode::Char('c') if ctrl => self.ctrl_c(now),
            KeyCode::Char('d') if ctrl => {
                // Pi: exit only when the editor is empty, else delete forward.
                if self.editor.text().is_empty() {
                    self.exit = true;
                } else {
                    self.editor.delete();
                }
            }
            KeyCode::Char('o') if ctrl => self.expand_tools = !self.expand_tools,
            KeyCode::Char('t') if ctrl => self.show_thinking = !self.show_thinking,
            KeyCode::Char('j') if ctrl => self.editor.insert("\n"),
            KeyCode::Char('u') if ctrl => self.editor.delete_to_line_start(),
            KeyCode::Char('k') if ctrl => self.editor.delete_to_line_end(),
            KeyCode::Char('w') if ctrl => self.editor.delete_word_backward(),
            KeyCode::Char('a') if ctrl => self.editor.home(),
            KeyCode::Char('e') if ctrl => self.editor.end(),
            KeyCode::Char('b') if ctrl => self.editor.left(),
            KeyCode::Char('f') if ctrl => self.editor.right(),
            KeyCode::Char(_) if ctrl => {}
            KeyCode::Char(c) => {
                let mut buffer = [0; 4];
                self.editor.insert(c.encode_utf8(&mut buffer));
            }
            KeyCode::Enter if shift => self.editor.insert("\n"),
            KeyCode::Enter if alt => return self.submit(Submit::FollowUp, now),
            KeyCode::Enter => return self.submit(Submit::Steer, now),
            KeyCode::Esc => return self.escape(now),
            KeyCode::BackTab => return self.cycle_thinking(),
            KeyCode::Backspace if alt || ctrl => self.editor.delete_word_backward(),
            KeyCode::Backspace => self.editor.backspace(),
            KeyCode::Delete => self.editor.delete(),
            KeyCode::Left => self.editor.left(),
            KeyCode::Right => self.editor.right(),
            KeyCode::Home => self.editor.home(),
            KeyCode::End => self.editor.end(),
            KeyCode::Up => self.editor.up(),
            KeyCode::Down => self.editor.down(),
            KeyCode::PageUp => self.scroll += PAGE,
            KeyCode::PageDown => self.scroll = self.scroll.saturating_sub(PAGE),
            _ => {}
        }
        self.refresh_slash();
        self.refresh_completion()
    }

    /// A bracketed paste: inserted as typed, newlines kept; a large one as a marker.
    pub fn on_paste(&mut self, text: &str) -> Vec<Command> {
        if !self.approvals.is_empty() || self.sessions.is_some() {
            return Vec::new();
        }
        if let Some(open) = &mut self.commands.model_picker {
            let query = format!("{}{}", open.picker.query(), text.trim());
            open.picker.set_query(query);
            return Vec::new();
        }
        if self.commands.panel.is_some() {
            return Vec::new();
        }
        self.editor.paste(text);
        self.refresh_slash();
        self.refresh_completion()
    }

    fn ctrl_c(&mut self, now: Instant) {
        match self.last_ctrl_c {
            Some(last) if now.saturating_duration_since(last) < DOUBLE_PRESS => self.exit = true,
            _ => {
                self.editor.clear();
                self.last_ctrl_c = Some(now);
            }
        }
    }

    /// Enter (or Alt+Enter): a prompt when idle; while working, a steering message (or a
    /// follow-up for Alt+Enter).
    fn submit(&mut self, queued_as: Submit, now: Instant) -> Vec<Command> {
        let Some(text) = self.editor.take_submission() else {
            return Vec::new();
        };
        self.completion = None;
        if let Some(line) = parse_shell_line(&text) {
            if self.shell_running() {
                self.transcript.push(Entry::Notice(SHELL_BUSY.to_owned()));
                self.editor.set_text(text);
                return Vec::new();
            }
            return vec![Command::Shell(line)];
        }
        if let Some(commands) = self.slash_submit(&text) {
            return commands;
        }
        if self.switching {
            self.transcript.push(Entry::Notice(SWITCH_BUSY.to_owned()));
            self.editor.set_text(text);
            return Vec::new();
        }
        if !self.working {
            self.start_prompt(now);
            return vec![Command::Prompt(text)];
        }
        vec![match queued_as {
            Submit::Steer => Command::Steer(text),
            Submit::FollowUp => Command::FollowUp(text),
        }]
    }

    /// Escape while working: the queued messages go back into the editor and the run is
    /// aborted (Pi's `restoreQueuedMessagesToEditor({abort: true})`). A second Escape within
    /// [`DOUBLE_PRESS`] clears the queues whatever the status line shows, so a message queued
    /// a moment before (its `queue_update` not yet seen) cannot slip into the next run.
    fn escape(&mut self, now: Instant) -> Vec<Command> {
        if !self.working && self.status.retry.is_none() {
            self.last_escape = None;
            if self.shell_running() {
                return vec![Command::CancelShell];
            }
            return Vec::new();
        }
        let double = self
            .last_escape
            .is_some_and(|last| now.saturating_duration_since(last) < DOUBLE_PRESS);
        self.last_escape = Some(now);
        if double {
            self.status.steering.clear();
            self.status.follow_up.clear();
            return vec![Command::ClearQueue, Command::Abort];
        }
        let mut queued: Vec<String> = self.status.steering.drain(..).collect();
        queued.append(&mut self.status.follow_up);
        if queued.is_empty() {
            return vec![Command::Abort];
        }
        if !self.editor.is_blank() {
            queued.push(self.editor.text().to_owned());
        }
        self.editor.set_text(queued.join("\n\n"));
        vec![Command::ClearQueue, Command::Abort]
    }

    /// Shift+Tab: the next thinking level (only for a model that reasons).
    fn cycle_thinking(&mut self) -> Vec<Command> {
        if !self.status.info.reasoning {
            return Vec::new();
        }
        let next = match self.status.info.thinking {
            ThinkingLevel::Off => ThinkingLevel::Minimal,
            ThinkingLevel::Minimal => ThinkingLevel::Low,
            ThinkingLevel::Low => ThinkingLevel::Medium,
            ThinkingLevel::Medium => ThinkingLevel::High,
            ThinkingLevel::High | ThinkingLevel::Xhigh => ThinkingLevel::Off,
        };
        self.status.info.thinking = next;
        vec![Command::SetThinking(next)]
    }
}

/// How Enter queues a message while the agent works.
#[derive(Clone, Copy)]
enum Submit {
    Steer,
    FollowUp,
}
