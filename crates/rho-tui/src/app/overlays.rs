//! What sits over the conversation and the editor: the approval dialogs, the sessions overlay
//! (`/resume`, `/fork`, `/tree`), the model picker, a text panel and the `/` popup. One type, so
//! the rule between them holds in one place: a question of the gate's closes whatever would
//! cover it or take its keys.

use std::collections::VecDeque;

use crossterm::event::KeyEvent;

use crate::approval::{ApprovalChoice, ApprovalDialog};
use crate::dialogs::{DialogAnswer, OpenDialog};
use crate::picker::PickerOutcome;
use crate::sessions::{OverlayOutcome, SessionsOverlay};
use crate::slash::{ModelOption, ModelPicker, Panel, SlashPopup};

/// The overlays' state.
#[derive(Clone, Debug, Default)]
pub(crate) struct Overlays {
    /// Commands waiting for approval; the first is on screen.
    approvals: VecDeque<ApprovalDialog>,
    /// The host's questions (elicitation, `/mcp`); the first is on screen once no approval
    /// waits.
    dialogs: VecDeque<OpenDialog>,
    /// The `/resume`, `/fork` or `/tree` overlay.
    sessions: Option<SessionsOverlay>,
    /// The model picker.
    model_picker: Option<ModelPicker>,
    /// A text panel (`/hotkeys`, `/help`, `/session`, `/settings`).
    panel: Option<Panel>,
    /// The popup, while a command name is typed.
    popup: Option<SlashPopup>,
    /// The popup was closed with Escape for this text; it reopens once the text changes.
    dismissed: Option<String>,
}

/// What a key did to the approval dialog on screen.
pub(crate) enum ApprovalKey {
    /// The highlight moved, or the key was swallowed.
    Open,
    /// Answered: the dialog is gone.
    Answered(ApprovalDialog, ApprovalChoice),
}

impl Overlays {
    pub(crate) fn approvals(&self) -> &VecDeque<ApprovalDialog> {
        &self.approvals
    }

    pub(crate) fn dialogs(&self) -> &VecDeque<OpenDialog> {
        &self.dialogs
    }

    /// Puts a host's question in front of the user, closing what would cover it (as
    /// [`Overlays::ask`]).
    pub(crate) fn ask_dialog(&mut self, dialog: OpenDialog) {
        self.sessions = None;
        self.model_picker = None;
        self.panel = None;
        self.popup = None;
        self.dialogs.push_back(dialog);
    }

    /// Takes the host's question `id` off the screen (nobody waits for it).
    pub(crate) fn close_dialog(&mut self, id: u64) {
        self.dialogs.retain(|dialog| dialog.id != id);
    }

    /// The host's question `id`, if still open, asks `kind` now.
    pub(crate) fn update_dialog(&mut self, id: u64, kind: crate::dialogs::DialogKind) {
        if let Some(dialog) = self.dialogs.iter_mut().find(|d| d.id == id) {
            dialog.update(kind);
        }
    }

    /// A key for the host's question on screen: `Some((id, answer))` once it is answered.
    pub(crate) fn dialog_key(&mut self, key: KeyEvent) -> Option<(u64, DialogAnswer)> {
        let answer = self.dialogs.front_mut()?.on_key(key)?;
        let dialog = self.dialogs.pop_front()?;
        Some((dialog.id, answer))
    }

    /// A paste into the host's question on screen; `false` when none is open.
    pub(crate) fn dialog_paste(&mut self, text: &str) -> bool {
        match self.dialogs.front_mut() {
            Some(dialog) => {
                dialog.paste(text);
                true
            }
            None => false,
        }
    }

    pub(crate) fn sessions(&self) -> Option<&SessionsOverlay> {
        self.sessions.as_ref()
    }

    pub(crate) fn model_picker(&self) -> Option<&ModelPicker> {
        self.model_picker.as_ref()
    }

    pub(crate) fn panel(&self) -> Option<&Panel> {
        self.panel.as_ref()
    }

    pub(crate) fn popup(&self) -> Option<&SlashPopup> {
        self.popup.as_ref()
    }

    pub(crate) fn dismissed(&self) -> Option<&str> {
        self.dismissed.as_deref()
    }

    /// Puts a question of the gate's in front of the user. A picker, panel, popup or the
    /// session tree open at that moment is closed: it would cover the dialog and take the keys
    /// meant for it while the tool waits.
    pub(crate) fn ask(&mut self, dialog: ApprovalDialog) {
        self.sessions = None;
        self.model_picker = None;
        self.panel = None;
        self.popup = None;
        self.approvals.push_back(dialog);
    }

