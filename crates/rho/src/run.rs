//! One invocation of `rho -p` / `rho --mode json`: resolve the prompt, build the session, run
//! the prompts, map the outcome to an exit code.

use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use anyhow::{Context as _, bail};
use rho_agent::AgentOptions;
use rho_ai::faux::FauxScript;
use rho_host::{AgentSession, SettledReason};

use crate::cli::{Cli, Mode};
use crate::model_choice;
use crate::output::{SessionHeader, print_final_answer, write_json_line};
use crate::prompt_input::resolve_prompts;
use crate::setup;

/// Exit codes after the first model call (contract §3).
mod exit {
    pub const COMPLETED: u8 = 0;
    pub const ERROR: u8 = 1;
    pub const BUDGET: u8 = 3;
    pub const SIGINT: u8 = 130;
    pub const SIGTERM: u8 = 143;
    pub const SIGHUP: u8 = 129;
}

/// Runs the command line; `Err` is a failure before the first model call (exit 2).
pub async fn run(cli: Cli) -> anyhow::Result<u8> {
    if let Some(flag) = cli.session_flag() {
        bail!("{flag} is not supported yet");
    }
    if let Some(search) = &cli.list_models {
        let (registry, auth) = model_choice::load_registry();
        print!(
            "{}",
            rho_models::format_model_list(registry.available(&auth), search.as_deref())
        );
        return Ok(exit::COMPLETED);
    }
    let json = match cli.mode {
        Some(Mode::Json) => true,
        Some(Mode::Rpc) => return crate::rpc::run(&cli).await,
        Some(Mode::Text) | None => false,
    };
    let piped_stdin = !std::io::stdin().is_terminal();
    if !json && !cli.print && !piped_stdin {
        bail!("interactive mode is not available in this version of rho; use -p or --mode json");
    }
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let settings = setup::settings(&cwd)?;
    let budget = setup::budget(&cli, &settings)?;
    let retry = setup::retry_policy(&settings)?;
    let choice = match &cli.faux_script {
        Some(script_path) => {
            if cli.model.is_some() || cli.provider.is_some() {
                bail!("--faux-script cannot be combined with --model or --provider");
            }
            let script_text = std::fs::read_to_string(script_path)
                .with_context(|| format!("cannot read faux script {}", script_path.display()))?;
            model_choice::faux(&FauxScript::parse(&script_text)?)
        }
        None => {
            let (registry, auth) = model_choice::load_registry();
            model_choice::choose(&cli, &settings, &registry, auth)?
        }
    };
    let prompts = resolve_prompts(&cli.messages, piped_stdin, &cwd)?;
    if !prompts.first.images.is_empty() {
        bail!("image @file arguments are not supported yet (the session takes text prompts only)");
    }

    let session_id = uuid::Uuid::now_v7().to_string();
    let workspace = setup::workspace(&cli, &settings, &cwd)?;
    let mut options = AgentOptions::new(choice.provider, choice.model);
    options.tools = workspace.tools;
    options.tool_hooks = Some(workspace.gate);
    options.system_prompt = Some(workspace.system_prompt);
    options.steering_mode = settings.steering_mode.unwrap_or_default();
    options.follow_up_mode = settings.follow_up_mode.unwrap_or_default();
    options.api_key = choice.api_key;
    options.session_id = Some(session_id.clone());
    let session = AgentSession::builder(options)
        .budget(budget)
        .retry(retry)
        .prompt_resources(workspace.resources)
        .build();
    session
        .agent()
        .update_state(|state| state.thinking_level = choice.thinking);

    if json {
        write_json_line(&SessionHeader {
            kind: "session",
            version: 3,
            id: &session_id,
            timestamp: chrono::Utc::now()
                .format("%Y-%m-%dT%H:%M:%S%.3fZ")
                .to_string(),
            cwd: &cwd.to_string_lossy(),
        });
        session.subscribe(write_json_line);
    }

    let signal = Arc::new(AtomicU8::new(0));
    watch_signals(session.clone(), signal.clone());

    // Like Pi, the remaining messages run one after another whatever the previous one ended in;
    // only an abort (a signal) stops the sequence.
    let mut last = None;
    let texts = std::iter::once(prompts.first.text).chain(prompts.rest);
    for prompt in texts {
        let settled = session.prompt(&prompt).await?;
        last = Some(settled.reason);
        if settled.reason == SettledReason::Aborted || signal.load(Ordering::SeqCst) != 0 {
            break;
        }
    }
    if let code @ 1.. = signal.load(Ordering::SeqCst) {
        return Ok(code);
    }
    if !json {
        let messages = session.agent().with_state(|s| s.messages.clone());
        if let Err(error) = print_final_answer(&messages) {
            eprintln!("{error}");
            return Ok(exit::ERROR);
        }
    }
    Ok(match last {
        Some(SettledReason::Completed) | None => exit::COMPLETED,
        Some(SettledReason::Budget) => exit::BUDGET,
        Some(SettledReason::Error | SettledReason::Aborted) => exit::ERROR,
    })
}

/// SIGINT, SIGTERM and SIGHUP abort the run cleanly; the exit code says which one came. A second
/// signal exits at once, in case something does not honour the abort.
fn watch_signals(session: AgentSession, signal: Arc<AtomicU8>) {
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
        let session = session.clone();
        let signal = signal.clone();
        tokio::spawn(async move {
            while stream.recv().await.is_some() {
                if signal.swap(code, Ordering::SeqCst) != 0 {
                    std::process::exit(i32::from(code));
                }
                session.abort_now();
            }
        });
    }
}
