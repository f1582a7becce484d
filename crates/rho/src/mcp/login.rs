//! `rho mcp login|logout <server> [-l] [--timeout <seconds>]`: sign in to an OAuth server, or
//! delete its stored credentials, without starting a session (Pi 1.6's words and exit codes).
//! The authorization URL is printed and the browser opened where there is one; on a terminal
//! the URL the browser was sent to may be pasted (a browser on another machine).

use std::io::{BufRead, IsTerminal, Write};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use rho_mcp::auth::{Paste, SignInPrompt};
use rho_mcp::{Defaults, McpConfig, Scope, Server, SignedIn};

use super::command::Places;

/// How long a sign-in may take unless `--timeout` says otherwise (Pi's 300 s).
const DEFAULT_TIMEOUT_SECS: f64 = 300.0;

/// The terminal's prompt: the URL on stdout, the paste read from stdin when it is a terminal.
struct TerminalPrompt {
    server: String,
}

#[async_trait]
impl SignInPrompt for TerminalPrompt {
    fn authorize(&self, url: &str) {
        println!(
            "Sign in to MCP server \"{}\" in your browser:\n{url}",
            self.server
        );
        let _ = std::io::stdout().flush();
        rho_host::mcp::open_browser(url);
    }

    async fn pasted(&self) -> Paste {
        if !std::io::stdin().is_terminal() {
            return Paste::Unavailable;
        }
        let read = tokio::task::spawn_blocking(|| {
            eprint!(
                "If the browser cannot reach this machine, paste the URL it was redirected to: "
            );
            let _ = std::io::stderr().flush();
            let mut line = String::new();
            std::io::stdin().lock().read_line(&mut line).map(|_| line)
        })
        .await;
        match read {
            Ok(Ok(line)) if !line.trim().is_empty() => Paste::Url(line),
            // End of input: the browser may still come back.
            Ok(Ok(_)) => Paste::Unavailable,
            _ => Paste::Cancelled,
        }
    }
}

/// Levenshtein distance, to suggest a configured name for a mistyped one.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            current.push((previous[j + 1] + 1).min(current[j] + 1).min(substitution));
        }
        previous = current;
    }
    previous[b.len()]
}

/// `rho mcp login` (`login`) or `rho mcp logout`.
pub(super) fn login_or_logout(
    places: &Places,
    login: bool,
    name: &str,
    local: bool,
    timeout: Option<&str>,
) -> Result<u8, String> {
    let config = McpConfig::load(&places.home, &places.cwd, places.trusted);
    let Some(entry) = config.servers.iter().find(|s| s.name == name).cloned() else {
        let names: Vec<&str> = config.servers.iter().map(|s| s.name.as_str()).collect();
        let suggestion = names
            .iter()
            .find(|candidate| edit_distance(candidate, name) <= 2)
            .map(|s| format!(" Did you mean \"{s}\"?"))
            .unwrap_or_default();
        let note = places
            .untrusted_note()
            .map(|n| format!(" {n}"))
            .unwrap_or_default();
        let configured = if names.is_empty() {
            "none".to_owned()
        } else {
            names.join(", ")
        };
        return Err(format!(
            "No MCP server named \"{name}\".{suggestion}{note} Configured: {configured}."
        ));
    };
    if local && entry.scope != Scope::Project {
        return Err(format!(
            "MCP server \"{name}\" is defined in {}, not in the project; omit --local.",
            entry.source.display()
        ));
    }
    if let Some(provider) = entry.config.auth_provider() {
        let verb = if login { "login" } else { "logout" };
        return Err(format!(
            "MCP server \"{name}\" uses the credentials of provider \"{provider}\". Run \"rho auth {verb} {provider}\"."
        ));
    }
    let timeout = match timeout {
        None => DEFAULT_TIMEOUT_SECS,
        Some(text) => text
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|t| t.is_finite() && *t > 0.0)
            .ok_or_else(|| "--timeout must be a positive number of seconds.".to_owned())?,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))?;
    let environment = super::list::tool_environment(places)?;
    let outcome = runtime.block_on(async {
        let (context, _signals) =
            super::context(&places.home, &places.cwd, environment, Arc::new(Defaults));
        let server = Server::new(entry, context);
        let outcome = if login {
            let prompt = TerminalPrompt {
                server: name.to_owned(),
            };
            match tokio::time::timeout(Duration::from_secs_f64(timeout), server.sign_in(&prompt))
                .await
            {
                Ok(Ok(SignedIn::Already(tools))) => Ok(format!(
                    "Already signed in to MCP server \"{name}\" ({tools} tools)."
                )),
                Ok(Ok(SignedIn::Now(tools))) => Ok(format!(
                    "Signed in to MCP server \"{name}\" ({tools} tools)."
                )),
                Ok(Err(rho_mcp::SignInFailure::Flow(message))) => Err(format!(
                    "Sign-in to MCP server \"{name}\" failed: {message}"
                )),
                Ok(Err(rho_mcp::SignInFailure::Cancelled)) | Err(_) => Err(format!(
                    "Sign-in to MCP server \"{name}\" was cancelled or not completed within {} seconds.",
                    timeout.round()
                )),
                Ok(Err(other)) => Err(other.to_string()),
            }
        } else {
            match server.sign_out().await {
                Ok(true) => Ok(format!("Signed out of MCP server \"{name}\".")),
                Ok(false) => Ok(format!("No stored credentials for MCP server \"{name}\".")),
                Err(error) => Err(error.to_string()),
            }
        };
        server.shutdown().await;
        outcome
    });
    runtime.shutdown_background();
    let message = outcome?;
    println!("{message}");
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::edit_distance;

    #[test]
    fn the_distance_counts_single_character_edits() {
        assert_eq!(edit_distance("github", "githb"), 1);
        assert_eq!(edit_distance("sentry", "sentyr"), 2);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }
}
