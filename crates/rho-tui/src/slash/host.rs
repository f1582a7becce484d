//! What the commands need from outside the UI ([`CommandHost`], implemented by the binary: the
//! model catalog, the session file, the export) and the event loop's part in carrying out a
//! [`SlashAction`].

use std::io::Write;
use std::sync::Arc;

use rho_host::AgentSession;

use crate::app::App;
use crate::picker::{Picker, PickerItem};
use crate::slash::{ModelPicker, Panel};
use crate::transcript::{AssistantBlock, Entry};

/// A model the user can switch to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelOption {
    /// Its provider.
    pub provider: String,
    /// Its id.
    pub id: String,
    /// Its display name.
    pub name: String,
    /// Whether it reasons (the thinking level applies).
    pub reasoning: bool,
    /// Its context window in tokens.
    pub context_window: u64,
}

/// Work a command hands to the event loop, which holds the session and the host.
#[derive(Clone, Debug, PartialEq)]
pub enum SlashAction {
    /// `/model [search]` or Ctrl+L: list the models in a picker, the search typed in.
    OpenModelPicker(String),
    /// A model picked: switch to it.
    SetModel(ModelOption),
    /// `/compact [instructions]`.
    Compact(Option<String>),
    /// `/session`: show the statistics.
    Session,
    /// `/copy`: the last assistant text to the clipboard.
    Copy,
    /// `/export [path]`.
    Export(Option<String>),
    /// `/settings`: show the effective settings.
    Settings,
    /// `/settings auto-compaction on|off`: for this session.
    SetAutoCompaction(bool),
    /// A setting changed with `/settings`, to be kept in the global settings file.
    SaveSetting(SettingChange),
}

/// A setting `/settings` changed, as Pi keeps it in `settings.json`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SettingChange {
    /// `compaction.enabled`.
    AutoCompaction(bool),
    /// `theme` (`dark` or `light`).
    Theme(String),
}

/// The binary's side of the commands.
pub trait CommandHost: Send + Sync {
    /// The models with a usable key, in the catalog's order.
    fn models(&self) -> Vec<ModelOption>;
    /// Switches the running session to `model` (recording a `model_change` entry when the
    /// session has a file, and a `thinking_level_change` when the level moved with it); the
    /// thinking level now in effect. `Err` is a message for the user.
    fn set_model(&self, model: &ModelOption) -> Result<rho_ai::ThinkingLevel, String>;
    /// `/session`'s rows: label and value.
    fn session_stats(&self) -> Vec<(String, String)>;
    /// Writes the HTML export to `path` (or the default name); the path written, or a message.
    fn export_html(&self, path: Option<&str>) -> Result<String, String>;
    /// `/settings`' rows: setting and effective value.
    fn settings(&self) -> Vec<(String, String)>;
    /// Keeps `change` in the global settings file, every other setting in it untouched. `Err`
    /// is a message for the user (the file is then left as it was).
    fn save_setting(&self, change: &SettingChange) -> Result<(), String>;
}

/// Carries out `action`; failures go into the conversation.
pub(crate) fn run_action(
    host: Option<&Arc<dyn CommandHost>>,
    session: &AgentSession,
    app: &mut App,
    action: SlashAction,
) {
    let Some(host) = host else {
        app.transcript.push(Entry::Error(
            "This command is not available here".to_owned(),
        ));
        return;
    };
    match action {
        SlashAction::OpenModelPicker(query) => open_model_picker(app, host.models(), &query),
        SlashAction::SetModel(model) => match host.set_model(&model) {
            Ok(thinking) => {
                let info = &mut app.status.info;
                info.provider = model.provider.clone();
                info.model_id = model.id.clone();
                info.reasoning = model.reasoning;
                info.context_window = model.context_window;
                info.thinking = thinking;
                app.transcript.push(Entry::Notice(format!(
                    "Model: {}/{}",
                    model.provider, model.id
                )));
            }
            Err(error) => app.transcript.push(Entry::Error(error)),
        },
        SlashAction::Compact(instructions) => {
            let session = session.clone();
            tokio::spawn(async move {
                // A failure arrives as the `compaction_end` notice, which the app shows.
                let _ = session.compact(instructions.as_deref()).await;
            });
        }
        SlashAction::Session => {
            app.commands.panel = Some(Panel::table("Session", host.session_stats()));
        }
        SlashAction::Settings => {
            let mut rows = host.settings();
            rows.push((
                "theme (in effect)".to_owned(),
                app.commands.theme.name().to_owned(),
            ));
            app.commands.panel = Some(Panel::table("Settings", rows));
        }
        SlashAction::SetAutoCompaction(enabled) => {
            session.set_auto_compaction(enabled);
            app.status.info.auto_compact = enabled;
            let state = if enabled { "on" } else { "off" };
            app.transcript
                .push(Entry::Notice(format!("Auto-compaction: {state}")));
        }
        SlashAction::SaveSetting(change) => {
            if let Err(error) = host.save_setting(&change) {
                app.transcript.push(Entry::Error(error));
            }
        }
        SlashAction::Copy => copy_last_reply(app),
        SlashAction::Export(path) => match host.export_html(path.as_deref()) {
            Ok(written) => app
                .transcript
                .push(Entry::Notice(format!("Session exported to: {written}"))),
            Err(error) => app.transcript.push(Entry::Error(error)),
        },
    }
}

/// Opens the picker over `models`, the one in use highlighted, `query` typed in.
pub fn open_model_picker(app: &mut App, models: Vec<ModelOption>, query: &str) {
    if models.is_empty() {
        app.transcript.push(Entry::Error(
            "No models available. Set an API key or add models to models.json.".to_owned(),
        ));
        return;
    }
    let items = models
        .iter()
        .map(|m| PickerItem::new(m.id.clone(), vec![format!("[{}]", m.provider)]))
        .collect();
    let current = models
        .iter()
        .position(|m| m.provider == app.status.info.provider && m.id == app.status.info.model_id);
    let mut picker = Picker::new("Select model", items);
    if let Some(current) = current {
        picker = picker.with_selected(current);
    }
    if !query.is_empty() {
        picker.set_query(query);
    }
    app.commands.model_picker = Some(ModelPicker { picker, models });
}

/// The last assistant reply's text, copied with OSC 52 (the terminal puts it on the system
/// clipboard, over ssh too).
fn copy_last_reply(app: &mut App) {
    let text = app.transcript.iter().rev().find_map(|entry| match entry {
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
    });
    let Some(text) = text else {
        app.transcript
            .push(Entry::Error("No agent messages to copy yet.".to_owned()));
        return;
    };
    let mut out = std::io::stdout();
    let written = out
        .write_all(osc52(&text).as_bytes())
        .and_then(|()| out.flush());
    app.transcript.push(match written {
        Ok(()) => Entry::Notice("Copied last agent message to clipboard".to_owned()),
        Err(error) => Entry::Error(format!("Cannot copy: {error}")),
    });
}

/// The OSC 52 sequence that sets the clipboard to `text`.
pub fn osc52(text: &str) -> String {
    format!("\x1b]52;c;{}\x07", base64(text.as_bytes()))
}

/// Standard base64 with padding (OSC 52's encoding); too small a need for a dependency.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk.first().copied().unwrap_or(0),
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18u32, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                let index = ((n >> shift) & 63) as usize;
                out.push(char::from(ALPHABET.get(index).copied().unwrap_or(b'=')));
            } else {
                out.push('=');
            }
        }
    }
    out
}
