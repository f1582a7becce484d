//! Whether this run applies the project's own configuration (`rho_host::trust`), decided once
//! per directory: `--approve`/`--no-approve`, the trust store and `defaultProjectTrust` of
//! `RHO_HOME`. Pi's `ask` skips the project in every mode until rho's interactive mode asks;
//! unlike Pi, which stays silent, rho says on stderr what it skipped (the contract).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rho_host::settings::{SettingsPaths, load_global_settings};
use rho_host::trust::{
    TrustDecision, TrustInputs, TrustStore, resolve_project_trust, trust_requiring_resources,
};
use rho_models::{ProcessEnvironment, rho_home};
use rho_stdx::sync::lock;

use crate::cli::Cli;

/// The decisions made so far, by directory (each announced once).
static DECIDED: Mutex<Option<HashMap<PathBuf, bool>>> = Mutex::new(None);

impl Cli {
    /// `--approve` (`Some(true)`) or `--no-approve` (`Some(false)`), the later one winning.
    pub fn trust_override(&self) -> Option<bool> {
        match (self.approve, self.no_approve) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        }
    }
}

/// Whether the project at `cwd` is trusted. A broken trust store or global settings file is a
/// failure before the model (exit 2). When the project has configuration that is skipped, one
/// line on stderr names it.
pub fn project_trusted(cli: &Cli, cwd: &Path) -> anyhow::Result<bool> {
    if let Some(trusted) = lock(&DECIDED)
        .as_ref()
        .and_then(|decided| decided.get(cwd).copied())
    {
        return Ok(trusted);
    }
    let home = rho_home(&ProcessEnvironment);
    let global = load_global_settings(&SettingsPaths::new(home.as_deref(), cwd))?;
    let store = home.as_deref().map(TrustStore::new);
    let user_home = std::env::var_os("HOME").map(PathBuf::from);
    let resources = trust_requiring_resources(cwd, user_home.as_deref());
    let decision = resolve_project_trust(
        &TrustInputs {
            flag: cli.trust_override(),
            store: store.as_ref(),
            default: global.default_project_trust.unwrap_or_default(),
            has_resources: !resources.is_empty(),
        },
        cwd,
    )?;
    let trusted = decision == TrustDecision::Trusted;
    if !trusted && !resources.is_empty() {
        crate::warnings::say(format!(
            "rho: project not trusted; ignored {} (run with --approve to use them)",
            resources.join(", ")
        ));
    }
    lock(&DECIDED)
        .get_or_insert_with(HashMap::new)
        .insert(cwd.to_path_buf(), trusted);
    Ok(trusted)
}
