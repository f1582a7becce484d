//! One way to build a session, for every mode — `-p`, `--mode json`, `--mode rpc`, the
//! interactive mode — and for every session switch: a new option is added here once.
//!
//! Building is two steps. [`SessionKit`] is what the sessions of one working directory share:
//! the settings, the workspace (tools, gate, system prompt, skills), the budget and policies, and
//! the provider router that follows model switches. [`SessionStart`] is what one session starts
//! from: its record (a file on disk, one written at the first message, or memory), the restored
//! transcript, model and thinking level. [`build`] puts them together; the record writes its
//! start entries before anything else can happen.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context as _, bail};
use rho_agent::{AgentOptions, ContextHooks, QueueMode};
use rho_ai::faux::FauxScript;
use rho_ai::{Model, ThinkingLevel};
use rho_host::budget::Budget;
use rho_host::compaction::CompactionPolicy;
use rho_host::gate::{Approver, Gate};
use rho_host::hooks::tool_hooks::{HookedGate, NotifyingApprover};
use rho_host::hooks::{HookSetup, Hooks, StartSource};
use rho_host::settings::Settings;
use rho_host::tool_set::{ToolExposure, ToolSet};
use rho_host::tools::tool_search::ToolSearch;
use rho_host::{AgentSession, RetryPolicy};
use rho_session::{SessionContext, SessionError, SessionFile, SessionHeader};

use crate::cli::Cli;
use crate::model_choice::{self, ModelChoice};
use crate::rpc::models::{Route, RoutedProvider};
use crate::session_choice::{SessionTarget, restore_model, restored_thinking};
use crate::setup::{self, Workspace};

/// What the sessions of one working directory share.
pub struct SessionKit {
    /// Where the tools work.
    pub cwd: PathBuf,
    /// Tools, the gate, the system prompt, skills and templates.
    pub workspace: Workspace,
    /// The per-prompt budget.
    pub budget: Budget,
    /// The auto-retry policy a session starts with.
    pub retry: RetryPolicy,
    /// The `compaction` settings a session starts with.
    pub compaction: CompactionPolicy,
    /// The provider every session calls: the route of each model it was switched to.
    pub router: Arc<RoutedProvider>,
    /// Replaces the default conversion to model messages (`bashExecution` for `!cmd`).
    pub context_hooks: Option<Arc<dyn ContextHooks>>,
    /// Who decides calls that need approval (the interactive mode's prompt).
    pub approver: Option<Arc<dyn Approver>>,
    /// Who decides calls a hook asks about, when `approver` does not (RPC's client).
    pub hook_approver: Option<Arc<dyn Approver>>,
}

/// What one session starts from.
pub struct SessionStart {
    /// Its record.
    pub file: SessionFile,
    /// What the record restores (empty for a new session).
    pub context: SessionContext,
    /// The model.
    pub model: Model,
    /// The thinking level.
    pub thinking: ThinkingLevel,
    /// `steeringMode`, `followUpMode`.
    pub queue_modes: (QueueMode, QueueMode),
    /// Whether compaction and retry run on their own (a client may have switched them).
    pub auto_compaction: bool,
    /// Whether failed runs are retried.
    pub auto_retry: bool,
    /// `--name`: written as a `session_info` entry before the start entries (Pi 1.6).
    pub name: Option<String>,
}

