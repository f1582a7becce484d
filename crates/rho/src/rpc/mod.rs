//! `rho --mode rpc`: Pi's RPC protocol over stdin/stdout (pi-reference §7.6, Pi's
//! `docs/rpc.md`). Commands arrive one JSON object a line; responses echo the command's `id`;
//! session events are written as they happen, the same JSON as `--mode json`. Every line on
//! stdout is written whole, under the stdout lock.
//!
//! Sessions are persisted as in `-p` mode (pi-reference §8): the session flags choose the file,
//! a new session's file is written when its first prompt is accepted, and the session commands
//! (`new_session`, `switch_session`, `fork`, `clone`, `get_fork_messages`, `set_session_name`,
//! `export_html`) move between files. `compact` summarises the older part of the session on
//! request; threshold and overflow compaction run on their own unless `set_auto_compaction`
//! turns them off.

mod command_list;
pub(crate) mod commands;
mod dispatch;
mod host;
pub(crate) mod models;
mod reply;
mod setup;
pub(crate) mod stats;
mod tree;
mod ui;
pub(crate) mod user_bash;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context as _, bail};
use tokio::io::{AsyncBufReadExt as _, BufReader};

use self::host::{Host, Restore};
use crate::cli::Cli;
use crate::session_builder::{self, Extras, SessionStart};
use crate::session_choice::{SessionTarget, choose_session, restored_thinking};

/// Exit codes of the signals RPC mode ends on (pi-reference §7.7).
const SIGTERM_EXIT: u8 = 143;
const SIGHUP_EXIT: u8 = 129;

/// Serves the protocol until stdin ends (exit 0) or SIGTERM / SIGHUP (143 / 129). `Err` is a
/// failure before serving (exit 2).
pub async fn run(cli: &Cli) -> anyhow::Result<u8> {
    if !cli.messages.is_empty() {
        bail!("--mode rpc takes no messages: send prompts as commands on stdin");
    }
    if cli.resume {
        bail!("--resume lists sessions for a person; in --mode rpc pass --session or --continue");
    }
    // Heard from the start: a signal while the first model's key command runs ends rho at once,
    // killing that command's process group.
    let mut signals = Signals::listen();
    let starting = cli.clone();
    let host = tokio::select! {
        host = tokio::task::spawn_blocking(move || start(&starting)) => {
            host.context("the session could not be built")??
        }
        code = signals.next() => {
            rho_models::kill_running_commands();
            return Ok(code);
        }
    };
    let (host, restore) = host;
    if let Some(restore) = restore {
        // A resumed file's own model and level, as `switch_session` restores them.
        let session = host.session();
        if let Some(file) = session.record().detach() {
            let context = file.context();
            let start = host.next_start(file, context, restore);
            host.replace(start).await?;
        }
    }
    let code = tokio::select! {
        () = serve(&host) => 0,
        code = signals.next() => code,
    };
    // Like Pi, nothing is written once the process ends; the run and any user command are
    // stopped so no process of theirs outlives rho.
    host.shut_down().await;
    Ok(code)
}

