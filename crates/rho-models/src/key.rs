//! API keys and the resolution of configured values (`!command`, variable name, literal).

use std::fmt;
use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

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

/// How long a `!command` may run before it is killed and counts as failed (Pi: 10 s).
const COMMAND_TIMEOUT: Duration = Duration::from_secs(10);

/// Resolves a configured value the way Pi does (`resolveConfigValue`):
/// `!command` → the command's trimmed standard output (`None` when it fails, times out or prints
/// nothing); otherwise the value of the environment variable of that name when it is set and not
/// empty; otherwise the value itself.
pub fn resolve_config_value(raw: &str, env: &dyn Environment) -> Option<ApiKey> {
    match raw.strip_prefix('!') {
        Some(command) => run_command(command).map(ApiKey::new),
        None => Some(ApiKey::new(
            env.non_empty_var(raw).unwrap_or_else(|| raw.to_owned()),
        )),
    }
}

/// Runs `sh -c command` with no input and stderr discarded; its trimmed stdout on success.
fn run_command(command: &str) -> Option<String> {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdout = child.stdout.take()?;
    // Read on a helper thread so the timeout can be enforced here; the reader ends when the
    // pipe closes (the command exits, or is killed below).
    let (sender, receiver) = mpsc::channel();
    let reader = thread::Builder::new().spawn(move || {
        let mut output = Vec::new();
        let result = stdout.read_to_end(&mut output).map(|_| output);
        let _ = sender.send(result);
    });
    if reader.is_err() {
        let _ = child.kill();
        let _ = child.wait();
        return None;
    }
    let output = match receiver.recv_timeout(COMMAND_TIMEOUT) {
        Ok(Ok(output)) => output,
        Ok(Err(_)) | Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
    };
    let status = child.wait().ok()?;
    if !status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&output).trim().to_owned();
    (!text.is_empty()).then_some(text)
}
