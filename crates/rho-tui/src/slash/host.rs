//! What the commands need from outside the UI ([`CommandHost`], implemented by the binary: the
//! model catalog, the session file, the export) and the work a command hands to the event loop
//! ([`SlashAction`]).

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

/// The binary's side of the commands. Its calls are made on tokio's blocking pool, one at a time
/// and in the order the user asked for them, so they may read and write files and run commands
/// (a `!command` key) while the UI goes on.
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
