//! The binary's side of the interactive mode's `/` commands ([`rho_tui::slash::CommandHost`]):
//! the models with a key (`/model`, as RPC `get_available_models` lists them), switching the
//! live session's model and recording it, `/session`'s statistics (RPC `get_session_stats`),
//! `/export` (RPC `export_html`) and `/settings` (kept in `RHO_HOME/settings.json`); and what
//! the UI loads at start-up: the commands of skills and prompt templates, `keybindings.json`
//! and the theme.

use std::path::{Path, PathBuf};

use rho_ai::ThinkingLevel;
use rho_host::prompt::{PromptOptions, PromptResources};
use rho_host::settings::{PROJECT_DIR, SETTINGS_FILE};
use rho_models::{DEFAULT_THINKING_LEVEL, clamp_thinking_level};
use rho_stdx::sync::lock;
use rho_tui::keybindings::{self, Keybindings};
use rho_tui::slash::{CommandHost, Commands, ModelOption, SettingChange, SlashRegistry};
use rho_tui::theme::{Theme, ThemeChoice};
use serde_json::Value;

use crate::remember::Remember;

use crate::cli::Cli;
use crate::rpc::models::ModelCatalog;
use crate::session_switch::LiveHandle;

/// The commands' host over the live session.
pub struct SlashHost {
    /// The session the commands act on (whichever is live).
    pub live: LiveHandle,
    /// The models that can be switched to.
    pub catalog: ModelCatalog,
    /// The directory `/export` paths are relative to.
    pub cwd: PathBuf,
    /// The effective settings' rows for `/settings`.
    pub settings: Vec<(String, String)>,
    /// `RHO_HOME`, whose `settings.json` keeps what `/settings` changes (`None`: nowhere).
    pub home: Option<PathBuf>,
}

impl CommandHost for SlashHost {
    fn models(&self) -> Vec<ModelOption> {
        self.catalog
            .available()
            .into_iter()
            .map(|entry| ModelOption {
                provider: entry.model.provider.clone(),
                id: entry.model.id.clone(),
                name: entry.model.name.clone(),
                reasoning: entry.model.reasoning,
                context_window: entry.model.context_window,
            })
            .collect()
    }

    fn set_model(&self, wanted: &ModelOption) -> Result<ThinkingLevel, String> {
        let (entry, route) = self
            .catalog
            .resolve(&wanted.provider, &wanted.id)
            .map_err(|error| error.to_string())?;
        let live = lock(&self.live);
        // The provider and key of another provider's model go with it (Pi's `setModel`).
        live.router.add_route(&entry.model, route);
        let agent = live.session.agent();
        // As RPC `set_model`: a model without reasoning keeps no level of its own, so the next
        // one starts at the default; the level is clamped to the new model and recorded when
        // it moved.
        let wanted_level = agent.with_state(|s| {
            if s.model.reasoning {
                s.thinking_level
            } else {
                DEFAULT_THINKING_LEVEL
            }
        });
        let effective = clamp_thinking_level(&entry, wanted_level);
        let previous = agent.update_state(|s| {
            s.model = entry.model.clone();
            std::mem::replace(&mut s.thinking_level, effective)
        });
        let record = live.session.record();
        let unsaved = |error| format!("The model changed but was not saved: {error}");
        record
            .record_model_change(&entry.model.provider, &entry.model.id)
            .map_err(unsaved)?;
        if previous != effective {
            record.record_thinking_level(effective).map_err(unsaved)?;
        }
        drop(live);
        // As Pi's `setModel`: the model (and a level that moved) is the next run's default.
        let remember = Remember::in_home(self.home.as_deref());
        let kept = remember
            .model(&entry.model.provider, &entry.model.id)
            .and_then(|()| {
                if previous == effective {
                    Ok(())
                } else {
                    remember.thinking_level(effective, entry.model.reasoning)
                }
            });
        kept.map_err(|error| {
            format!("The model changed but is not kept for the next run: {error}")
        })?;
        Ok(effective)
    }

    fn session_stats(&self) -> Vec<(String, String)> {
        let live = lock(&self.live);
        let (messages, model) = live
            .session
            .agent()
            .with_state(|s| (s.messages.clone(), s.model.clone()));
        let path = live.session.record().path();
        let record = live.session.record().clone();
        drop(live);
        // The command host runs on the blocking pool: reading every entry is fine here.
        let stats = record
            .with_file(|file| {
                crate::rpc::stats::session_stats(file, &messages, model.context_window)
            })
            .unwrap_or(Value::Null);
        stats_rows(&stats, path.as_deref())
    }

    fn export_html(&self, path: Option<&str>) -> Result<String, String> {
        let live = lock(&self.live);
        let record = live.session.record();
        if record.path().is_none() {
            return Err("Cannot export an in-memory session (--no-session)".to_owned());
        }
        let written = record.with_file(|file| {
            let output = path.map(PathBuf::from).unwrap_or_else(|| {
                PathBuf::from(crate::export::default_output_name(
                    file.path().unwrap_or(Path::new("session.jsonl")),
                ))
            });
            crate::export::export_open_session(file, Some(&output), &self.cwd)
        });
        match written {
            Some(Ok(path)) => Ok(path.display().to_string()),
            Some(Err(error)) => Err(format!("Export failed: {error:#}")),
            None => Err("Nothing to export yet".to_owned()),
        }
    }

