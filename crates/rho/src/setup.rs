//! What every mode builds a session from, read one way: settings, budget, retry policy, the
//! tools with the gate and sandbox around them, and the system prompt with its skills and
//! templates (`-p`, `--mode json` and `--mode rpc` share it).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context as _, bail};
use rho_agent::{AgentTool, ToolHooks};
use rho_gate::{CommandRules, GatePolicy, LazySandbox, PermissionMode, ToolEnvironment};
use rho_host::gate::Gate;
use rho_host::prompt::{PromptOptions, PromptResources, SystemPrompt};
use rho_host::settings::{Settings, SettingsPaths, load_settings};
use rho_host::tool_selection::{ToolChoice, resolve_default_tools};
use rho_host::toolset::{Confinement, create_tools};
use rho_host::{Budget, RetryPolicy};
use rho_models::{ProcessEnvironment, rho_home};

use crate::cli::Cli;

/// `RHO_HOME/settings.json` under the project's `.rho/settings.json` when the project is
/// trusted; a broken file is a failure before the model (exit 2), named in the message.
pub fn settings(cli: &Cli, cwd: &Path) -> anyhow::Result<Settings> {
    let home = rho_home(&ProcessEnvironment);
    let trusted = crate::project_trust::project_trusted(cli, cwd)?;
    let paths = SettingsPaths::new(home.as_deref(), cwd).with_project_trust(trusted);
    let settings = load_settings(&paths)?;
    static WARNED: std::sync::Once = std::sync::Once::new();
    WARNED.call_once(|| {
        for key in &settings.unsupported_pi_keys {
            crate::warnings::warn(format_args!(
                "settings key \"{key}\" is not supported by rho; ignored"
            ));
        }
    });
    Ok(settings)
}

/// The budget flags (contract §3) over the settings' `budget`, limit by limit; a negative or
/// non-finite cost is a bad value (exit 2).
pub fn budget(cli: &Cli, settings: &Settings) -> anyhow::Result<Budget> {
    if let Some(cost) = cli.max_cost
        && !(cost.is_finite() && cost >= 0.0)
    {
        bail!("--max-cost must be a non-negative number of US dollars, got {cost}");
    }
    let defaults = settings.budget();
    Ok(Budget {
        max_turns: cli.max_turns.or(defaults.max_turns),
        max_cost: cli.max_cost.or(defaults.max_cost),
        max_tokens: cli.max_tokens.or(defaults.max_tokens),
    })
}

/// The settings' `retry` policy; the developer knob `RHO_RETRY_BASE_DELAY_MS` shortens the base
/// delay (tests of the retry path over real HTTP would otherwise wait 2 s, 4 s, …).
pub fn retry_policy(settings: &Settings) -> anyhow::Result<RetryPolicy> {
    let mut policy = settings.retry_policy();
    if let Ok(value) = std::env::var("RHO_RETRY_BASE_DELAY_MS") {
        policy.base_delay_ms = value.trim().parse().with_context(|| {
            format!("RHO_RETRY_BASE_DELAY_MS must be a number of milliseconds, got {value:?}")
        })?;
    }
    Ok(policy)
}

/// The active tool names, chosen as Pi 1.6 does ([`ToolChoice`]): the settings'
/// `defaultTools` are the defaults, an explicit `--tools` allowlist wins over `--no-tools` and
/// `--no-builtin-tools`, a `+name`/`-name` list edits the defaults, `--exclude-tools` applies
/// last.
pub fn tool_names(cli: &Cli, settings: &Settings) -> Vec<String> {
    let tools = cli.tools.as_deref().map(trimmed);
    let exclude = cli.exclude_tools.as_deref().map(trimmed);
    let defaults = settings.default_tools.as_deref().map(resolve_default_tools);
    ToolChoice {
        defaults: defaults.as_deref(),
        tools: tools.as_deref(),
        no_tools: cli.no_tools || cli.no_builtin_tools,
        exclude: exclude.as_deref(),
    }
    .select(&SELECTABLE_TOOLS)
}

/// A list flag's entries trimmed, empty ones dropped (clap has split it on `,`).
fn trimmed(entries: &[String]) -> Vec<String> {
    entries
        .iter()
        .map(|entry| entry.trim())
        .filter(|entry| !entry.is_empty())
        .map(str::to_owned)
        .collect()
}

/// The tools, the gate in front of them and the prompt material of a session.
pub struct Workspace {
    /// The tools, confined by the gate's policy and sandbox.
    pub tools: Vec<Arc<dyn AgentTool>>,
    /// The gate, run in preflight before any tool.
    pub gate: Arc<dyn ToolHooks>,
    /// The gate's policy (the interactive mode rebuilds the gate with its approver).
    pub policy: Arc<GatePolicy>,
    /// Context files, skills and templates.
    pub resources: Arc<PromptResources>,
    /// The system prompt for `tools`, as sections (the session declares them to the model in a
    /// `system` message).
    pub system_prompt: SystemPrompt,
    /// Whether `tool_search` is active (chosen, or an MCP server has deferred tools).
    pub tool_search: bool,
    /// The MCP servers, connecting in the background.
    pub mcp: Option<Arc<rho_host::mcp::McpHost>>,
    /// The command hooks of the settings (none configured: `None`, and nothing runs).
    pub hooks: Option<Arc<rho_host::hooks::HooksConfig>>,
}

