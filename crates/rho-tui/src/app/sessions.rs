//! The sessions overlays and switches in the state: asking for a list or a switch (one at a
//! time), opening an overlay from the switcher's answer, what an overlay's key asks for, and the
//! conversation of the session a switch leaves on screen.

use std::time::Instant;

use super::App;
use super::input::{Effect, SessionsReply, SwitchedTo};
use super::keys::SWITCH_BUSY;
use crate::sessions::replay::transcript_of;
use crate::sessions::{
    ForkPicker, OverlayOutcome, SessionPicker, SessionsOverlay, SwitchRequest, TreeView,
};

impl App {
    /// A sessions effect, unless a switch is in flight: a second switch would race the first
    /// for the session file, and a picker opened now would list the file being replaced.
    pub(super) fn sessions_effect(&mut self, effect: Effect) -> Vec<Effect> {
        if self.run.switching() {
            self.conversation.notice(SWITCH_BUSY);
            return Vec::new();
        }
        if let Effect::SwitchSession(request) = &effect {
            self.run.switch_started();
            if matches!(
                request,
                SwitchRequest::Branch {
                    summarize: true,
                    ..
                }
            ) {
                self.conversation.notice("Summarizing branch...");
            }
        }
        vec![effect]
    }

    /// What a key in a sessions overlay asked for (the overlay closed itself if it is done).
    pub(super) fn sessions_outcome(&mut self, outcome: OverlayOutcome) -> Vec<Effect> {
        match outcome {
            OverlayOutcome::Open | OverlayOutcome::Cancelled => Vec::new(),
            OverlayOutcome::Chosen(request) => self.sessions_effect(Effect::SwitchSession(request)),
            OverlayOutcome::Remark(text) => {
                self.conversation.notice(text);
                Vec::new()
            }
            // The tree stays open while its label is saved and its rows reloaded.
            OverlayOutcome::SaveLabel(change) => {
                self.sessions_effect(Effect::SaveTreeLabel(change))
            }
            // So does the session picker while a file is renamed or deleted.
            OverlayOutcome::ChangeSessionFile(change) => {
                self.sessions_effect(Effect::ChangeSessionFile(change))
            }
        }
    }

    /// The switcher answered: an overlay opens, or the open one shows the change.
    pub(super) fn sessions_reply(&mut self, reply: SessionsReply) {
        match reply {
            SessionsReply::Listed {
                here,
                everywhere,
                current,
            } => {
                let picker = SessionPicker::new(here, everywhere).with_current(current);
                self.overlays.open_sessions(SessionsOverlay::Resume(picker));
            }
            SessionsReply::ForkPoints(points) if points.is_empty() => {
                self.conversation.notice("No messages to fork from");
            }
            SessionsReply::ForkPoints(points) => {
                let picker = ForkPicker::new(points);
                self.overlays.open_sessions(SessionsOverlay::Fork(picker));
            }
            SessionsReply::Tree { rows, filter } => {
                let tree = TreeView::with_filter(rows, filter);
                self.overlays.open_sessions(SessionsOverlay::Tree(tree));
            }
            // The label shows once the rows are read anew; a failure closes the tree with the
            // error in the conversation.
            SessionsReply::LabelSaved(Ok(rows)) => {
                if let Some(SessionsOverlay::Tree(tree)) = self.overlays.sessions_mut() {
                    tree.reload(rows);
                }
            }
            SessionsReply::LabelSaved(Err(message)) => {
                if let Some(SessionsOverlay::Tree(_)) = self.overlays.sessions() {
                    self.overlays.close_sessions();
                    self.conversation.error(message);
                }
            }
            // Said in the picker's status line, as Pi does, over the sessions listed anew.
            SessionsReply::FileChanged {
                status,
                here,
                everywhere,
            } => {
                if let Some(SessionsOverlay::Resume(picker)) = self.overlays.sessions_mut() {
                    picker.reload(here, everywhere);
                    if let Some(status) = status {
                        picker.set_status(status);
                    }
                }
            }
        }
    }

    /// A switch ended: the new session's conversation, or why the old one goes on.
    pub(super) fn switch_done(&mut self, result: Result<SwitchedTo, String>, now: Instant) {
        self.run.switch_ended();
        match result {
            Ok(switched) => {
                self.switch_to(switched.info, &switched.messages, switched.editor_text, now);
                self.conversation.notice(switched.notice);
                for warning in switched.warnings {
                    self.conversation.error(warning);
                }
            }
            Err(message) => self.conversation.error(message),
        }
    }

    /// The UI now shows another session: its transcript, its status line, a clean slate
    /// otherwise (no run, no questions, no scroll), and `editor_text` in the editor when given.
    fn switch_to(
        &mut self,
        info: crate::status::SessionInfo,
        messages: &[rho_agent::AgentMessage],
        editor_text: Option<String>,
        now: Instant,
    ) {
        let assistants = messages
            .iter()
            .filter_map(rho_agent::AgentMessage::as_assistant)
            .map(AsRef::as_ref);
        self.status = self.status.switched(info, assistants);
        self.run.stop();
        self.overlays.forget_approvals();
        self.at_paths.close();
        self.conversation.replace(transcript_of(messages, now));
        if let Some(text) = editor_text {
            self.editor.set_text(text);
        }
    }
}
