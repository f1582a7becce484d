//! One invocation of `rho -p` / `rho --mode json`: resolve the prompt, build the session, run
//! the prompts, map the outcome to an exit code.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, OnceLock};

use anyhow::Context as _;
use rho_host::{AgentSession, SettledReason};

use crate::cli::{Cli, Mode};
use crate::output::{print_final_answer, write_json_line};
use crate::prompt_input::{Prompts, resolve_prompts};
use crate::session_builder::{self, Built, Extras};
use crate::session_choice::{SessionTarget, choose_session};

/// Exit codes after the first model call (contract §3).
mod exit {
    pub const COMPLETED: u8 = 0;
    pub const ERROR: u8 = 1;
    pub const BUDGET: u8 = 3;
    /// A hook stopped the run (`continue: false`, or a blocked prompt).
    pub const HOOK: u8 = 4;
    pub const SIGINT: u8 = 130;
    pub const SIGTERM: u8 = 143;
    pub const SIGHUP: u8 = 129;
}

/// `--export <session.jsonl> [out.html]`: writes the page and prints where (Pi's wording); a
/// failure is one line and exit 1, as in Pi.
fn export(paths: &[std::path::PathBuf]) -> u8 {
    let written = match (paths.first(), std::env::current_dir()) {
        (Some(input), Ok(cwd)) => {
            crate::export::export_session_file(input, paths.get(1).map(|p| p.as_path()), &cwd)
        }
        (None, _) => Err(anyhow::anyhow!("--export needs a session file")),
        (_, Err(error)) => {
            Err(anyhow::Error::from(error).context("cannot read the current directory"))
        }
    };
    match written {
        Ok(path) => {
            println!("Exported to: {}", path.display());
            exit::COMPLETED
        }
        Err(error) => {
            eprintln!("Error: {error:#}");
            exit::ERROR
        }
    }
}

/// Runs the command line; `Err` is a failure before the first model call (exit 2).
pub async fn run(mut cli: Cli) -> anyhow::Result<u8> {
    if let Some(paths) = &cli.export {
        return Ok(export(paths));
    }
    if let Some(search) = &cli.list_models {
        let (registry, auth) = crate::model_choice::load_registry();
        print!(
            "{}",
            rho_models::format_model_list(registry.available(&auth), search.as_deref())
        );
        return Ok(exit::COMPLETED);
    }
    let json = match cli.mode {
        Some(Mode::Json) => true,
        Some(Mode::Rpc) => return crate::rpc::run(&cli).await,
        Some(Mode::Acp) => return crate::acp::run(&cli).await,
        Some(Mode::Text) | None => false,
    };
    let piped_stdin = !std::io::stdin().is_terminal();
    // Pi's rule (no `-p`, no `--mode`, stdin a terminal), and stdout a terminal too: a screen
    // drawn into a pipe or a file helps nobody, so that case runs as `-p` would.
    let interactive = !json && !cli.print && !piped_stdin && std::io::stdout().is_terminal();
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let home = rho_models::rho_home(&rho_models::ProcessEnvironment);
    let target = choose_session(&cli, &cwd, home.as_deref())?;
    if matches!(target, SessionTarget::Listed) {
        return Ok(exit::COMPLETED);
    }
    if interactive {
        return crate::interactive::run(cli, target, &cwd).await;
    }
    // Signals are heard from here on: while the session is being built (a `!command` key may
    // run for seconds) they end the process at once, killing what it started.
    let signal = Arc::new(AtomicU8::new(0));
    let live: Arc<OnceLock<AgentSession>> = Arc::default();
    watch_signals(live.clone(), signal.clone());
    // Settings, keys, stdin and the session file are read off the runtime.
    let built = tokio::task::spawn_blocking(move || {
        let chosen = session_builder::choose(&mut cli, &target, &cwd)?;
        let prompts = resolve_prompts(&cli.messages, piped_stdin, &cwd)?;
        let built = session_builder::build_chosen(&cli, chosen, target, Extras::default())?;
        anyhow::Ok((built, prompts))
    })
    .await
    .context("the session could not be built")??;
    let (
        Built {
            session,
            header,
            mcp,
            ..
        },
        prompts,
    ) = built;
    if let Some(mcp) = &mcp {
        // Problems with the servers are said once, when every server has tried to connect.
        let watched = mcp.clone();
        tokio::spawn(async move {
            if let Some(report) = watched.attention().await {
                crate::warnings::say(format!("rho: {report}"));
            }
        });
    }

    if json {
        write_json_line(&header);
        session.subscribe(write_json_line);
    }
    let _ = live.set(session.clone());

    let outcome = run_prompts(&session, prompts, &signal, mcp.as_ref(), json).await;
    session.end("exit").await;
    let record = session.record();
    record.flush().await;
    for error in record.take_errors() {
        eprintln!("Error: the session was not fully saved: {error}");
    }
    if let Some(mcp) = &mcp {
        mcp.shutdown().await;
    }
    let last = outcome?;
    if let code @ 1.. = signal.load(Ordering::SeqCst) {
        return Ok(code);
    }
    if let Some((SettledReason::Hook, reason)) = &last {
        if !json {
            eprintln!(
                "rho: stopped by a hook: {}",
                reason.as_deref().unwrap_or("(no reason)")
            );
        }
        return Ok(exit::HOOK);
    }
    if !json {
        let messages = session.agent().with_state(|s| s.messages.clone());
        if let Err(error) = print_final_answer(&messages) {
            eprintln!("{error}");
            return Ok(exit::ERROR);
        }
    }
    Ok(match last.map(|(reason, _)| reason) {
        Some(SettledReason::Completed) | None => exit::COMPLETED,
        Some(SettledReason::Budget) => exit::BUDGET,
        Some(SettledReason::Hook) => exit::HOOK,
        Some(SettledReason::Error | SettledReason::Aborted) => exit::ERROR,
    })
}

