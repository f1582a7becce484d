//! Keys and pastes, as Pi binds them by default: edits of the state, and [`Effect`]s for what
//! the session must do.

use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use rho_ai::ThinkingLevel;

use super::App;
use super::input::Effect;
use crate::user_shell::{SHELL_BUSY, parse_shell_line};

/// Said when a message or a second switch comes while a session switch runs.
pub const SWITCH_BUSY: &str = "A session switch is still running; wait for it to finish.";

/// Lines one PageUp/PageDown scrolls the conversation.
const PAGE: usize = 10;

/// How Enter queues a message while the agent works.
#[derive(Clone, Copy)]
enum Submit {
    Steer,
    FollowUp,
}

impl App {
    /// Handles one key.
    pub(super) fn on_key(&mut self, key: KeyEvent, now: Instant) -> Vec<Effect> {
        if key.kind == KeyEventKind::Release {
            return Vec::new();
        }
        if self.overlays.approvals().is_empty() && !self.overlays.dialogs().is_empty() {
            // A host's question takes every key, Ctrl+C included (it dismisses the question).
            return match self.overlays.dialog_key(key) {
                Some((id, answer)) => vec![Effect::AnswerDialog(id, answer)],
                None => Vec::new(),
            };
        }
        if let Some(outcome) = self.overlays.sessions_key(key) {
            return self.sessions_outcome(outcome);
        }
        if let Some(effects) = self.commands_overlay_key(key) {
            return effects;
        }
        let key = match self.bound_key(key) {
            Ok(key) => key,
            Err(effects) => return effects,
        };
        if let Some(effects) = self.slash_key(key) {
            return effects;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        let shift = key.modifiers.contains(KeyModifiers::SHIFT);
        if !(ctrl && key.code == KeyCode::Char('c')) {
            self.run.forget_ctrl_c();
            if !self.overlays.approvals().is_empty() {
                return self.approval_key(key);
            }
            if let Some(effects) = self.completion_key(key) {
                return effects;
            }
        }
        if key.code != KeyCode::Esc {
            self.run.forget_escape();
        }
        match key.code {
            KeyCode::Char('c') if ctrl => {
                if self.run.ctrl_c(now) {
                    return vec![Effect::Exit];
                }
                self.editor.clear();
            }
            KeyCode::Char('d') if ctrl => {
                // Pi: exit only when the editor is empty, else delete forward.
                if self.editor.text().is_empty() {
                    return vec![Effect::Exit];
                }
                self.editor.delete();
            }
            KeyCode::Char('o') if ctrl => self.conversation.toggle_tools(),
            KeyCode::Char('t') if ctrl => self.conversation.toggle_thinking(),
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
            KeyCode::PageUp => self.conversation.scroll_up(PAGE),
            KeyCode::PageDown => self.conversation.scroll_down(PAGE),
            _ => {}
        }
        self.edited()
    }

    /// A bracketed paste: inserted as typed, newlines kept; a large one as a marker.
    pub(super) fn on_paste(&mut self, text: &str) -> Vec<Effect> {
        if !self.overlays.approvals().is_empty() || self.overlays.sessions().is_some() {
            return Vec::new();
        }
        if self.overlays.dialog_paste(text) {
            return Vec::new();
        }
        if self.overlays.model_picker_paste(text) || self.overlays.panel().is_some() {
            return Vec::new();
        }
        self.editor.paste(text);
        self.edited()
    }

    /// After an edit: the popup and the `@` list follow the editor's text.
    fn edited(&mut self) -> Vec<Effect> {
        self.refresh_slash();
        self.refresh_completion()
    }

    /// Enter (or Alt+Enter): a prompt when idle; while working, a steering message (or a
    /// follow-up for Alt+Enter).
    fn submit(&mut self, queued_as: Submit, now: Instant) -> Vec<Effect> {
        let Some(text) = self.editor.take_submission() else {
            return Vec::new();
        };
        self.at_paths.close();
        if let Some(line) = parse_shell_line(&text) {
            if self.conversation.user_shell_running() {
                self.conversation.notice(SHELL_BUSY);
                self.editor.set_text(text);
                return Vec::new();
            }
            return vec![Effect::RunShell(self.shells.next_run(line))];
        }
        if let Some(effects) = self.slash_submit(&text) {
            return effects;
        }
        if self.run.switching() {
            self.conversation.notice(SWITCH_BUSY);
            self.editor.set_text(text);
            return Vec::new();
        }
        if !self.run.working() {
            self.start_prompt(now);
            return vec![Effect::Prompt(text)];
        }
        vec![match queued_as {
            Submit::Steer => Effect::Steer(text),
            Submit::FollowUp => Effect::FollowUp(text),
        }]
    }

    /// Escape while working: the queued messages go back into the editor and the run is
    /// aborted (Pi's `restoreQueuedMessagesToEditor({abort: true})`). A second Escape within
    /// [`DOUBLE_PRESS`](super::DOUBLE_PRESS) clears the queues whatever the status line shows,
    /// so a message queued a moment before (its `queue_update` not yet seen) cannot slip into
    /// the next run. Idle, Escape stops a running `!cmd`.
    fn escape(&mut self, now: Instant) -> Vec<Effect> {
        if !self.run.working() && self.status.retry().is_none() {
            self.run.forget_escape();
            if self.conversation.user_shell_running() {
                return vec![Effect::CancelShell];
            }
            return Vec::new();
        }
        if self.run.escape(now) {
            self.status.take_queued();
            return vec![Effect::ClearQueue, Effect::Abort];
        }
        let mut queued = self.status.take_queued();
        if queued.is_empty() {
            return vec![Effect::Abort];
        }
        if !self.editor.is_blank() {
            queued.push(self.editor.text().to_owned());
        }
        self.editor.set_text(queued.join("\n\n"));
        vec![Effect::ClearQueue, Effect::Abort]
    }

    /// Shift+Tab: the next thinking level (only for a model that reasons).
    fn cycle_thinking(&mut self) -> Vec<Effect> {
        let info = self.status.info();
        if !info.reasoning {
            return Vec::new();
        }
        let next = match info.thinking {
            ThinkingLevel::Off => ThinkingLevel::Minimal,
            ThinkingLevel::Minimal => ThinkingLevel::Low,
            ThinkingLevel::Low => ThinkingLevel::Medium,
            ThinkingLevel::Medium => ThinkingLevel::High,
            ThinkingLevel::High | ThinkingLevel::Xhigh | ThinkingLevel::Max => ThinkingLevel::Off,
        };
        self.status.set_thinking(next);
        vec![Effect::SetThinking(next)]
    }
}
