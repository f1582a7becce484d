//! What the binary plugs into the interactive mode besides the session: the hosts it calls, the
//! approval channel, the start-up commands. Read by the event loop and by `effects/`.

use std::path::PathBuf;
use std::sync::Arc;

use rho_ai::ThinkingLevel;
use tokio::sync::mpsc;

use async_trait::async_trait;

use crate::app::Effect;
use crate::approval::ApprovalRequest;
use crate::dialogs::DialogEvent;
use crate::user_shell::UserShell;

/// What the binary plugs into the interactive mode besides the session.
pub struct Hooks {
    /// The session's working directory (git branch, `@` completion).
    pub cwd: PathBuf,
    /// Approval requests from the gate's [`crate::approval::TuiApprover`].
    pub approvals: Option<mpsc::UnboundedReceiver<ApprovalRequest>>,
    /// Runs `!cmd` lines; without one they are refused with a message.
    pub shell: Option<Arc<dyn UserShell>>,
    /// Leave right after the first frame is drawn (start-up measurement).
    pub exit_after_first_frame: bool,
    /// Told of every change of the thinking level the user makes, once it applies: the level
    /// before and the one now (the session file and the settings record it). Called beside the
    /// UI task, in order with the command host's calls; an `Err` is shown as an error line.
    pub thinking_changed: Option<ThinkingHook>,
    /// Lists and switches sessions (`/resume`, `/new`, `/fork`, `/tree`); without one they are
    /// refused with a message.
    pub sessions: Option<Arc<dyn crate::sessions::SessionSwitcher>>,
    /// Effects carried out before the first key (`rho --resume` opens the session picker).
    pub start_commands: Vec<Effect>,
    /// Carries out `/model`, `/session`, `/export`, `/settings`…; without one they are refused
    /// with a message.
    pub commands: Option<Arc<dyn crate::slash::CommandHost>>,
    /// The command registry (with skills and templates), the keybindings and the theme.
    pub ui: crate::slash::Commands,
    /// Start-up problems to show as the first lines (a bad `keybindings.json`).
    pub warnings: Vec<String>,
    /// The host's questions and notices ([`crate::dialogs::TuiDialogs`]).
    pub dialogs: Option<mpsc::UnboundedReceiver<DialogEvent>>,
    /// Runs the commands the host provides (`/mcp`); their names are in the registry.
    pub extensions: Option<Arc<dyn ExtensionCommands>>,
}

/// Commands the host provides beside rho's own (Pi's extension commands: `/mcp`). A command
/// runs on its own task while the UI goes on; it talks to the user through the dialogs.
#[async_trait]
pub trait ExtensionCommands: Send + Sync {
    /// Runs `/name args`; the error is said as an error line.
    async fn run(&self, name: &str, args: &str) -> Result<(), String>;
}

/// What the host does with a thinking level the user picked: `(previous, now)`.
pub type ThinkingHook =
    Arc<dyn Fn(ThinkingLevel, ThinkingLevel) -> Result<(), String> + Send + Sync>;
