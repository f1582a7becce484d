//! Whether this run applies the project's own configuration (`rho_host::trust`), decided once
//! per directory: `--approve`/`--no-approve`, the trust store and `defaultProjectTrust` of
//! `RHO_HOME`. Pi's `ask` asks in the interactive mode (on a terminal) and skips the project in
//! the others; unlike Pi, which stays silent, rho says on stderr what it skipped (the contract).

use std::collections::HashMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use rho_host::settings::{SettingsPaths, load_global_settings};
use rho_host::trust::{
    TrustDecision, TrustInputs, TrustOption, TrustStore, resolve_project_trust, trust_options,
    trust_requiring_resources,
};
use rho_models::{ProcessEnvironment, rho_home};
use rho_stdx::sync::lock;

use crate::cli::Cli;

/// The decisions made so far, by directory (each announced once).
static DECIDED: Mutex<Option<HashMap<PathBuf, bool>>> = Mutex::new(None);

/// Set by the interactive mode: an undecided project is asked about.
static MAY_ASK: AtomicBool = AtomicBool::new(false);

/// From now on an undecided project is asked about on the terminal (the interactive mode,
/// before its screen opens).
pub fn ask_when_undecided() {
    MAY_ASK.store(true, Ordering::Relaxed);
}

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
    let (decision, resources, store) = decide(cli, cwd)?;
    let trusted = match decision {
        TrustDecision::Trusted => true,
        TrustDecision::Untrusted => false,
        TrustDecision::Ask if may_ask() => ask(cwd, store.as_ref())?,
        TrustDecision::Ask => false,
    };
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

/// Pi's question about `cwd` — its answers — when nothing has decided the project's trust yet
/// and it has configuration of its own (`rho acp` asks its client); `None` when decided.
pub fn undecided(cli: &Cli, cwd: &Path) -> anyhow::Result<Option<Vec<TrustOption>>> {
    if lock(&DECIDED)
        .as_ref()
        .is_some_and(|decided| decided.contains_key(cwd))
    {
        return Ok(None);
    }
    let (decision, _, _) = decide(cli, cwd)?;
    Ok((decision == TrustDecision::Ask).then(|| trust_options(cwd)))
}

/// Records the answer `chosen` to [`undecided`]'s question as Pi records it; whether the
/// project is trusted.
pub fn record_answer(cwd: &Path, chosen: &TrustOption) -> anyhow::Result<bool> {
    let home = rho_home(&ProcessEnvironment);
    if let Some(store) = home.as_deref().map(TrustStore::new)
        && !chosen.updates.is_empty()
    {
        store.set_many(&chosen.updates)?;
    }
    lock(&DECIDED)
        .get_or_insert_with(HashMap::new)
        .insert(cwd.to_path_buf(), chosen.trusted);
    Ok(chosen.trusted)
}

/// What decides `cwd`'s trust (the flag, the store, `defaultProjectTrust`), the project's own
/// resources that trust would apply, and the store.
fn decide(
    cli: &Cli,
    cwd: &Path,
) -> anyhow::Result<(TrustDecision, Vec<String>, Option<TrustStore>)> {
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
    Ok((decision, resources, store))
}

fn may_ask() -> bool {
    MAY_ASK.load(Ordering::Relaxed)
        && std::io::stdin().is_terminal()
        && std::io::stderr().is_terminal()
}

/// Pi's question; the answer is recorded in the store as Pi records it (the "this session
/// only" answers, and a cancelled question, record nothing).
fn ask(cwd: &Path, store: Option<&TrustStore>) -> anyhow::Result<bool> {
    let options = trust_options(cwd);
    let labels = options.iter().map(|option| option.label.clone()).collect();
    let answer = rho_tui::trust_prompt::ask(cwd, labels)?;
    let Some(chosen) = answer
        .and_then(|index| options.get(index))
        .or(options.last())
    else {
        return Ok(false);
    };
    if let Some(store) = store
        && !chosen.updates.is_empty()
    {
        store.set_many(&chosen.updates)?;
    }
    Ok(chosen.trusted)
}