/// Builds the host and its first session (blocking: settings, keys, the session file); with
/// what an opened file's own model and level restore, when they do.
fn start(cli: &Cli) -> anyhow::Result<(Arc<Host>, Option<Restore>)> {
    let launch_cwd = std::env::current_dir().context("cannot read the current directory")?;
    let home = rho_models::rho_home(&rho_models::ProcessEnvironment);
    let target = choose_session(cli, &launch_cwd, home.as_deref())?;
    let (session_dir, restore, cwd) = start_target(cli, &target, &launch_cwd);
    let settings = crate::setup::settings(cli, &cwd)?;
    let first = setup::choose_model(cli, &settings)?;
    let queue_modes = (
        settings.steering_mode.unwrap_or_default(),
        settings.follow_up_mode.unwrap_or_default(),
    );
    // Questions (a server's elicitation, `/mcp`'s) go to the client as Pi's extension UI
    // requests.
    let ui = Arc::new(ui::RpcUi::new(Arc::new(reply::Output::default())));
    let extras = Extras {
        approver: None,
        context_hooks: Some(Arc::new(user_bash::UserBashContext)),
        elicitor: Some(Arc::new(rho_host::mcp::DialogElicitor::new(ui.clone()))),
        hook_approver: Some(Arc::new(rho_host::ui::UiApprover::new(ui.clone()))),
        mcp_servers: Vec::new(),
    };
    let kit = session_builder::kit(cli, &cwd, settings, &first.entry.model, first.route, extras)?;
    let (file, context) = session_builder::record_for(target, &cwd);
    let first_start = SessionStart {
        file,
        context,
        model: first.entry.model,
        thinking: first.thinking,
        queue_modes,
        auto_compaction: kit.compaction.enabled,
        auto_retry: kit.retry.enabled,
        name: cli.name.clone(),
    };
    let host = Host::start(
        kit,
        first.catalog,
        crate::remember::Remember::in_home(home.as_deref()),
        session_dir,
        first_start,
        ui,
    )?;
    let restore = (restore.model || restore.thinking).then_some(restore);
    Ok((host, restore))
}

/// The directory `new_session` writes to, what a resumed file restores (not what the command
/// line sets) and the working directory (a resumed session's own, as in `-p` mode).
fn start_target(
    cli: &Cli,
    target: &SessionTarget,
    launch_cwd: &Path,
) -> (Option<PathBuf>, Restore, PathBuf) {
    let parent = |path: &Path| path.parent().map(Path::to_path_buf);
    let nothing = Restore {
        model: false,
        thinking: false,
        has_thinking_entry: false,
    };
    match target {
        SessionTarget::Open(opened) => {
            let restore = Restore {
                model: cli.model.as_deref().is_none_or(str::is_empty) && cli.provider.is_none(),
                thinking: restored_thinking(cli, opened).is_some(),
                has_thinking_entry: opened.has_thinking_entry,
            };
            let dir = opened.file.path().and_then(parent);
            (dir, restore, opened.cwd.clone())
        }
        SessionTarget::New { dir, .. } => (Some(dir.clone()), nothing, launch_cwd.to_path_buf()),
        SessionTarget::NewAt(path) => (parent(path), nothing, launch_cwd.to_path_buf()),
        SessionTarget::Ephemeral | SessionTarget::Listed => {
            (None, nothing, launch_cwd.to_path_buf())
        }
    }
}

/// Reads stdin, one command per `\n`-terminated line (a trailing `\r` dropped), until it ends.
async fn serve(host: &Arc<Host>) {
    let mut stdin = BufReader::new(tokio::io::stdin());
    let mut line = Vec::new();
    loop {
        line.clear();
        match stdin.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        if line.last() == Some(&b'\n') {
            line.pop();
        }
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        let text = String::from_utf8_lossy(&line);
        match rho_rpc::parse_input(&text) {
            Ok(rho_rpc::Input::Command(request)) => dispatch::dispatch(host, request),
            Ok(rho_rpc::Input::UiResponse(answer)) => host.ui.answer(answer),
            Err(response) => host.output.write(&response.to_json()),
        }
    }
}

/// SIGTERM and SIGHUP, listened to from the moment this is made.
struct Signals {
    streams: Option<(tokio::signal::unix::Signal, tokio::signal::unix::Signal)>,
}

impl Signals {
    fn listen() -> Signals {
        use tokio::signal::unix::{SignalKind, signal};
        let streams = match (
            signal(SignalKind::terminate()),
            signal(SignalKind::hangup()),
        ) {
            (Ok(term), Ok(hup)) => Some((term, hup)),
            _ => None,
        };
        Signals { streams }
    }

    /// Resolves when SIGTERM or SIGHUP arrives, with the exit code it means.
    async fn next(&mut self) -> u8 {
        let Some((term, hup)) = &mut self.streams else {
            return std::future::pending().await;
        };
        tokio::select! {
            _ = term.recv() => SIGTERM_EXIT,
            _ = hup.recv() => SIGHUP_EXIT,
        }
    }
}