    /// A key for the approval dialog on screen: y / a / n pick at once, arrows move, Enter
    /// takes the highlighted choice, Escape denies. Other keys are swallowed, so a stray
    /// keystroke can never approve a command.
    pub(crate) fn approval_key(&mut self, key: KeyEvent) -> ApprovalKey {
        use crossterm::event::KeyCode;
        let Some(dialog) = self.approvals.front_mut() else {
            return ApprovalKey::Open;
        };
        let last = ApprovalChoice::ALL.len() - 1;
        let choice = match key.code {
            KeyCode::Char('y' | 'Y') => ApprovalChoice::Once,
            KeyCode::Char('a' | 'A') => ApprovalChoice::Always,
            KeyCode::Char('n' | 'N') | KeyCode::Esc => ApprovalChoice::Deny,
            KeyCode::Enter => dialog.choice(),
            KeyCode::Left | KeyCode::Up | KeyCode::BackTab => {
                dialog.selected = dialog.selected.checked_sub(1).unwrap_or(last);
                return ApprovalKey::Open;
            }
            KeyCode::Right | KeyCode::Down | KeyCode::Tab => {
                dialog.selected = if dialog.selected >= last {
                    0
                } else {
                    dialog.selected + 1
                };
                return ApprovalKey::Open;
            }
            _ => return ApprovalKey::Open,
        };
        match self.approvals.pop_front() {
            Some(dialog) => ApprovalKey::Answered(dialog, choice),
            None => ApprovalKey::Open,
        }
    }

    /// Another session is shown: its questions are not these.
    pub(crate) fn forget_approvals(&mut self) {
        self.approvals.clear();
    }

    pub(crate) fn open_sessions(&mut self, overlay: SessionsOverlay) {
        self.sessions = Some(overlay);
    }

    pub(crate) fn close_sessions(&mut self) {
        self.sessions = None;
    }

    /// The open sessions overlay, for the replies that reload it.
    pub(crate) fn sessions_mut(&mut self) -> Option<&mut SessionsOverlay> {
        self.sessions.as_mut()
    }

    /// A key for the open sessions overlay (`None`: none is open); it closes once the outcome
    /// says so.
    pub(crate) fn sessions_key(&mut self, key: KeyEvent) -> Option<OverlayOutcome> {
        let outcome = self.sessions.as_mut()?.on_key(key);
        if matches!(
            outcome,
            OverlayOutcome::Cancelled | OverlayOutcome::Chosen(_) | OverlayOutcome::Remark(_)
        ) {
            self.sessions = None;
        }
        Some(outcome)
    }

    pub(crate) fn open_model_picker(&mut self, picker: ModelPicker) {
        self.model_picker = Some(picker);
    }

    /// A key for the open model picker (`None`: none is open): `Some(Some(model))` once one
    /// is picked.
    pub(crate) fn model_picker_key(&mut self, key: KeyEvent) -> Option<Option<ModelOption>> {
        let open = self.model_picker.as_mut()?;
        Some(match open.picker.handle_key(key) {
            PickerOutcome::None => None,
            PickerOutcome::Cancelled => {
                self.model_picker = None;
                None
            }
            PickerOutcome::Picked(index) => {
                let model = open.models.get(index).cloned();
                self.model_picker = None;
                model
            }
        })
    }

    /// A paste into the open model picker becomes its search; `false` when none is open.
    pub(crate) fn model_picker_paste(&mut self, text: &str) -> bool {
        let Some(open) = &mut self.model_picker else {
            return false;
        };
        let query = format!("{}{}", open.picker.query(), text.trim());
        open.picker.set_query(query);
        true
    }

    pub(crate) fn open_panel(&mut self, panel: Panel) {
        self.panel = Some(panel);
    }

    /// A key for the open panel (`false`: none is open); any key but a scrolling one closes it.
    pub(crate) fn panel_key(&mut self, key: KeyEvent) -> bool {
        let Some(panel) = &mut self.panel else {
            return false;
        };
        if !panel.handle_key(key) {
            self.panel = None;
        }
        true
    }

    pub(crate) fn popup_mut(&mut self) -> Option<&mut SlashPopup> {
        self.popup.as_mut()
    }

    /// Shows the popup as `popup`; the text changed since an Escape closed it.
    pub(crate) fn show_popup(&mut self, popup: SlashPopup) {
        self.dismissed = None;
        self.popup = Some(popup);
    }

    /// The editor holds no command name being typed.
    pub(crate) fn close_popup(&mut self) {
        self.popup = None;
        self.dismissed = None;
    }

    /// A command was taken from the popup (or submitted): it goes, until the next edit.
    pub(crate) fn take_popup_down(&mut self) {
        self.popup = None;
    }

    /// Escape closed the popup over `text`; it stays closed until the text changes.
    pub(crate) fn dismiss_popup(&mut self, text: &str) {
        self.popup = None;
        self.dismissed = Some(text.to_owned());
    }
}
