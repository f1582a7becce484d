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

mod backing;
mod build;
mod dispatch;
mod host;
pub(crate) mod models;
mod protocol;
mod session_commands;
pub(crate) mod sessions;
mod setup;
pub(crate) mod stats;
pub(crate) mod user_bash;

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context as _, bail};
use tokio::io::{AsyncBufReadExt as _, BufReader};

use self::backing::PendingFile;
use self::build::Target;
use self::host::{Host, HostConfig};
use self::sessions::Restore;
use crate::cli::Cli;
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
    let launch_cwd = std::env::current_dir().context("cannot read the current directory")?;
    let home = rho_models::rho_home(&rho_models::ProcessEnvironment);
    let chosen = choose_session(cli, &launch_cwd, home.as_deref())?;
    let (target, session_dir, restore, cwd) = start_target(cli, chosen, &launch_cwd);
    let settings = crate::setup::settings(&cwd)?;
    let first = setup::choose_model(cli, &settings)?;
    let local = first.entry.model.provider == crate::local::LOCAL;
    let workspace = crate::setup::workspace(cli, &settings, &cwd, local)?;
    let config = HostConfig {
        tools: workspace.tools,
        gate: workspace.gate,
        system_prompt: workspace.system_prompt,
        resources: workspace.resources,
        cwd,
        budget: crate::setup::budget(cli, &settings)?,
        retry: crate::setup::retry_policy(&settings)?,
        compaction: rho_host::compaction::CompactionPolicy::from_settings(&settings.compaction),
        catalog: first.catalog,
        steering_mode: settings.steering_mode.unwrap_or_default(),
        follow_up_mode: settings.follow_up_mode.unwrap_or_default(),
        remember: crate::remember::Remember::in_home(home.as_deref()),
    };
    let host = Host::new(
        config,
        first.entry.model,
        first.route,
        first.thinking,
        session_dir,
    );
    host.install(target, restore)?;
    let code = tokio::select! {
        () = serve(&host) => 0,
        code = signalled() => code,
    };
    // Like Pi, nothing is written once the process ends; the run and any user command are
    // stopped so no process of theirs outlives rho.
    host.output.close();
    if let Some(cancel) = host
        .bash_cancel
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take()
    {
        cancel.cancel();
    }
    host.current().session.abort().await;
    host.release_file();
    Ok(code)
}

/// The first session's file, the directory `new_session` writes to, what a resumed file
/// restores (not what the command line sets) and the working directory (a resumed session's
/// own, as in `-p` mode).
fn start_target(
    cli: &Cli,
    chosen: SessionTarget,
    launch_cwd: &std::path::Path,
) -> (Target, Option<PathBuf>, Restore, PathBuf) {
    let parent = |path: &std::path::Path| path.parent().map(std::path::Path::to_path_buf);
    match chosen {
        SessionTarget::Open(opened) => {
            let restore = Restore {
                model: cli.model.as_deref().is_none_or(str::is_empty) && cli.provider.is_none(),
                thinking: restored_thinking(cli, &opened).is_some(),
            };
            let dir = parent(opened.file.path());
            (Target::Open(opened.file), dir, restore, opened.cwd)
        }
        SessionTarget::New { dir } => (
            Target::Pending(PendingFile::in_dir(&dir, launch_cwd, None)),
            Some(dir),
            Restore::ALL,
            launch_cwd.to_path_buf(),
        ),
        SessionTarget::NewAt(path) => (
            Target::Pending(PendingFile::at(path.clone(), launch_cwd)),
            parent(&path),
            Restore::ALL,
            launch_cwd.to_path_buf(),
        ),
        SessionTarget::Ephemeral | SessionTarget::Listed => (
            Target::Memory { name: None },
            None,
            Restore::ALL,
            launch_cwd.to_path_buf(),
        ),
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
        match protocol::parse_line(&text) {
            Ok(request) => dispatch::dispatch(host, request),
            Err(response) => host.output.write(&response.to_json()),
        }
    }
}

/// Resolves when SIGTERM or SIGHUP arrives, with the exit code it means.
async fn signalled() -> u8 {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut hup)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::hangup()),
    ) else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = term.recv() => SIGTERM_EXIT,
        _ = hup.recv() => SIGHUP_EXIT,
    }
}
