//! `rho` in a terminal with no `-p` and no `--mode`: the session is built exactly as for `-p`
//! (`session_builder::choose`, `session_builder::build_chosen`) and handed to the terminal UI in `rho-tui`, with what
//! only this mode has: the approval prompt for `ask` commands and `!cmd` run by the user (on
//! the RPC `bash` command's backend, `rpc::user_bash`).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::Context as _;
use async_trait::async_trait;
use rho_agent::{AgentMessage, CustomMessage};
use rho_host::ui::HostUi as _;
use rho_stdx::sync::lock;
use rho_tui::approval::TuiApprover;
use rho_tui::dialogs::TuiDialogs;
use rho_tui::hooks::ExtensionCommands;
use rho_tui::user_shell::{ShellOutput, UserShell};
use rho_tui::{Hooks, SessionInfo};
use serde_json::Value;

use crate::cli::Cli;
use crate::prompt_input::resolve_prompts;
use crate::remember::Remember;
use crate::rpc::user_bash::{self, BashCancel, BashResult, UserBashContext};
use crate::session_builder::{self, Built, Extras};
use crate::session_choice::SessionTarget;
use crate::session_switch::{Live, LiveHandle, Switcher, SwitcherParts};
use crate::slash_host::{self, SlashHost};

/// Set to `1`, the UI leaves right after its first frame: `bench/startup_tui.sh` times it.
const EXIT_AFTER_FIRST_FRAME: &str = "RHO_EXIT_AFTER_FIRST_FRAME";

/// Runs the interactive mode until the user leaves; `Err` is a failure before the screen opens.
pub async fn run(cli: Cli, target: SessionTarget, cwd: &Path) -> anyhow::Result<u8> {
    // An undecided project is asked about before its settings are read.
    crate::project_trust::ask_when_undecided();
    // Settings and keys (a `!command` may run for seconds) are read off the runtime.
    let choosing = cwd.to_path_buf();
    let (cli, target, chosen) = tokio::task::spawn_blocking(move || {
        let mut cli = cli;
        let chosen = session_builder::choose(&mut cli, &target, &choosing)?;
        anyhow::Ok((cli, target, chosen))
    })
    .await
    .context("the session could not be built")??;
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
    // "Always" writes exact `command` rules to the user's own rules file: a project's file
    // may only add `deny` and `ask` rules (its `allow` rules are dropped when it is loaded).
    // Without a RHO_HOME they go to the live session's project, which a switch may change.
    let home = rho_models::rho_home(&rho_models::ProcessEnvironment);
    let started_in = chosen.run_cwd.clone();
    let live_cell: Arc<std::sync::OnceLock<LiveHandle>> = Arc::default();
    let following = live_cell.clone();
    let user_rules = home.as_ref().map(|home| home.join("rules.toml"));
    let (approver, approvals) = TuiApprover::following(move || {
        if let Some(file) = &user_rules {
            return file.clone();
        }
        let run_cwd = following
            .get()
            .map_or_else(|| started_in.clone(), |live| lock(live).run_cwd.clone());
        run_cwd.join(".rho").join("rules.toml")
    });
    let approver: Arc<dyn rho_host::gate::Approver> = Arc::new(approver);
    let context_hooks: Arc<dyn rho_agent::ContextHooks> = Arc::new(UserBashContext);
    // MCP servers' questions and `/mcp`'s menus are dialogs over the editor.
    let (dialogs, dialog_events) = TuiDialogs::new();
    let dialogs = Arc::new(dialogs);
    let elicitor: Arc<dyn rho_mcp::Elicitor> =
        Arc::new(rho_host::mcp::DialogElicitor::new(dialogs.clone()));
    let extras = Extras {
        approver: Some(approver.clone()),
        context_hooks: Some(context_hooks.clone()),
        elicitor: Some(elicitor.clone()),
        hook_approver: None,
        mcp_servers: Vec::new(),
    };
    let open_picker = cli.resume;
    let theme = slash_host::run_theme(&cli, home.as_deref(), &chosen.run_cwd);
    let settings_rows = slash_host::settings_rows(&chosen.settings, theme.as_deref());
    let building = cli.clone();
    let built = tokio::task::spawn_blocking(move || {
        session_builder::build_chosen(&building, chosen, target, extras)
    })
    .await
    .context("the session could not be built")??;
    let info = describe(&built);
    let (ui, warnings) = slash_host::ui_setup(&cli, home.as_deref(), &built.run_cwd);
    let catalog = slash_host::catalog(&cli, &built.model.provider);
    let Built {
        session,
        run_cwd,
        router,
        mcp,
        ..
    } = built;
    if let Some(mcp) = &mcp {
        // Problems with the servers are said once every server has tried to connect.
        let watched = mcp.clone();
        let notices = dialogs.clone();
        tokio::spawn(async move {
            if let Some(report) = watched.attention().await {
                notices.notify(&report, rho_host::ui::NoticeLevel::Warning);
            }
        });
    }
    let live: LiveHandle = Arc::new(Mutex::new(Live {
        session: session.clone(),
        run_cwd: run_cwd.clone(),
        router,
        mcp,
    }));
    let _ = live_cell.set(live.clone());
    let switcher = Switcher::new(SwitcherParts {
        cli,
        cwd: cwd.to_path_buf(),
        home: rho_models::rho_home(&rho_models::ProcessEnvironment),
        approver: Some(approver),
        context_hooks: Some(context_hooks),
        elicitor: Some(elicitor),
        describe,
        info: info.clone(),
        live: live.clone(),
    });
    let command_host = SlashHost {
        live: live.clone(),
        catalog,
        cwd: cwd.to_path_buf(),
        settings: settings_rows,
        home: home.clone(),
    };
    let shell = SessionShell {
        live: live.clone(),
        running: Mutex::new(None),
    };
    let recorder = live.clone();
    let remember = Remember::in_home(home.as_deref());
    // Called beside the UI task once the level applies (it writes the session file and the
    // settings).
    let thinking_changed = move |_previous: rho_ai::ThinkingLevel, level: rho_ai::ThinkingLevel| {
        let (record, reasons) = {
            let live = lock(&recorder);
            let reasons = live.session.agent().with_state(|s| s.model.reasoning);
            (live.session.record().clone(), reasons)
        };
        // Best effort: the level is in effect either way, and a session file that cannot be
        // written fails the next message's write too, which is reported on exit.
        if let Err(error) = record.record_thinking_level(level) {
            record.keep_error(error);
        }
        remember
            .thinking_level(level, reasons)
            .map_err(|error| format!("Thinking level not kept for the next run: {error}"))
    };
    let hooks = Hooks {
        cwd: run_cwd,
        approvals: Some(approvals),
        shell: Some(Arc::new(shell)),
        exit_after_first_frame: std::env::var_os(EXIT_AFTER_FIRST_FRAME).is_some_and(|v| v == "1"),
        thinking_changed: Some(Arc::new(thinking_changed)),
        sessions: Some(Arc::new(switcher)),
        start_commands: if open_picker {
            vec![rho_tui::Effect::OpenSessionPicker]
        } else {
            Vec::new()
        },
        commands: Some(Arc::new(command_host)),
        ui,
        warnings,
        dialogs: Some(dialog_events),
        extensions: Some(Arc::new(McpCommand {
            live: live.clone(),
            dialogs,
        })),
    };
    crate::warnings::hold();
    let outcome = rho_tui::run(session, info, initial, hooks).await;
    crate::warnings::release();
    let (session, mcp) = {
        let live = lock(&live);
        (live.session.clone(), live.mcp.clone())
    };
    session.end("exit").await;
    let record = session.record().clone();
    record.flush().await;
    if let Some(mcp) = mcp {
        mcp.shutdown().await;
    }
    // The terminal is back to normal here, so these messages are readable.
    for error in record.take_errors() {
        eprintln!("Error: the session was not fully saved: {error}");
    }
    outcome?;
    Ok(0)
}

