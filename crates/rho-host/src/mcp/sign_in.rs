//! Signing OAuth servers in and out in a session: a time limit, a signed-out server's tools
//! taken out of the session, and sign-ins done meanwhile by another rho (`rho mcp login`)
//! picked up before the next prompt.

use std::sync::Arc;
use std::time::Duration;

use rho_mcp::auth::SignInPrompt;
use rho_mcp::{Phase, SignInFailure, SignedIn};

use super::McpHost;
use super::sign_in_prompt::SIGN_IN_TIMEOUT;

impl McpHost {
    /// Signs server `name` in through `prompt`, within [`SIGN_IN_TIMEOUT`]; its tools join the
    /// session when it connects.
    pub async fn sign_in(
        self: &Arc<Self>,
        name: &str,
        prompt: &dyn SignInPrompt,
    ) -> Result<SignedIn, String> {
        let server = self
            .server(name)
            .cloned()
            .ok_or_else(|| format!("No MCP server named \"{name}\"."))?;
        match tokio::time::timeout(SIGN_IN_TIMEOUT, server.sign_in(prompt)).await {
            Ok(outcome) => outcome.map_err(|e| e.to_string()),
            Err(_) => Err(format!(
                "Sign-in to MCP server \"{name}\" was cancelled or not completed within {} seconds.",
                SIGN_IN_TIMEOUT.as_secs()
            )),
        }
    }

    /// Deletes server `name`'s stored credentials and takes its tools out of the session;
    /// whether there were any.
    pub async fn sign_out(self: &Arc<Self>, name: &str) -> Result<bool, String> {
        let server = self
            .server(name)
            .cloned()
            .ok_or_else(|| format!("No MCP server named \"{name}\"."))?;
        let removed = server
            .sign_out()
            .await
            .map_err(|e: SignInFailure| e.to_string())?;
        self.withdraw(&server);
        Ok(removed)
    }

    /// Servers waiting for a sign-in whose tokens another rho has stored since connect again
    /// (before a prompt: its tools are there for it).
    pub(super) async fn pick_up_sign_ins(&self) {
        for server in self.servers() {
            if server.snapshot().phase != Phase::NeedsAuth || !server.uses_oauth() {
                continue;
            }
            if server.has_fresh_sign_in().await {
                let _ = tokio::time::timeout(Duration::from_secs(10), server.reconnect()).await;
            }
        }
    }
}
