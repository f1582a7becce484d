//! `rho auth login|logout|status`: API keys in `RHO_HOME/auth.json`, in Pi's format
//! (`{"<provider>": {"type": "api_key", "key": "…"}}`), file mode 0600. No key is ever printed.

use std::ffi::OsString;
use std::io::{IsTerminal, Read, Write};
use std::path::Path;

use anyhow::{Context as _, bail};
use clap::Parser;
use clap::error::ErrorKind;
use rho_models::{ModelRegistry, ProcessEnvironment, rho_home};
use rho_stdx::fs::{Access, write_atomic};
use serde_json::{Map, Value, json};

use crate::EXIT_PREFLIGHT;

/// `rho auth`'s own arguments (parsed apart from the main command line).
#[derive(Debug, Parser)]
#[command(
    name = "rho auth",
    about = "Manage the API keys stored in RHO_HOME/auth.json."
)]
enum AuthCommand {
    /// Store an API key for PROVIDER, read from stdin (one line; surrounding space trimmed).
    Login {
        /// Provider name (e.g. anthropic, openai, or one from models.json).
        provider: String,
    },
    /// Remove the stored key of PROVIDER.
    Logout {
        /// Provider name.
        provider: String,
    },
    /// List the providers that have a key, and where each key comes from.
    Status,
}

/// Runs `rho auth …` with the arguments after `auth`; returns the exit code.
pub fn main(args: impl Iterator<Item = OsString>) -> u8 {
    let command = match AuthCommand::try_parse_from(std::iter::once("rho auth".into()).chain(args))
    {
        Ok(command) => command,
        Err(error) => {
            let help = matches!(
                error.kind(),
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
            );
            if help {
                let _ = error.print();
                return 0;
            }
            let text = error.to_string();
            let first = text.lines().next().unwrap_or("invalid arguments");
            eprintln!(
                "Error: {} (see rho auth --help)",
                first.trim_start_matches("error: ")
            );
            return EXIT_PREFLIGHT;
        }
    };
    match run(command) {
        Ok(()) => 0,
        Err(error) => {
            eprintln!("Error: {error:#}");
            EXIT_PREFLIGHT
        }
    }
}

fn run(command: AuthCommand) -> anyhow::Result<()> {
    let Some(home) = rho_home(&ProcessEnvironment) else {
        bail!("cannot locate RHO_HOME: set RHO_HOME or HOME");
    };
    let (registry, _) = ModelRegistry::load(&home);
    let path = home.join(rho_models::AUTH_FILE);
    match command {
        AuthCommand::Login { provider } => {
            known_provider(&registry, &provider)?;
            let key = read_key(&provider)?;
            let mut entries = read_entries(&path)?;
            entries.insert(provider.clone(), json!({"type": "api_key", "key": key}));
            write_entries(&home, &path, &entries)?;
            println!("Stored the API key for {provider} in {}", path.display());
        }
        AuthCommand::Logout { provider } => {
            let mut entries = read_entries(&path)?;
            if entries.shift_remove(&provider).is_some() {
                write_entries(&home, &path, &entries)?;
                println!("Removed the key for {provider} from {}", path.display());
            } else {
                println!("No key stored for {provider} in {}", path.display());
            }
        }
        AuthCommand::Status => print!("{}", status(&registry, &read_entries(&path)?)),
    }
    Ok(())
}

fn known_provider(registry: &ModelRegistry, provider: &str) -> anyhow::Result<()> {
    if registry
        .all()
        .iter()
        .any(|entry| entry.model.provider == provider)
    {
        return Ok(());
    }
    bail!("Unknown provider \"{provider}\". Use --list-models to see available providers/models.")
}

/// The key from stdin: everything piped, or one line typed at a terminal.
fn read_key(provider: &str) -> anyhow::Result<String> {
    let mut stdin = std::io::stdin();
    let mut text = String::new();
    if stdin.is_terminal() {
        eprint!("API key for {provider}: ");
        let _ = std::io::stderr().flush();
        stdin
            .read_line(&mut text)
            .context("cannot read standard input")?;
    } else {
        stdin
            .read_to_string(&mut text)
            .context("cannot read standard input")?;
    }
    let key = text.trim();
    if key.is_empty() {
        bail!(
            "no API key on standard input (pipe it in: echo \"$KEY\" | rho auth login {provider})"
        );
    }
    if key.contains(char::is_whitespace) {
        bail!("the API key read from standard input contains whitespace; expected a single key");
    }
    Ok(key.to_owned())
}

/// The entries of auth.json; a missing or empty file has none. A broken file is an error, so
/// that a login never overwrites credentials it could not read.
fn read_entries(path: &Path) -> anyhow::Result<Map<String, Value>> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Map::new()),
        Err(error) => bail!("cannot read {}: {error}", path.display()),
    };
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(entries)) => Ok(entries),
        Ok(_) => bail!("{} is not a JSON object; fix or remove it", path.display()),
        Err(error) => bail!(
            "{} is not valid JSON ({error}); fix or remove it",
            path.display()
        ),
    }
}

/// Writes auth.json whole with mode 0600 (`rho_stdx::fs::write_atomic`), so a reader never sees
/// half a file and the key is never readable by others, even for a moment.
fn write_entries(home: &Path, path: &Path, entries: &Map<String, Value>) -> anyhow::Result<()> {
    create_home(home)?;
    let mut text = serde_json::to_string_pretty(entries).context("cannot encode auth.json")?;
    text.push('\n');
    write_atomic(path, text.as_bytes(), Access::Private)
        .map_err(|error| anyhow::anyhow!("cannot write {}: {error}", path.display()))
}

fn create_home(home: &Path) -> anyhow::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
        .create(home)
        .with_context(|| format!("cannot create {}", home.display()))
}

/// One line per provider with a key: `<provider>: <source>, …`, sources in the order rho
/// consults them (auth.json, then the environment variables).
fn status(registry: &ModelRegistry, stored: &Map<String, Value>) -> String {
    let mut providers: Vec<&str> = stored.keys().map(String::as_str).collect();
    for entry in registry.all() {
        if !providers.contains(&entry.model.provider.as_str()) {
            providers.push(&entry.model.provider);
        }
    }
    let mut lines = Vec::new();
    for provider in providers {
        let mut sources = Vec::new();
        if let Some(kind) = stored
            .get(provider)
            .and_then(|entry| entry.get("type"))
            .and_then(Value::as_str)
        {
            sources.push(match kind {
                "oauth" => "auth.json (oauth)".to_owned(),
                _ => "auth.json".to_owned(),
            });
        }
        for var in rho_models::providers::api_key_env_vars(provider) {
            if std::env::var(var).is_ok_and(|value| !value.is_empty()) {
                sources.push(format!("env {var}"));
            }
        }
        if !sources.is_empty() {
            lines.push(format!("{provider}: {}\n", sources.join(", ")));
        }
    }
    if lines.is_empty() {
        return "No API keys configured.\n".to_owned();
    }
    lines.sort();
    lines.concat()
}