/// `/mcp` for the live session's servers: the manager, or a subcommand (`reconnect`).
struct McpCommand {
    live: LiveHandle,
    dialogs: Arc<TuiDialogs>,
}

#[async_trait]
impl ExtensionCommands for McpCommand {
    async fn run(&self, name: &str, args: &str) -> Result<(), String> {
        let mcp = lock(&self.live).mcp.clone();
        let Some(mcp) = mcp.filter(|_| name == "mcp") else {
            return Err(format!("/{name} is not available here"));
        };
        if args.trim().is_empty() {
            mcp.manage(self.dialogs.as_ref()).await;
        } else {
            mcp.command(args, self.dialogs.as_ref()).await;
        }
        Ok(())
    }
}

/// `!cmd` for this session: run as the RPC `bash` command runs, recorded as a
/// `bashExecution` message in the agent's transcript and the session file.
struct SessionShell {
    /// The session the command is recorded in: whichever is live when it ends.
    live: LiveHandle,
    /// Stops the command running now.
    running: Mutex<Option<BashCancel>>,
}

impl SessionShell {
    fn running(&self) -> std::sync::MutexGuard<'_, Option<BashCancel>> {
        lock(&self.running)
    }
}

#[async_trait]
impl UserShell for SessionShell {
    async fn run(&self, command: &str) -> Result<ShellOutput, String> {
        let cancel = BashCancel::new();
        *self.running() = Some(cancel.clone());
        let cwd = lock(&self.live).run_cwd.clone();
        // The interactive mode shows the output when the command ends.
        let result = user_bash::run(command, &cwd, &cancel, |_: &str| {}).await;
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
        let session = lock(&self.live).session.clone();
        session.add_message(message);
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
    let message = result.to_message(command, rho_ai::message::now_ms(), None);
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

/// What the status line shows for a built session.
fn describe(built: &Built) -> SessionInfo {
    SessionInfo {
        provider: built.model.provider.clone(),
        model_id: built.model.id.clone(),
        reasoning: built.model.reasoning,
        thinking: built.thinking,
        context_window: built.model.context_window,
        auto_compact: built.auto_compact,
        cwd: display_path(&built.run_cwd),
    }
}

/// The path with the home directory shown as `~` (Pi's footer).
pub(crate) fn display_path(path: &Path) -> String {
    let home = std::env::var_os("HOME").filter(|h| !h.is_empty());
    match home.as_deref().and_then(|h| path.strip_prefix(h).ok()) {
        Some(rest) if rest.as_os_str().is_empty() => "~".to_owned(),
        Some(rest) => format!("~/{}", rest.display()),
        None => path.display().to_string(),
    }
}