/// Builds the session of `start` with `kit`: the agent over the router, the record, the
/// restored transcript, and the start entries Pi writes (`model_change`, `thinking_level_change`).
pub fn build(kit: &SessionKit, start: SessionStart) -> Result<AgentSession, SessionError> {
    let header = start.file.header().clone();
    let mut options = AgentOptions::new(kit.router.clone(), start.model.clone());
    options.tools = kit.workspace.tools.clone();
    options.tool_hooks = Some(kit.workspace.gate.clone());
    let hooks = session_hooks(kit, &start, &header.id);
    if let Some(hooks) = &hooks {
        let approver = kit.approver.clone().map(|approver| {
            Arc::new(NotifyingApprover::new(approver, hooks.clone())) as Arc<dyn Approver>
        });
        let mut gate = Gate::new(kit.workspace.policy.clone());
        if let Some(approver) = approver {
            gate = gate.with_approver(approver);
        }
        let asker = kit.approver.clone().or_else(|| kit.hook_approver.clone());
        options.tool_hooks = Some(Arc::new(HookedGate::new(
            Arc::new(gate),
            hooks.clone(),
            asker.map(|a| Arc::new(NotifyingApprover::new(a, hooks.clone())) as Arc<dyn Approver>),
        )));
    }
    options.context_hooks = kit.context_hooks.clone();
    options.system_prompt = Some(kit.workspace.system_prompt.text().into());
    (options.steering_mode, options.follow_up_mode) = start.queue_modes;
    options.session_id = Some(header.id);
    // A pending file is written at the first message, before any tool call can read the path.
    options.session_file = start.file.path().map(Path::to_path_buf);
    let tools = Arc::new(ToolSet::new(options.tools.clone()));
    if kit.workspace.tool_search {
        let registration = kit
            .workspace
            .mcp
            .clone()
            .map(|mcp| mcp as Arc<dyn rho_host::tools::tool_search::Registration>);
        let search = ToolSearch::new(tools.clone(), registration);
        tools.register(Arc::new(search), ToolExposure::Direct, true, None);
    }
    if let Some(mcp) = &kit.workspace.mcp {
        mcp.attach(&tools);
    }
    let mut builder = AgentSession::builder(options).tool_set(tools);
    if let Some(mcp) = &kit.workspace.mcp {
        builder = builder.before_prompt(mcp.clone());
    }
    if let Some(hooks) = hooks {
        builder = builder.hooks(hooks);
    }
    let session = builder
        .budget(kit.budget)
        .retry(RetryPolicy {
            enabled: start.auto_retry,
            ..kit.retry
        })
        .prompt_resources(kit.workspace.resources.clone())
        .system_prompt(kit.workspace.system_prompt.clone())
        .compaction(CompactionPolicy {
            enabled: start.auto_compaction,
            ..kit.compaction
        })
        .file(start.file)
        .build();
    session
        .agent()
        .update_state(|state| state.thinking_level = start.thinking);
    session.restore(&start.context);
    if let Some(name) = &start.name {
        session
            .record()
            .with_file(|file| file.append_session_info(name).map(drop))
            .transpose()?;
    }
    session.record().record_start(
        &start.context,
        &start.model.provider,
        &start.model.id,
        start.thinking,
    )?;
    Ok(session)
}

/// The command hooks of one session, when any are configured: run in the session's directory
/// with the tools' environment (no keys) and `RHO_PROJECT_DIR`/`CLAUDE_PROJECT_DIR`.
fn session_hooks(kit: &SessionKit, start: &SessionStart, session_id: &str) -> Option<Arc<Hooks>> {
    let config = kit.workspace.hooks.clone()?;
    let policy = &kit.workspace.policy;
    let mut env: Vec<(OsString, OsString)> = policy.tool_environment().apply(std::env::vars_os());
    for name in ["RHO_PROJECT_DIR", "CLAUDE_PROJECT_DIR"] {
        env.push((name.into(), kit.cwd.clone().into_os_string()));
    }
    Some(Arc::new(Hooks::new(HookSetup {
        config,
        cwd: kit.cwd.clone(),
        env,
        permission_mode: policy.mode().as_str().to_owned(),
        session_id: session_id.to_owned(),
        transcript_path: start.file.path().map(Path::to_path_buf),
        source: if start.context.messages.is_empty() {
            StartSource::Startup
        } else {
            StartSource::Resume
        },
    })))
}

/// The record a target starts with, and what it restores. A new session's file is written
/// at its first message.
pub fn record_for(target: SessionTarget, cwd: &Path) -> (SessionFile, SessionContext) {
    let cwd_text = cwd.to_string_lossy();
    match target {
        SessionTarget::Open(opened) => (opened.file, opened.context),
        SessionTarget::New { dir, id } => (
            SessionFile::pending_in(&dir, &cwd_text, None, id),
            SessionContext::empty(),
        ),
        SessionTarget::NewAt(path) => (
            SessionFile::pending_at(&path, &cwd_text),
            SessionContext::empty(),
        ),
        SessionTarget::Ephemeral | SessionTarget::Listed => {
            (SessionFile::in_memory(&cwd_text), SessionContext::empty())
        }
    }
}

/// What the interactive and RPC modes add to a session built as every mode builds it.
#[derive(Default, Clone)]
pub struct Extras {
    /// Decides `ask` commands (without one they are refused).
    pub approver: Option<Arc<dyn rho_host::gate::Approver>>,
    /// Replaces the agent's conversion to model messages (`bashExecution` for `!cmd`).
    pub context_hooks: Option<Arc<dyn ContextHooks>>,
    /// Answers MCP servers' elicitation (without one, the form's defaults answer).
    pub elicitor: Option<Arc<dyn rho_mcp::Elicitor>>,
    /// Decides the calls a `PreToolUse` hook asks about, when `approver` does not (RPC: the
    /// client, through Pi's extension UI).
    pub hook_approver: Option<Arc<dyn rho_host::gate::Approver>>,
    /// MCP servers the ACP client names, in `mcp.json`'s shape, beside the configured ones.
    pub mcp_servers: Vec<(String, serde_json::Value)>,
}

/// What a run is about to use, chosen before anything is created: where it runs, its settings
/// and model.
pub struct Chosen {
    /// Where the run's tools work (a resumed `--session`: where it ran before).
    pub run_cwd: PathBuf,
    /// The merged settings.
    pub settings: Settings,
    /// The model, its provider, key and thinking level.
    pub choice: ModelChoice,
}

