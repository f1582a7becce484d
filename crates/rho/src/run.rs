//! One invocation of `rho -p` / `rho --mode json`: resolve the prompt, build the session, run
//! the prompts, map the outcome to an exit code.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use anyhow::{Context as _, bail};
use rho_agent::AgentOptions;
use rho_ai::faux::FauxScript;
use rho_ai::{Model, ThinkingLevel};
use rho_host::RetryPolicy;
use rho_host::budget::Budget;
use rho_host::compaction::CompactionPolicy;
use rho_host::persist::{self, Persistence};
use rho_host::settings::Settings;
use rho_host::{AgentSession, SettledReason};
use rho_session::{SessionContext, SessionFile, SessionHeader};

use crate::cli::{Cli, Mode};
use crate::model_choice::{self, ModelChoice};
use crate::output::{print_final_answer, write_json_line};
use crate::prompt_input::{Prompts, resolve_prompts};
use crate::rpc::models::{Route, RoutedProvider};
use crate::session_choice::{
    SessionTarget, choose_session, ephemeral_header, restore_model, restored_thinking,
};
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
    let chosen = choose(&mut cli, &target, &cwd)?;
    let prompts = resolve_prompts(&cli.messages, piped_stdin, &cwd)?;
    let Built {
        session,
        persistence,
        header,
        ..
    } = build(&cli, chosen, target)?;

    if json {
        write_json_line(&header);
        session.subscribe(write_json_line);
    }

    let signal = Arc::new(AtomicU8::new(0));
    watch_signals(session.clone(), signal.clone(), persistence.clone());

    let outcome = run_prompts(&session, prompts, &signal).await;
    if let Some(persistence) = &persistence {
        if let Err(error) = persistence.sync() {
            eprintln!("Error: {error}");
        }
        for error in persistence.take_errors() {
            eprintln!("Error: the session was not fully saved: {error}");
        }
    }
    let last = outcome?;
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

/// What a run is about to use, chosen before anything is created: where it runs, its settings,
/// budget, retry policy and model.
pub struct Chosen {
    /// Where the run's tools work (a resumed `--session`: where it ran before).
    pub run_cwd: PathBuf,
    /// The merged settings.
    pub settings: Settings,
    budget: Budget,
    retry: RetryPolicy,
    /// The model, its provider, key and thinking level.
    pub choice: ModelChoice,
}

/// Chooses what a run uses, in the order every mode reports its failures: settings, budget,
/// retry, model.
pub fn choose(cli: &mut Cli, target: &SessionTarget, cwd: &Path) -> anyhow::Result<Chosen> {
    let opened = match target {
        SessionTarget::Open(opened) => Some(opened.as_ref()),
        _ => None,
    };
    // A resumed `--session` runs where it ran before (Pi: the header's cwd).
    let run_cwd = opened.map_or_else(|| cwd.to_path_buf(), |o| o.cwd.clone());
    let settings = setup::settings(&run_cwd)?;
    let budget = setup::budget(cli, &settings)?;
    let retry = setup::retry_policy(&settings)?;
    let session_thinking = opened.and_then(|o| restored_thinking(cli, o));
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
            let not_restored = opened.and_then(|o| restore_model(cli, o, &registry, &auth));
            let mut choice = model_choice::choose(cli, &settings, &registry, auth)?;
            if let Some(message) = not_restored {
                crate::warnings::warn(format_args!(
                    "{message}. Using {}/{}",
                    choice.model.provider, choice.model.id
                ));
            }
            if let (Some(level), Some(entry)) = (
                session_thinking,
                registry.find(&choice.model.provider, &choice.model.id),
            ) {
                choice.thinking = rho_models::clamp_thinking_level(entry, level);
            }
            choice
        }
    };
    Ok(Chosen {
        run_cwd,
        settings,
        budget,
        retry,
        choice,
    })
}

/// A session built as every mode builds it: the workspace (tools, gate, system prompt), the
/// agent, the restored transcript and the session file, recorded before the first event.
pub struct Built {
    /// The session.
    pub session: AgentSession,
    /// Appends every entry to the session file (`None` for `--no-session`).
    pub persistence: Option<Persistence>,
    /// The session's header (an ephemeral one without a file).
    pub header: SessionHeader,
    /// The model the session starts with.
    pub model: Model,
    /// The thinking level it starts with.
    pub thinking: ThinkingLevel,
    /// Where its tools work.
    pub run_cwd: PathBuf,
    /// Whether compaction runs on its own.
    pub auto_compact: bool,
    /// The session's provider: the chosen model's route, to which a model switch adds its own.
    pub router: Arc<RoutedProvider>,
}

/// Builds the session for `chosen` and opens or creates its file.
pub fn build(cli: &Cli, chosen: Chosen, target: SessionTarget) -> anyhow::Result<Built> {
    build_with(cli, chosen, target, Extras::default())
}

