//! `rho --mode rpc`: Pi's RPC protocol over stdin/stdout (pi-reference §7.6, Pi's
//! `docs/rpc.md`). Commands arrive one JSON object a line; responses echo the command's `id`;
//! session events are written as they happen, the same JSON as `--mode json`. Every line on
//! stdout is written whole, under the stdout lock.
//!
//! Sessions on disk and compaction do not exist yet: their commands parse, and answer with a
//! clear "not supported yet" error.

mod dispatch;
mod host;
mod models;
mod protocol;
mod setup;
mod stats;
mod user_bash;

use std::sync::Arc;

use anyhow::{Context as _, bail};
use tokio::io::{AsyncBufReadExt as _, BufReader};

use self::host::{Host, HostConfig};
use crate::cli::Cli;

/// Exit codes of the signals RPC mode ends on (pi-reference §7.7).
const SIGTERM_EXIT: u8 = 143;
const SIGHUP_EXIT: u8 = 129;

/// Serves the protocol until stdin ends (exit 0) or SIGTERM / SIGHUP (143 / 129). `Err` is a
/// failure before serving (exit 2).
pub async fn run(cli: &Cli) -> anyhow::Result<u8> {
    if !cli.messages.is_empty() {
        bail!("--mode rpc takes no messages: send prompts as commands on stdin");
    }
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let settings = crate::setup::settings(&cwd)?;
    let first = setup::choose_model(cli, &settings)?;
    let workspace = crate::setup::workspace(cli, &settings, &cwd)?;
    let config = HostConfig {
        tools: workspace.tools,
        gate: workspace.gate,
        system_prompt: workspace.system_prompt,
        resources: workspace.resources,
        cwd,
        budget: crate::setup::budget(cli, &settings)?,
        retry: crate::setup::retry_policy(&settings)?,
        catalog: first.catalog,
        steering_mode: settings.steering_mode.unwrap_or_default(),
        follow_up_mode: settings.follow_up_mode.unwrap_or_default(),
    };
    let host = Host::new(config, first.entry.model, first.route, first.thinking);
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
    Ok(code)
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