/// Builds the workspace of a session rooted at `cwd`; a `local` model gets the read-only tools
/// and a short system prompt unless the flags say otherwise. Bad rules files and a sandbox that
/// cannot be set up are failures before the model (exit 2).
pub fn workspace(
    cli: &Cli,
    settings: &Settings,
    cwd: &Path,
    local: bool,
    elicitor: Option<Arc<dyn rho_mcp::Elicitor>>,
    client_servers: &[(String, serde_json::Value)],
) -> anyhow::Result<Workspace> {
    let home = rho_home(&ProcessEnvironment);
    let mode: PermissionMode = cli.permission.or(settings.permission).unwrap_or_default();
    let allow_dirs: Vec<PathBuf> = settings
        .allow_dirs
        .iter()
        .flatten()
        .map(PathBuf::from)
        .chain(cli.allow_dirs.iter().cloned())
        .collect();
    let trusted = crate::project_trust::project_trusted(cli, cwd)?;
    let rules = CommandRules::load_for_project(home.as_deref(), cwd, trusted)?;
    let mut policy = GatePolicy::new(mode, cwd)
        .with_allow_dirs(allow_dirs)
        .with_rules(rules)
        .with_network(!cli.no_network);
    if let Some(home) = &home {
        policy = policy.with_rho_home(home);
    }
    let environment = settings.tool_environment.clone().unwrap_or_default();
    policy = policy.with_tool_environment(ToolEnvironment::new(
        &environment,
        &rho_models::providers::every_api_key_env_var(),
    )?);
    let policy = Arc::new(policy);
    // Prepared on the first bash call: a run that never calls bash pays nothing for it.
    let sandbox = Arc::new(LazySandbox::new(&policy));
    let confinement = Confinement {
        policy: policy.clone(),
        sandbox: Some(sandbox.clone()),
    };
    let tools_chosen = cli.tools.is_some() || cli.no_tools || cli.no_builtin_tools;
    let names = if local && !tools_chosen {
        let exclude = cli
            .exclude_tools
            .as_deref()
            .map(trimmed)
            .unwrap_or_default();
        crate::local::LOCAL_TOOLS
            .iter()
            .filter(|name| !rho_host::tool_selection::matches_tool(&exclude, name))
            .map(|name| (*name).to_owned())
            .collect()
    } else {
        tool_names(cli, settings)
    };
    let mcp = if local {
        None
    } else {
        crate::mcp::start(cli, cwd, trusted, &policy, elicitor, client_servers)
    };
    let excluded = |name: &str| {
        cli.exclude_tools
            .as_deref()
            .is_some_and(|list| rho_host::tool_selection::matches_tool(&trimmed(list), name))
    };
    let tool_search = names.iter().any(|n| n == TOOL_SEARCH)
        || (mcp.as_deref().is_some_and(crate::mcp::needs_tool_search) && !excluded(TOOL_SEARCH));
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let tools = create_tools(cwd, &names, Some(&confinement));
    if tools.iter().any(|tool| tool.name() == "bash") {
        // What the sandbox cannot give on this kernel is said before the model runs.
        for warning in sandbox.startup_warnings() {
            crate::warnings::say(format!("rho: {warning}"));
        }
    }

    let resources = PromptResources::load(&PromptOptions {
        cwd: cwd.to_path_buf(),
        rho_home: home.unwrap_or_else(|| cwd.join(".rho")),
        system_prompt: cli.system_prompt.clone(),
        append_system_prompt: cli.append_system_prompt.clone(),
        no_context_files: cli.no_context_files,
        skill_paths: cli.skills.iter().map(|p| p.display().to_string()).collect(),
        no_skills: cli.no_skills,
        prompt_template_paths: cli
            .prompt_templates
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
        no_prompt_templates: cli.no_prompt_templates,
        project_trusted: trusted,
        user_home: std::env::var_os("HOME").map(PathBuf::from),
    });
    if cli.verbose {
        for diagnostic in &resources.diagnostics {
            eprintln!("{diagnostic}");
        }
    }
    let mut active: Vec<&str> = tools.iter().map(|tool| tool.name()).collect();
    if tool_search {
        active.push(TOOL_SEARCH);
    }
    let system_prompt = if local && cli.system_prompt.is_none() {
        SystemPrompt::preamble_only(crate::local::system_prompt(&active, cwd))
    } else {
        resources.system_prompt(&active)
    };
    Ok(Workspace {
        tools,
        hooks: hooks_config(settings),
        gate: Arc::new(Gate::new(policy.clone())),
        policy,
        resources: Arc::new(resources),
        system_prompt,
        tool_search,
        mcp,
    })
}

/// The settings' `hooks`; what is wrong in them is said once and skipped.
fn hooks_config(settings: &Settings) -> Option<Arc<rho_host::hooks::HooksConfig>> {
    let value = settings.hooks.as_ref()?;
    let (config, warnings) = rho_host::hooks::HooksConfig::parse(value);
    static WARNED: std::sync::Once = std::sync::Once::new();
    WARNED.call_once(|| warnings.iter().for_each(crate::warnings::warn));
    (!config.is_empty()).then(|| Arc::new(config))
}

/// What `--tools` and `defaultTools` may name: the built-in tools and `tool_search`.
const SELECTABLE_TOOLS: [&str; 8] = [
    "read",
    "bash",
    "edit",
    "write",
    "grep",
    "find",
    "ls",
    TOOL_SEARCH,
];

/// The tool search's name.
const TOOL_SEARCH: &str = rho_host::tools::tool_search::NAME;
