//! API keys and the resolution of configured values (`!command`, variable name, literal).

use std::fmt;

use crate::command::run_config_command;
use crate::env::Environment;

/// A secret: an API key or a header value that may carry one.
///
/// `Debug` and `Display` print `***`, so a key inside any logged or formatted value stays hidden.
/// Read the real value with [`ApiKey::expose`] only where it goes on the wire.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a secret.
    pub fn new(secret: impl Into<String>) -> Self {
        ApiKey(secret.into())
    }

    /// The secret itself, for the request that needs it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// Resolves a configured value the way Pi does (`resolveConfigValue`):
/// `!command` → the command's trimmed standard output (`None` when it fails, times out or prints
/// nothing); otherwise the value of the environment variable of that name when it is set and not
/// empty; otherwise the value itself.
pub fn resolve_config_value(raw: &str, env: &dyn Environment) -> Option<ApiKey> {
    match raw.strip_prefix('!') {
        Some(command) => run_config_command(command).map(ApiKey::new),
        None => Some(ApiKey::new(
            env.non_empty_var(raw).unwrap_or_else(|| raw.to_owned()),
        )),
    }
}
