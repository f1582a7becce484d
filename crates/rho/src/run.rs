//! One invocation of `rho -p` / `rho --mode json`: resolve the prompt, build the session, run
//! the prompts, map the outcome to an exit code.

use std::io::{IsTerminal, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use anyhow::{Context as _, bail};
use rho_agent::AgentOptions;
use rho_ai::faux::FauxScript;
use rho_host::toolset::{DEFAULT_TOOLS, create_tools};
use rho_host::{AgentSession, Budget, RetryPolicy, SettledReason};

use crate::cli::{Cli, Mode};
use crate::model_choice;
use crate::output::{SessionHeader, print_final_answer, write_json_line};

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
        Some(Mode::Rpc) => bail!("--mode rpc is not available in this version of rho"),
        Some(Mode::Text) | None => false,
    };
    let piped_stdin = !std::io::stdin().is_terminal();
    if !json && !cli.print && !piped_stdin {
        bail!("interactive mode is not available in this version of rho; use -p or --mode json");
    }
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
            model_choice::choose(&cli, &registry, auth)?
        }
    };
    let budget = budget(&cli)?;
    let retry = retry_policy()?;
    let prompts = resolve_prompts(&cli.messages, piped_stdin)?;
    let cwd = std::env::current_dir().context("cannot read the current directory")?;

    let session_id = uuid::Uuid::now_v7().to_string();
    let tools = if cli.no_tools {
        Vec::new()
    } else {
        let names: Vec<&str> = match &cli.tools {
            Some(names) => names.iter().map(|name| name.trim()).collect(),
            None => DEFAULT_TOOLS.to_vec(),
        };
        create_tools(&cwd, &names)
    };
    let mut options = AgentOptions::new(choice.provider, choice.model);
    options.tools = tools;
    options.api_key = choice.api_key;
    options.session_id = Some(session_id.clone());
    let session = AgentSession::builder(options)
        .budget(budget)
        .retry(retry)
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
    for prompt in prompts {
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

/// The budget flags (contract §3); a negative or non-finite cost is a bad value (exit 2).
fn budget(cli: &Cli) -> anyhow::Result<Budget> {
    if let Some(cost) = cli.max_cost
        && !(cost.is_finite() && cost >= 0.0)
    {
        bail!("--max-cost must be a non-negative number of US dollars, got {cost}");
    }
    Ok(Budget {
        max_turns: cli.max_turns,
        max_cost: cli.max_cost,
        max_tokens: cli.max_tokens,
    })
}

/// Pi's retry defaults; the developer knob `RHO_RETRY_BASE_DELAY_MS` shortens the base delay
/// (tests of the retry path over real HTTP would otherwise wait 2 s, 4 s, …).
fn retry_policy() -> anyhow::Result<RetryPolicy> {
    let mut policy = RetryPolicy::default();
    if let Ok(value) = std::env::var("RHO_RETRY_BASE_DELAY_MS") {
        policy.base_delay_ms = value.trim().parse().with_context(|| {
            format!("RHO_RETRY_BASE_DELAY_MS must be a number of milliseconds, got {value:?}")
        })?;
    }
    Ok(policy)
}

/// Piped stdin (trimmed) + the first message, joined without a separator; the other messages
/// follow as separate prompts (pi-reference §7.1).
fn resolve_prompts(messages: &[String], piped_stdin: bool) -> anyhow::Result<Vec<String>> {
    let mut stdin_text = String::new();
    if piped_stdin {
        std::io::stdin()
            .read_to_string(&mut stdin_text)
            .context("cannot read standard input")?;
    }
    let stdin_text = stdin_text.trim();
    let mut prompts: Vec<String> = messages.to_vec();
    match prompts.first_mut() {
        Some(first) => first.insert_str(0, stdin_text),
        None if !stdin_text.is_empty() => prompts.push(stdin_text.to_owned()),
        None => bail!("no prompt given: pass a message, e.g. rho -p \"…\""),
    }
    Ok(prompts)
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
