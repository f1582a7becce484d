//! The event loop's side of switching sessions: opening the overlays from the
//! [`SessionSwitcher`]'s lists, saving the tree's labels through it, running a switch off the UI
//! task, and taking its result in.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Instant;

use crossterm::event::KeyEvent;
use futures_util::FutureExt;
use tokio::sync::mpsc;

use super::{
    ForkPicker, OverlayOutcome, PickerStatus, SessionFileChange, SessionPicker, SessionSwitcher,
    SessionsOverlay, Switched, TreeView,
};
use crate::app::App;
use crate::keys::Command;
use crate::transcript::Entry;

/// Said when a switch ended in a panic (a bug): the old session goes on.
const SWITCH_PANICKED: &str = "The session switch failed unexpectedly; the current session goes on";

/// Said when there is nothing to switch with (no switcher was plugged in).
const UNAVAILABLE: &str = "Sessions are not available here";

/// Switches in flight and their results.
pub(crate) struct Switching {
    switcher: Option<Arc<dyn SessionSwitcher>>,
    done_tx: mpsc::UnboundedSender<Result<Switched, String>>,
    /// Finished switches, for the loop to take in.
    pub(crate) done: mpsc::UnboundedReceiver<Result<Switched, String>>,
    busy: bool,
}

impl Switching {
    pub(crate) fn new(switcher: Option<Arc<dyn SessionSwitcher>>) -> Self {
        let (done_tx, done) = mpsc::unbounded_channel();
        Switching {
            switcher,
            done_tx,
            done,
            busy: false,
        }
    }

    /// Carries out a sessions command; any other command is handed back.
    pub(crate) fn handle(&mut self, app: &mut App, command: Command) -> Option<Command> {
        let opening = matches!(
            command,
            Command::OpenSessionPicker
                | Command::OpenForkPicker
                | Command::OpenTree
                | Command::SaveTreeLabel
                | Command::ChangeSessionFile
        );
        if !opening && !matches!(command, Command::SwitchSession(_)) {
            return Some(command);
        }
        // One at a time: a second switch would race the first for the session file, and a
        // picker opened now would list the file being replaced.
        if self.busy {
            app.transcript
                .push(Entry::Notice(crate::keys::SWITCH_BUSY.to_owned()));
            return None;
        }
        let Some(switcher) = self.switcher.clone() else {
            app.transcript.push(Entry::Error(UNAVAILABLE.to_owned()));
            return None;
        };
        match command {
            Command::OpenSessionPicker => {
                let picker = SessionPicker::new(switcher.list(false), switcher.list(true))
                    .with_current(switcher.current_session());
                app.sessions = Some(SessionsOverlay::Resume(picker));
            }
            Command::OpenForkPicker => {
                let points = switcher.fork_points();
                if points.is_empty() {
                    app.transcript
                        .push(Entry::Notice("No messages to fork from".to_owned()));
                } else {
                    app.sessions = Some(SessionsOverlay::Fork(ForkPicker::new(points)));
                }
            }
            Command::OpenTree => {
                let tree = TreeView::with_filter(switcher.tree(), switcher.tree_filter());
                app.sessions = Some(SessionsOverlay::Tree(tree));
            }
            Command::SaveTreeLabel => save_tree_label(app, switcher.as_ref()),
            Command::ChangeSessionFile => change_session_file(app, switcher.as_ref()),
            Command::SwitchSession(request) => {
                self.busy = true;
                app.switching = true;
                if matches!(
                    request,
                    super::SwitchRequest::Branch {
                        summarize: true,
                        ..
                    }
                ) {
                    app.transcript
                        .push(Entry::Notice("Summarizing branch...".to_owned()));
                }
                let done = self.done_tx.clone();
                tokio::spawn(async move {
                    // A switch that panics still ends the switch, as a failure.
                    let switched = AssertUnwindSafe(switcher.switch(request))
                        .catch_unwind()
                        .await
                        .unwrap_or_else(|_| Err(SWITCH_PANICKED.to_owned()));
                    let _ = done.send(switched);
                });
            }
            _ => {}
        }
        None
    }

    /// A switch ended: `Some` is the new session to talk to (`None`: the same one, or the
    /// switch failed and the old one goes on).
    pub(crate) fn finished(
        &mut self,
        app: &mut App,
        result: Result<Switched, String>,
    ) -> Option<rho_host::AgentSession> {
        self.busy = false;
        app.switching = false;
        match result {
            Ok(switched) => {
                app.switch_to(
                    switched.info,
                    &switched.messages,
                    switched.editor_text,
                    switched.notice,
                    Instant::now(),
                );
                for warning in switched.warnings {
                    app.transcript.push(Entry::Error(warning));
                }
                switched.session
            }
            Err(message) => {
                app.transcript.push(Entry::Error(message));
                None
            }
        }
    }
}

impl App {
    /// A key while a sessions overlay is open: it takes every key.
    pub(crate) fn sessions_key(&mut self, key: KeyEvent) -> Vec<Command> {
        let Some(overlay) = self.sessions.as_mut() else {
            return Vec::new();
        };
        match overlay.on_key(key) {
            OverlayOutcome::Open => Vec::new(),
            OverlayOutcome::Cancelled => {
                self.sessions = None;
                Vec::new()
            }
            OverlayOutcome::Chosen(request) => {
                self.sessions = None;
                vec![Command::SwitchSession(request)]
            }
            OverlayOutcome::Remark(text) => {
                self.sessions = None;
                self.transcript.push(Entry::Notice(text));
                Vec::new()
            }
            // The tree stays open while its label is saved and its rows reloaded.
            OverlayOutcome::SaveLabel => vec![Command::SaveTreeLabel],
            // So does the session picker while a file is renamed or deleted.
            OverlayOutcome::ChangeSessionFile => vec![Command::ChangeSessionFile],
        }
    }
}

/// Saves the label entered in the open tree and reloads its rows so the label shows (a failure
/// closes the tree with the error in the conversation).
fn save_tree_label(app: &mut App, switcher: &dyn SessionSwitcher) {
    let Some(SessionsOverlay::Tree(tree)) = app.sessions.as_mut() else {
        return;
    };
    if let Some(change) = tree.take_label_change()
        && let Err(message) = switcher.set_label(&change.entry_id, change.label.as_deref())
    {
        app.sessions = None;
        app.transcript.push(Entry::Error(message));
        return;
    }
    tree.reload(switcher.tree());
}

/// Renames or deletes the session file the open `/resume` picker asked about, says how it went
/// in the picker's status line (as Pi does) and lists the sessions anew.
fn change_session_file(app: &mut App, switcher: &dyn SessionSwitcher) {
    let Some(SessionsOverlay::Resume(picker)) = app.sessions.as_mut() else {
        return;
    };
    let Some(change) = picker.take_change() else {
        return;
    };
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
    picker.reload(switcher.list(false), switcher.list(true));
    if let Some(status) = status {
        picker.set_status(status);
    }
}