/// Chooses what a run uses, in the order every mode reports its failures: settings, budget,
/// retry, model (budget and retry are checked again when the kit is made).
pub fn choose(cli: &mut Cli, target: &SessionTarget, cwd: &Path) -> anyhow::Result<Chosen> {
    let opened = match target {
        SessionTarget::Open(opened) => Some(opened.as_ref()),
        _ => None,
    };
    // A resumed `--session` runs where it ran before (Pi: the header's cwd).
    let run_cwd = opened.map_or_else(|| cwd.to_path_buf(), |o| o.cwd.clone());
    let settings = setup::settings(cli, &run_cwd)?;
    setup::budget(cli, &settings)?;
    setup::retry_policy(&settings)?;
    let session_thinking = opened.and_then(|o| restored_thinking(cli, o));
    let choice = match faux_script(cli)? {
        Some(script) => model_choice::faux(&script),
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
        choice,
    })
}

/// The script of `--faux-script`, read and parsed, when it is given (every mode's check).
pub fn faux_script(cli: &Cli) -> anyhow::Result<Option<FauxScript>> {
    let Some(script_path) = &cli.faux_script else {
        return Ok(None);
    };
    if cli.model.is_some() || cli.provider.is_some() {
        bail!("--faux-script cannot be combined with --model or --provider");
    }
    let script_text = std::fs::read_to_string(script_path)
        .with_context(|| format!("cannot read faux script {}", script_path.display()))?;
    Ok(Some(FauxScript::parse(&script_text)?))
}

/// Makes the kit for the sessions of `cwd`: the workspace (a `local` model gets the read-only
/// tools and a short prompt), budget and policies from the flags and settings, and a router
/// starting with `model` on `route`.
pub fn kit(
    cli: &Cli,
    cwd: &Path,
    settings: Settings,
    model: &Model,
    route: Route,
    extras: Extras,
) -> anyhow::Result<SessionKit> {
    let local = model.provider == crate::local::LOCAL;
    let mut workspace = setup::workspace(
        cli,
        &settings,
        cwd,
        local,
        extras.elicitor,
        &extras.mcp_servers,
    )?;
    if let Some(approver) = extras.approver.clone() {
        workspace.gate =
            Arc::new(rho_host::gate::Gate::new(workspace.policy.clone()).with_approver(approver));
    }
    Ok(SessionKit {
        cwd: cwd.to_path_buf(),
        budget: setup::budget(cli, &settings)?,
        retry: setup::retry_policy(&settings)?,
        compaction: CompactionPolicy::from_settings(&settings.compaction),
        router: Arc::new(
            RoutedProvider::new(model, route).with_max_retry_delay(settings.max_retry_delay()),
        ),
        context_hooks: extras.context_hooks,
        approver: extras.approver,
        hook_approver: extras.hook_approver,
        workspace,
    })
}

/// A session built for `-p`, `--mode json` and the interactive mode, with what they show of it.
pub struct Built {
    /// The session.
    pub session: AgentSession,
    /// The session's header (a fresh one without a file).
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
    /// The MCP servers, to stop at the end.
    pub mcp: Option<Arc<rho_host::mcp::McpHost>>,
    /// Skills and prompt templates (what `/` commands a client may offer).
    pub resources: Arc<rho_host::prompt::PromptResources>,
}

/// Builds the session `chosen` describes on `target` (`-p`, `--mode json`, interactive).
pub fn build_chosen(
    cli: &Cli,
    chosen: Chosen,
    target: SessionTarget,
    extras: Extras,
) -> anyhow::Result<Built> {
    let Chosen {
        run_cwd,
        settings,
        choice,
    } = chosen;
    let route = Route {
        provider: choice.provider,
        api_key: choice.api_key,
        headers: Vec::new(),
    };
    let queue_modes = (
        settings.steering_mode.unwrap_or_default(),
        settings.follow_up_mode.unwrap_or_default(),
    );
    let kit = kit(cli, &run_cwd, settings, &choice.model, route, extras)?;
    let (file, context) = record_for(target, &run_cwd);
    let header = file.header().clone();
    let session = build(
        &kit,
        SessionStart {
            file,
            context,
            model: choice.model.clone(),
            thinking: choice.thinking,
            queue_modes,
            auto_compaction: kit.compaction.enabled,
            auto_retry: kit.retry.enabled,
            name: cli.name.clone(),
        },
    )?;
    Ok(Built {
        session,
        header,
        model: choice.model,
        thinking: choice.thinking,
        run_cwd,
        auto_compact: kit.compaction.enabled,
        router: kit.router,
        resources: kit.workspace.resources,
        mcp: kit.workspace.mcp,
    })
}