/// What the interactive mode adds to a session built as every mode builds it.
#[derive(Default)]
pub struct Extras {
    /// Decides `ask` commands (without one they are refused).
    pub approver: Option<Arc<dyn rho_host::gate::Approver>>,
    /// Replaces the agent's conversion to model messages (`bashExecution` for `!cmd`).
    pub context_hooks: Option<Arc<dyn rho_agent::ContextHooks>>,
}

/// [`build`] with the interactive mode's [`Extras`].
pub fn build_with(
    cli: &Cli,
    chosen: Chosen,
    target: SessionTarget,
    extras: Extras,
) -> anyhow::Result<Built> {
    let Chosen {
        run_cwd,
        settings,
        budget,
        retry,
        choice,
    } = chosen;
    let local = choice.model.provider == crate::local::LOCAL;
    let mut workspace = setup::workspace(cli, &settings, &run_cwd, local)?;
    if let Some(approver) = extras.approver {
        workspace.gate =
            Arc::new(rho_host::gate::Gate::new(workspace.policy.clone()).with_approver(approver));
    }

    let run_cwd_text = run_cwd.to_string_lossy().into_owned();
    let (file, context) = match target {
        SessionTarget::Open(opened) => (Some(opened.file), opened.context),
        SessionTarget::New { dir } => (
            Some(SessionFile::create(&dir, &run_cwd_text, None)?),
            SessionContext::empty(),
        ),
        SessionTarget::NewAt(path) => (
            Some(SessionFile::create_at(&path, &run_cwd_text)?),
            SessionContext::empty(),
        ),
        SessionTarget::Ephemeral | SessionTarget::Listed => (None, SessionContext::empty()),
    };
    let header = file
        .as_ref()
        .map_or_else(|| ephemeral_header(&run_cwd), |f| f.header().clone());

    let provider_name = choice.model.provider.clone();
    let model_id = choice.model.id.clone();
    let model = choice.model.clone();
    let compaction = CompactionPolicy::from_settings(&settings.compaction);
    let auto_compact = compaction.enabled;
    let router = Arc::new(RoutedProvider::new(
        &choice.model,
        Route {
            provider: choice.provider,
            api_key: choice.api_key.clone(),
            headers: Vec::new(),
        },
    ));
    let mut options = AgentOptions::new(router.clone(), choice.model);
    options.tools = workspace.tools;
    options.tool_hooks = Some(workspace.gate);
    if let Some(hooks) = extras.context_hooks {
        options.context_hooks = Some(hooks);
    }
    options.system_prompt = Some(workspace.system_prompt);
    options.steering_mode = settings.steering_mode.unwrap_or_default();
    options.follow_up_mode = settings.follow_up_mode.unwrap_or_default();
    options.api_key = choice.api_key;
    options.session_id = Some(header.id.clone());
    let session = AgentSession::builder(options)
        .budget(budget)
        .retry(retry)
        .prompt_resources(workspace.resources)
        .compaction(compaction)
        .build();
    session
        .agent()
        .update_state(|state| state.thinking_level = choice.thinking);
    persist::restore_messages(&session, &context);
    // Subscribed before any printer: every entry is on disk before its event is shown.
    let persistence = file.map(|file| Persistence::attach(&session, file));
    if let Some(persistence) = &persistence {
        persistence.record_start(&context, &provider_name, &model_id, choice.thinking)?;
    }
    Ok(Built {
        session,
        persistence,
        header,
        model,
        thinking: choice.thinking,
        run_cwd,
        auto_compact,
        router,
    })
}

/// Like Pi, the remaining messages run one after another whatever the previous one ended in;
/// only an abort (a signal) stops the sequence. Returns how the last one settled.
async fn run_prompts(
    session: &AgentSession,
    prompts: Prompts,
    signal: &AtomicU8,
) -> anyhow::Result<Option<SettledReason>> {
    let mut last = None;
    // `@image` arguments go with the first message, as in Pi.
    let mut images = Some(prompts.first.images);
    let texts = std::iter::once(prompts.first.text).chain(prompts.rest);
    for prompt in texts {
        let images = images.take().unwrap_or_default();
        let settled = session.prompt_with_images(&prompt, images).await?;
        last = Some(settled.reason);
        if settled.reason == SettledReason::Aborted || signal.load(Ordering::SeqCst) != 0 {
            break;
        }
    }
    Ok(last)
}

/// SIGINT, SIGTERM and SIGHUP abort the run cleanly; the exit code says which one came. A second
/// signal exits at once, in case something does not honour the abort.
fn watch_signals(session: AgentSession, signal: Arc<AtomicU8>, persistence: Option<Persistence>) {
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
        let persistence = persistence.clone();
        tokio::spawn(async move {
            while stream.recv().await.is_some() {
                if signal.swap(code, Ordering::SeqCst) != 0 {
                    // Every entry is already written; make them durable before leaving.
                    if let Some(persistence) = &persistence {
                        let _ = persistence.sync();
                    }
                    std::process::exit(i32::from(code));
                }
                session.abort_now();
            }
        });
    }
}
