//! The environment the key lookup reads: variables and the clock.
//!
//! Injectable so that tests (which run in parallel) never mutate the process environment, and so
//! that the expiry of stored OAuth tokens can be tested without waiting.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

/// Environment variables and the current time.
pub trait Environment: Send + Sync {
    /// The variable's value, or `None` when it is unset or not valid Unicode.
    fn var(&self, name: &str) -> Option<String>;

    /// Milliseconds since the Unix epoch.
    fn now_ms(&self) -> u64 {
        system_now_ms()
    }

    /// The variable's value when it is set and not empty — Pi treats an empty variable as unset.
    fn non_empty_var(&self, name: &str) -> Option<String> {
        self.var(name).filter(|value| !value.is_empty())
    }
}

/// The real process environment and clock.
#[derive(Clone, Copy, Debug, Default)]
pub struct ProcessEnvironment;

impl Environment for ProcessEnvironment {
    fn var(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }
}

/// A fixed set of variables and, optionally, a fixed clock (for tests and embedding).
#[derive(Clone, Debug, Default)]
pub struct MapEnvironment {
    vars: HashMap<String, String>,
    now_ms: Option<u64>,
}

impl MapEnvironment {
    /// No variables, the system clock.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) one variable.
    pub fn with_var(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.vars.insert(name.into(), value.into());
        self
    }

    /// Freezes the clock at `now_ms` milliseconds since the Unix epoch.
    pub fn at_time(mut self, now_ms: u64) -> Self {
        self.now_ms = Some(now_ms);
        self
    }
}

impl Environment for MapEnvironment {
    fn var(&self, name: &str) -> Option<String> {
        self.vars.get(name).cloned()
    }

    fn now_ms(&self) -> u64 {
        self.now_ms.unwrap_or_else(system_now_ms)
    }
}

fn system_now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// Pi's variable for its agent directory; rho honours it when `RHO_HOME` is unset.
pub const PI_AGENT_DIR_VAR: &str = "PI_CODING_AGENT_DIR";

/// rho's configuration directory: `$RHO_HOME`, else `$PI_CODING_AGENT_DIR` (so a Pi client
/// that points Pi at a directory finds rho's settings and sessions there), each with a leading
/// `~` expanded; else `~/.rho`.
///
/// `None` only when none of those variables nor a home directory (`HOME`, or `USERPROFILE` on
/// Windows) is known.
pub fn rho_home(env: &dyn Environment) -> Option<PathBuf> {
    let home = || {
        env.non_empty_var("HOME")
            .or_else(|| env.non_empty_var("USERPROFILE"))
            .map(PathBuf::from)
    };
    let chosen = env
        .non_empty_var("RHO_HOME")
        .or_else(|| env.non_empty_var(PI_AGENT_DIR_VAR));
    match chosen {
        Some(dir) if dir == "~" => home(),
        Some(dir) => match dir.strip_prefix("~/") {
            Some(rest) => home().map(|home| home.join(rest)),
            None => Some(PathBuf::from(dir)),
        },
        None => home().map(|home| home.join(".rho")),
    }
}