/// Like Pi, the remaining messages run one after another whatever the previous one ended in;
/// only an abort (a signal) stops the sequence. A `/mcp` message is the command, not a prompt.
/// Returns how the last prompt settled, and why when a hook stopped it.
async fn run_prompts(
    session: &AgentSession,
    prompts: Prompts,
    signal: &AtomicU8,
    mcp: Option<&Arc<rho_host::mcp::McpHost>>,
    json: bool,
) -> anyhow::Result<Option<(SettledReason, Option<String>)>> {
    let mut last = None;
    // `@image` arguments go with the first message, as in Pi.
    let mut images = Some(prompts.first.images);
    let texts = std::iter::once(prompts.first.text).chain(prompts.rest);
    for prompt in texts {
        if let (Some(host), Some(args)) = (mcp, rho_host::mcp::mcp_command_args(&prompt)) {
            host.command(args, &crate::mcp::PrintUi { json }).await;
            continue;
        }
        let images = images.take().unwrap_or_default();
        let settled = session.prompt_with_images(&prompt, images).await?;
        last = Some((settled.reason, settled.stop_reason.clone()));
        if matches!(settled.reason, SettledReason::Aborted | SettledReason::Hook)
            || signal.load(Ordering::SeqCst) != 0
        {
            break;
        }
    }
    Ok(last)
}

/// SIGINT, SIGTERM and SIGHUP abort the run cleanly; the exit code says which one came. A second
/// signal exits at once, in case something does not honour the abort. Before the session exists
/// the first one exits at once. Either way a `!command` still running is killed with its group.
fn watch_signals(live: Arc<OnceLock<AgentSession>>, signal: Arc<AtomicU8>) {
    use tokio::signal::unix::{SignalKind, signal as listen};
    let kinds = [
        (SignalKind::interrupt(), exit::SIGINT),
        (SignalKind::terminate(), exit::SIGTERM),
        (SignalKind::hangup(), exit::SIGHUP),
    ];
    for (kind, code) in kinds {
        let Ok(mut stream) = listen(kind) else {
            continue;
        };
        let live = live.clone();
        let signal = signal.clone();
        tokio::spawn(async move {
            while stream.recv().await.is_some() {
                rho_models::kill_running_commands();
                let first = signal.swap(code, Ordering::SeqCst) == 0;
                match live.get() {
                    Some(session) if first => session.abort_now(),
                    Some(session) => {
                        // Every entry is already written; make them durable before leaving.
                        session.record().flush().await;
                        std::process::exit(i32::from(code));
                    }
                    None => std::process::exit(i32::from(code)),
                }
            }
        });
    }
}
