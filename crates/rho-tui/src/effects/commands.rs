//! A `/` command's work, carried out with the binary's [`CommandHost`] and the session.

use std::io::Write;
use std::sync::Arc;

use rho_host::AgentSession;

use super::lane::Lane;
use crate::app::{App, CommandsReply, Input};
use crate::slash::host::osc52;
use crate::slash::{CommandHost, SlashAction};

/// Carries out `action`: the host's calls go to `lane` and their answers come back from there;
/// what needs no host answers at once.
pub(super) fn carry_out(
    host: Option<&Arc<dyn CommandHost>>,
    lane: &Lane,
    session: &AgentSession,
    app: &App,
    action: SlashAction,
) -> Vec<Input> {
    let Some(host) = host else {
        return vec![Input::Failed(
            "This command is not available here".to_owned(),
        )];
    };
    let reply = match action {
        SlashAction::Compact(instructions) => {
            let session = session.clone();
            tokio::spawn(async move {
                // A failure arrives as the `compaction_end` notice, which the app shows.
                let _ = session.compact(instructions.as_deref()).await;
            });
            return Vec::new();
        }
        SlashAction::SetAutoCompaction(enabled) => {
            session.set_auto_compaction(enabled);
            CommandsReply::AutoCompaction(enabled)
        }
        SlashAction::Copy => {
            let Some(text) = app.last_reply() else {
                return vec![Input::Failed("No agent messages to copy yet.".to_owned())];
            };
            CommandsReply::Copied(copy(&text))
        }
        action => {
            let host = Arc::clone(host);
            lane.call(move || call(host.as_ref(), action));
            return Vec::new();
        }
    };
    vec![Input::Commands(reply)]
}

/// The host's part of `action` (beside the UI task: it reads and writes files, and a key may be
/// a command to run).
fn call(host: &dyn CommandHost, action: SlashAction) -> Option<Input> {
    let reply = match action {
        SlashAction::OpenModelPicker(query) => CommandsReply::Models {
            models: host.models(),
            query,
        },
        SlashAction::SetModel(model) => CommandsReply::ModelSet {
            result: host.set_model(&model),
            model,
        },
        SlashAction::Session => CommandsReply::SessionStats(host.session_stats()),
        SlashAction::Settings => CommandsReply::Settings(host.settings()),
        SlashAction::SaveSetting(change) => {
            return host.save_setting(&change).err().map(Input::Failed);
        }
        SlashAction::Export(path) => CommandsReply::Exported(host.export_html(path.as_deref())),
        // Carried out without the host.
        SlashAction::Compact(_) | SlashAction::SetAutoCompaction(_) | SlashAction::Copy => {
            return None;
        }
    };
    Some(Input::Commands(reply))
}

/// `text` to the clipboard with OSC 52 (the terminal puts it on the system clipboard, over ssh
/// too).
fn copy(text: &str) -> Result<(), String> {
    let mut out = std::io::stdout();
    out.write_all(osc52(text).as_bytes())
        .and_then(|()| out.flush())
        .map_err(|error| error.to_string())
}
