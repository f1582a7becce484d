//! The sessions effects, carried out with the [`SessionSwitcher`]: lists for the overlays, a
//! label saved, a session file renamed or deleted, and a switch run off the UI task.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures_util::FutureExt;
use rho_host::AgentSession;
use tokio::sync::mpsc;

use crate::app::{Effect, Input, SessionsReply, SwitchedTo};
use crate::sessions::{PickerStatus, SessionFileChange, SessionSwitcher, Switched};

/// Said when a switch ended in a panic (a bug): the old session goes on.
const SWITCH_PANICKED: &str = "The session switch failed unexpectedly; the current session goes on";

/// Said when there is nothing to switch with (no switcher was plugged in).
const UNAVAILABLE: &str = "Sessions are not available here";

/// Carries out a sessions effect; a switch's result comes back on `done`.
pub(super) fn carry_out(
    switcher: Option<&Arc<dyn SessionSwitcher>>,
    done: &mpsc::UnboundedSender<Result<Switched, String>>,
    effect: Effect,
) -> Vec<Input> {
    let Some(switcher) = switcher else {
        let input = match effect {
            // The state counts the switch as running until it hears back.
            Effect::SwitchSession(_) => Input::SwitchDone(Err(UNAVAILABLE.to_owned())),
            _ => Input::Failed(UNAVAILABLE.to_owned()),
        };
        return vec![input];
    };
    let reply = match effect {
        Effect::OpenSessionPicker => SessionsReply::Listed {
            here: switcher.list(false),
            everywhere: switcher.list(true),
            current: switcher.current_session(),
        },
        Effect::OpenForkPicker => SessionsReply::ForkPoints(switcher.fork_points()),
        Effect::OpenTree => SessionsReply::Tree {
            rows: switcher.tree(),
            filter: switcher.tree_filter(),
        },
        Effect::SaveTreeLabel(change) => SessionsReply::LabelSaved(
            switcher
                .set_label(&change.entry_id, change.label.as_deref())
                .map(|()| switcher.tree()),
        ),
        Effect::ChangeSessionFile(change) => change_session_file(switcher.as_ref(), change),
        Effect::SwitchSession(request) => {
            let switcher = Arc::clone(switcher);
            let done = done.clone();
            tokio::spawn(async move {
                // A switch that panics still ends the switch, as a failure.
                let switched = AssertUnwindSafe(switcher.switch(request))
                    .catch_unwind()
                    .await
                    .unwrap_or_else(|_| Err(SWITCH_PANICKED.to_owned()));
                let _ = done.send(switched);
            });
            return Vec::new();
        }
        _ => return Vec::new(),
    };
    vec![Input::Sessions(reply)]
}

/// Renames or deletes a session file, says how it went (as Pi does, in the picker's status
/// line) and lists the sessions anew.
fn change_session_file(switcher: &dyn SessionSwitcher, change: SessionFileChange) -> SessionsReply {
    let status = match change {
        SessionFileChange::Delete(path) => Some(match switcher.delete_session(&path) {
            Ok(deleted) => PickerStatus {
                error: false,
                text: deleted.message().to_owned(),
            },
            Err(message) => PickerStatus {
                error: true,
                text: format!("Failed to delete: {message}"),
            },
        }),
        SessionFileChange::Rename { path, name } => switcher
            .rename_session(&path, &name)
            .err()
            .map(|message| PickerStatus {
                error: true,
                text: message,
            }),
    };
    SessionsReply::FileChanged {
        status,
        here: switcher.list(false),
        everywhere: switcher.list(true),
    }
}

/// A switch ended: the session to talk to from now on (`None`: the same one, or the switch
/// failed and the old one goes on) and what the state is told.
pub(super) fn finished(result: Result<Switched, String>) -> (Option<AgentSession>, Input) {
    match result {
        Ok(switched) => {
            let shown = SwitchedTo {
                info: switched.info,
                messages: switched.messages,
                editor_text: switched.editor_text,
                notice: switched.notice,
                warnings: switched.warnings,
            };
            (switched.session, Input::SwitchDone(Ok(shown)))
        }
        Err(message) => (None, Input::SwitchDone(Err(message))),
    }
}