    fn settings(&self) -> Vec<(String, String)> {
        let live = lock(&self.live);
        let agent = live.session.agent();
        let (model, thinking) = agent.with_state(|s| (s.model.clone(), s.thinking_level));
        let auto = live.session.auto_compaction_enabled();
        let run_cwd = live.run_cwd.clone();
        drop(live);
        let mut rows = vec![
            (
                "model".to_owned(),
                format!("{}/{}", model.provider, model.id),
            ),
            ("thinking".to_owned(), thinking.as_str().to_owned()),
            (
                "auto-compaction".to_owned(),
                if auto { "on" } else { "off" }.to_owned(),
            ),
        ];
        // The theme setting may have been changed by `/settings theme` since start-up.
        let theme = theme_setting(self.home.as_deref(), &run_cwd);
        rows.extend(self.settings.iter().map(|(name, value)| {
            if name == THEME_ROW {
                (
                    name.clone(),
                    theme.clone().unwrap_or_else(|| "auto".to_owned()),
                )
            } else {
                (name.clone(), value.clone())
            }
        }));
        rows
    }

    fn save_setting(&self, change: &SettingChange) -> Result<(), String> {
        let Some(home) = &self.home else {
            return Err(
                "No settings directory (RHO_HOME or HOME): the change is for this run only"
                    .to_owned(),
            );
        };
        let remember = Remember::in_home(Some(home));
        match change {
            SettingChange::AutoCompaction(enabled) => remember.auto_compaction(*enabled),
            SettingChange::Theme(theme) => remember.theme(theme),
        }
        .map_err(|error| error.to_string())
    }
}

/// The `/settings` row of the theme setting (as opposed to the theme in effect).
const THEME_ROW: &str = "theme (setting)";

/// `/session`'s rows from the RPC statistics object.
fn stats_rows(stats: &Value, path: Option<&Path>) -> Vec<(String, String)> {
    let number = |pointer: &str| stats.pointer(pointer).and_then(Value::as_u64).unwrap_or(0);
    let mut rows = vec![
        (
            "File".to_owned(),
            path.map_or_else(|| "(in memory)".to_owned(), |p| p.display().to_string()),
        ),
        (
            "ID".to_owned(),
            stats
                .get("sessionId")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
        ),
        (
            "User messages".to_owned(),
            number("/userMessages").to_string(),
        ),
        (
            "Assistant messages".to_owned(),
            number("/assistantMessages").to_string(),
        ),
        ("Tool calls".to_owned(), number("/toolCalls").to_string()),
        (
            "Tool results".to_owned(),
            number("/toolResults").to_string(),
        ),
        (
            "Total messages".to_owned(),
            number("/totalMessages").to_string(),
        ),
        (
            "Input tokens".to_owned(),
            number("/tokens/input").to_string(),
        ),
        (
            "Output tokens".to_owned(),
            number("/tokens/output").to_string(),
        ),
        (
            "Cache read".to_owned(),
            number("/tokens/cacheRead").to_string(),
        ),
        (
            "Cache write".to_owned(),
            number("/tokens/cacheWrite").to_string(),
        ),
        (
            "Total tokens".to_owned(),
            number("/tokens/total").to_string(),
        ),
        (
            "Cost".to_owned(),
            format!(
                "${:.4}",
                stats.get("cost").and_then(Value::as_f64).unwrap_or(0.0)
            ),
        ),
    ];
    if let Some(usage) = stats.get("contextUsage") {
        let tokens = usage.get("tokens").and_then(Value::as_u64).unwrap_or(0);
        let window = usage
            .get("contextWindow")
            .and_then(Value::as_u64)
            .unwrap_or(0);
        let percent = usage.get("percent").and_then(Value::as_f64).unwrap_or(0.0);
        rows.push((
            "Context".to_owned(),
            format!("{tokens}/{window} ({percent:.1}%)"),
        ));
    }
    rows
}

