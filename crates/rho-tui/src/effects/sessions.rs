//! The sessions effects, carried out with the [`SessionSwitcher`] beside the UI task (each call
//! reads or writes session files): lists for the overlays, a label saved, a session file renamed
//! or deleted, and a switch.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures_util::FutureExt;

use super::finished::Finished;
use super::lane::Lane;
use crate::app::{Effect, Input, SessionsReply, SwitchedTo};
use crate::sessions::{PickerStatus, SessionFileChange, SessionSwitcher, Switched};

/// Said when a switch ended in a panic (a bug): the old session goes on.
const SWITCH_PANICKED: &str = "The session switch failed unexpectedly; the current session goes on";

/// Said when there is nothing to switch with (no switcher was plugged in).
const UNAVAILABLE: &str = "Sessions are not available here";

/// Carries out a sessions effect on `lane`; the answer comes back from there.
pub(super) fn carry_out(
    switcher: Option<&Arc<dyn SessionSwitcher>>,
    lane: &Lane,
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
    let switcher = Arc::clone(switcher);
    if let Effect::SwitchSession(request) = effect {
        lane.spawn(async move {
            // A switch that panics still ends the switch, as a failure.
            let switched = AssertUnwindSafe(switcher.switch(request))
                .catch_unwind()
                .await
                .unwrap_or_else(|_| Err(SWITCH_PANICKED.to_owned()));
            finished(switched)
        });
    } else {
        lane.call(move || call(switcher.as_ref(), effect).map(Input::Sessions));
    }
    Vec::new()
}

/// The switcher's answer to a sessions effect other than a switch.
fn call(switcher: &dyn SessionSwitcher, effect: Effect) -> Option<SessionsReply> {
    Some(match effect {
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
        Effect::ChangeSessionFile(change) => change_session_file(switcher, change),
        _ => return None,
    })
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
fn finished(result: Result<Switched, String>) -> Finished {
    match result {
        Ok(switched) => {
            let shown = SwitchedTo {
                info: switched.info,
                messages: switched.messages,
                editor_text: switched.editor_text,
                notice: switched.notice,
                warnings: switched.warnings,
            };
            Finished {
                input: Input::SwitchDone(Ok(shown)),
                session: switched.session,
            }
        }
        Err(message) => Finished::input(Input::SwitchDone(Err(message))),
    }
}
