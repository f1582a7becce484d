//! `rho` in a terminal with no `-p` and no `--mode`: the session is built exactly as for `-p`
//! (`run::choose`, `run::build_with`) and handed to the terminal UI in `rho-tui`, with what
//! only this mode has: the approval prompt for `ask` commands and `!cmd` run by the user (on
//! the RPC `bash` command's backend, `rpc::user_bash`).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use rho_agent::{AgentMessage, CustomMessage};
use rho_host::AgentSession;
use rho_host::persist::Persistence;
use rho_tui::approval::TuiApprover;
use rho_tui::user_shell::{ShellOutput, UserShell};
use rho_tui::{Hooks, SessionInfo};
use serde_json::Value;

use crate::cli::Cli;
use crate::prompt_input::resolve_prompts;
use crate::rpc::user_bash::{self, BashCancel, BashResult, UserBashContext};
use crate::run::{self, Built, Extras};
use crate::session_choice::SessionTarget;

/// Set to `1`, the UI leaves right after its first frame: `bench/startup_tui.sh` times it.
const EXIT_AFTER_FIRST_FRAME: &str = "RHO_EXIT_AFTER_FIRST_FRAME";

/// Runs the interactive mode until the user leaves; `Err` is a failure before the screen opens.
pub async fn run(mut cli: Cli, target: SessionTarget, cwd: &Path) -> anyhow::Result<u8> {
    let chosen = run::choose(&mut cli, &target, cwd)?;
    // Messages on the command line are sent first, one after another, as Pi does.
    let initial = if cli.messages.is_empty() {
        Vec::new()
    } else {
        let prompts = resolve_prompts(&cli.messages, false, cwd)?;
        if !prompts.first.images.is_empty() {
            anyhow::bail!("@image arguments are not supported in the interactive mode yet");
        }
        std::iter::once(prompts.first.text)
            .chain(prompts.rest)
            .collect()
    };
    let rules_file = chosen.run_cwd.join(".rho").join("rules.toml");
    let (approver, approvals) = TuiApprover::new(rules_file);
    let extras = Extras {
        approver: Some(Arc::new(approver)),
        context_hooks: Some(Arc::new(UserBashContext)),
    };
    let Built {
        session,
        persistence,
        model,
        thinking,
        run_cwd,
        auto_compact,
        ..
    } = run::build_with(&cli, chosen, target, extras)?;
    let info = SessionInfo {
        provider: model.provider.clone(),
        model_id: model.id.clone(),
        reasoning: model.reasoning,
        thinking,
        context_window: model.context_window,
        auto_compact,
        cwd: display_path(&run_cwd),
    };
    let shell = SessionShell {
        session: session.clone(),
        persistence: persistence.clone(),
        cwd: run_cwd.clone(),
        running: Mutex::new(None),
    };
    let recorder = persistence.clone();
    let thinking_changed = move |level| {
        if let Some(persistence) = &recorder {
            // Best effort: the level is in effect either way, and a session file that cannot
            // be written fails the next message's write too, which is reported on exit.
            let _ = persistence.record_thinking_level(level);
        }
    };
    let hooks = Hooks {
        cwd: run_cwd,
        approvals: Some(approvals),
        shell: Some(Arc::new(shell)),
        exit_after_first_frame: std::env::var_os(EXIT_AFTER_FIRST_FRAME).is_some_and(|v| v == "1"),
        thinking_changed: Some(Box::new(thinking_changed)),
    };
    let outcome = rho_tui::run(session, info, initial, hooks).await;
    // The terminal is back to normal here, so these messages are readable.
    if let Some(persistence) = &persistence {
        if let Err(error) = persistence.sync() {
            eprintln!("Error: {error}");
        }
        for error in persistence.take_errors() {
            eprintln!("Error: the session was not fully saved: {error}");
        }
    }
    outcome?;
    Ok(0)
}

/// `!cmd` for this session: run as the RPC `bash` command runs, recorded as a
/// `bashExecution` message in the agent's transcript and the session file.
struct SessionShell {
    session: AgentSession,
    persistence: Option<Persistence>,
    cwd: PathBuf,
    /// Stops the command running now.
    running: Mutex<Option<BashCancel>>,
}

impl SessionShell {
    fn running(&self) -> std::sync::MutexGuard<'_, Option<BashCancel>> {
        self.running
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[async_trait]
impl UserShell for SessionShell {
    async fn run(&self, command: &str) -> Result<ShellOutput, String> {
        let cancel = BashCancel::new();
        *self.running() = Some(cancel.clone());
        let result = user_bash::run(command, &self.cwd, &cancel).await;
        *self.running() = None;
        let result = result.map_err(|error| format!("Cannot run the command: {error}"))?;
        Ok(ShellOutput {
            output: result.output,
            exit_code: result.exit_code,
            cancelled: result.cancelled,
            truncated: result.truncated,
            full_output_path: result
                .full_output_path
                .map(|p| p.to_string_lossy().into_owned()),
        })
    }

    fn cancel(&self) {
        if let Some(cancel) = self.running().as_ref() {
            cancel.cancel();
        }
    }

    fn record(&self, command: &str, output: &ShellOutput, exclude_from_context: bool) {
        let message = bash_message(command, output, exclude_from_context);
        if let Some(persistence) = &self.persistence {
            let _ = persistence.with_file(|file| file.append_message(message.clone()));
        }
        self.session
            .agent()
            .update_state(|state| state.messages.push(message));
    }
}

/// Pi's `bashExecution` message; `excludeFromContext` (the `!!` form) goes before the
/// timestamp, where Pi writes it.
fn bash_message(command: &str, output: &ShellOutput, exclude: bool) -> AgentMessage {
    let result = BashResult {
        output: output.output.clone(),
        exit_code: output.exit_code,
        cancelled: output.cancelled,
        truncated: output.truncated,
        full_output_path: output.full_output_path.as_ref().map(PathBuf::from),
    };
    let message = result.to_message(command, rho_ai::message::now_ms());
    if !exclude {
        return message;
    }
    let AgentMessage::Custom(custom) = &message else {
        return message;
    };
    let mut custom = CustomMessage::clone(custom);
    let timestamp = custom.fields.shift_remove("timestamp");
    custom
        .fields
        .insert("excludeFromContext".into(), Value::Bool(true));
    if let Some(timestamp) = timestamp {
        custom.fields.insert("timestamp".into(), timestamp);
    }
    AgentMessage::Custom(Arc::new(custom))
}

/// The path with the home directory shown as `~` (Pi's footer).
fn display_path(path: &Path) -> String {
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty());
    match home.as_deref().and_then(|h| path.strip_prefix(h).ok()) {
        Some(rest) if rest.as_os_str().is_empty() => "~".to_owned(),
        Some(rest) => format!("~/{}", rest.display()),
        None => path.display().to_string(),
    }
}