/// The UI's start-up state: the registry with this invocation's skills and templates, the
/// keybindings of `RHO_HOME/keybindings.json` and the theme; and the warnings to show.
pub fn ui_setup(cli: &Cli, home: Option<&Path>, cwd: &Path) -> (Commands, Vec<String>) {
    let mut warnings = Vec::new();
    let (keybindings, problem) = match home {
        Some(home) => Keybindings::load(&home.join(keybindings::FILE_NAME)),
        None => (Keybindings::defaults(), None),
    };
    if let Some(problem) = problem {
        warnings.push(format!(
            "Warning: {} ignored, default keys in use: {problem}",
            keybindings::FILE_NAME
        ));
    }
    let resources = PromptResources::load(&PromptOptions {
        cwd: cwd.to_path_buf(),
        rho_home: home.map_or_else(|| cwd.join(PROJECT_DIR), Path::to_path_buf),
        no_context_files: true,
        skill_paths: cli.skills.iter().map(|p| p.display().to_string()).collect(),
        no_skills: cli.no_skills,
        prompt_template_paths: cli
            .prompt_templates
            .iter()
            .map(|p| p.display().to_string())
            .collect(),
        no_prompt_templates: cli.no_prompt_templates,
        // Decided (and announced) when the session was built; a broken store failed it then.
        project_trusted: crate::project_trust::project_trusted(cli, cwd).unwrap_or(false),
        user_home: std::env::var_os("HOME").map(std::path::PathBuf::from),
        ..PromptOptions::default()
    });
    let extensions = if cli.no_mcp {
        Vec::new()
    } else {
        vec![(
            "mcp".to_owned(),
            rho_host::mcp::MCP_COMMAND_DESCRIPTION.to_owned(),
        )]
    };
    let registry = SlashRegistry::new(
        resources
            .templates
            .iter()
            .map(|t| (t.name.clone(), t.description.clone()))
            .collect(),
        resources
            .skills
            .iter()
            .map(|s| (s.name.clone(), s.description.clone()))
            .collect(),
    )
    .with_extensions(extensions);
    let choice = ThemeChoice::parse(run_theme(cli, home, cwd).as_deref());
    let theme = Theme::resolve(
        choice,
        std::env::var("NO_COLOR").ok().as_deref(),
        std::env::var("COLORFGBG").ok().as_deref(),
    );
    let commands = Commands {
        registry,
        keybindings: std::sync::Arc::new(keybindings),
        theme,
        theme_auto: choice == ThemeChoice::Auto && theme != Theme::NoColor,
    };
    (commands, warnings)
}

/// The theme of this run: `--use-theme`, else the `theme` setting.
pub fn run_theme(cli: &Cli, home: Option<&Path>, cwd: &Path) -> Option<String> {
    match &cli.use_theme {
        Some(name) => Some(crate::cli_checks::use_theme_setting(name).to_owned()),
        None => theme_setting(home, cwd),
    }
}

/// `theme` from the project's settings, else the global ones.
pub fn theme_setting(home: Option<&Path>, cwd: &Path) -> Option<String> {
    ui_setting(home, cwd, "theme")?.as_str().map(str::to_owned)
}

/// A key only the interactive mode reads (rho-host's settings do not carry it): the project's
/// `.rho/settings.json` first, then the global file; unreadable files count as absent.
pub fn ui_setting(home: Option<&Path>, cwd: &Path, key: &str) -> Option<Value> {
    let project = cwd.join(PROJECT_DIR).join(SETTINGS_FILE);
    let global = home.map(|h| h.join(SETTINGS_FILE));
    [Some(project), global]
        .into_iter()
        .flatten()
        .find_map(|path| {
            let text = std::fs::read_to_string(path).ok()?;
            let mut value: Value = serde_json::from_str(&text).ok()?;
            value.get_mut(key).map(Value::take)
        })
}

/// The models `/model` lists: the built-in catalog and `models.json`, with the keys of
/// `auth.json` and the environment (`--api-key` counting for the starting model's provider),
/// as RPC `get_available_models` lists them. The files' warnings were printed at start-up.
pub fn catalog(cli: &Cli, provider: &str) -> ModelCatalog {
    let env = std::sync::Arc::new(rho_models::ProcessEnvironment);
    let (registry, mut auth) = match rho_models::rho_home(env.as_ref()) {
        Some(home) => (
            rho_models::ModelRegistry::load(&home).0,
            rho_models::AuthStore::load(&home, env).0,
        ),
        None => (
            rho_models::ModelRegistry::builtin(),
            rho_models::AuthStore::empty(env),
        ),
    };
    if let Some(key) = &cli.api_key {
        auth.set_runtime_api_key(provider.to_owned(), rho_models::ApiKey::new(key.clone()));
    }
    ModelCatalog::registry(registry, auth)
}

/// The settings `/settings` shows besides the live model, thinking level and compaction.
pub fn settings_rows(
    settings: &rho_host::settings::Settings,
    theme: Option<&str>,
) -> Vec<(String, String)> {
    let mode =
        |mode: Option<rho_agent::QueueMode>| match serde_json::to_value(mode.unwrap_or_default()) {
            Ok(Value::String(name)) => name,
            _ => String::new(),
        };
    vec![
        ("steering mode".to_owned(), mode(settings.steering_mode)),
        ("follow-up mode".to_owned(), mode(settings.follow_up_mode)),
        (
            "retry".to_owned(),
            if settings.retry.enabled.unwrap_or(true) {
                "on"
            } else {
                "off"
            }
            .to_owned(),
        ),
        (THEME_ROW.to_owned(), theme.unwrap_or("auto").to_owned()),
    ]
}
