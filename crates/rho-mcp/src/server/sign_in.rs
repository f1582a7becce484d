//! Signing a server in and out (`rho mcp login|logout`, `/mcp login|logout`), as Pi 1.6 does:
//! a server that connects needs no sign-in; one that asked for more scope, or answers 401,
//! gets the browser flow with its challenge, then connects again with the new tokens.

use std::sync::Arc;

use super::{Phase, Server};
use crate::auth::{SignInError, SignInPrompt, sign_in};

/// How a sign-in ended well.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignedIn {
    /// The server connected with what was stored: nothing to do (its tools).
    Already(usize),
    /// Signed in and connected (its tools).
    Now(usize),
}

/// How a sign-in failed, in Pi's words.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SignInFailure {
    /// The server signs in otherwise.
    #[error(
        "MCP server \"{0}\" does not use OAuth. Only HTTP servers without an Authorization header do."
    )]
    NotOAuth(String),
    /// It failed to connect for another reason than a sign-in.
    #[error("MCP server \"{0}\" failed to connect: {1}")]
    Connect(String, String),
    /// The user stopped it.
    #[error("Sign-in cancelled.")]
    Cancelled,
    /// The flow failed.
    #[error("Sign-in failed: {0}")]
    Flow(String),
    /// Signed in, but the connection then failed.
    #[error("Signed in, but {0}")]
    Afterwards(String),
}

impl Server {
    /// Whether the server signs in with OAuth (an HTTP server without an `Authorization`
    /// header or `auth.provider`).
    pub fn uses_oauth(&self) -> bool {
        self.oauth_credentials().is_some()
    }

    /// Signs the server in through `prompt` and connects it again.
    pub async fn sign_in(
        self: &Arc<Self>,
        prompt: &dyn SignInPrompt,
    ) -> Result<SignedIn, SignInFailure> {
        let name = self.name().to_owned();
        let Some(credentials) = self.oauth_credentials() else {
            return Err(SignInFailure::NotOAuth(name));
        };
        let reading = credentials.clone();
        let stored = tokio::task::spawn_blocking(move || reading.read())
            .await
            .ok()
            .and_then(Result::ok)
            .unwrap_or_default();
        let mut challenge = self.challenge().or(stored.challenge);
        if challenge.is_none() {
            // Connecting answers whether a sign-in is needed, and records the challenge.
            match self.reconnect().await {
                Ok(()) => return Ok(SignedIn::Already(self.snapshot().tools.len())),
                Err(_) if self.snapshot().phase == Phase::NeedsAuth => {
                    challenge = self.challenge();
                }
                Err(error) => {
                    let detail = self.snapshot().error.unwrap_or(error);
                    return Err(SignInFailure::Connect(name, detail));
                }
            }
        }
        let entry = self.entry();
        sign_in(&entry, &credentials, challenge.as_deref(), prompt)
            .await
            .map_err(|e| match e {
                SignInError::Cancelled => SignInFailure::Cancelled,
                other => SignInFailure::Flow(other.to_string()),
            })?;
        rho_stdx::sync::lock(&self.state).challenge = None;
        match self.reconnect().await {
            Ok(()) => Ok(SignedIn::Now(self.snapshot().tools.len())),
            Err(error) => Err(SignInFailure::Afterwards(error)),
        }
    }

    /// Whether tokens were stored for the server since it last needed a sign-in (by `rho mcp
    /// login` in another process, say), with no challenge asking for more.
    pub async fn has_fresh_sign_in(&self) -> bool {
        let Some(credentials) = self.oauth_credentials() else {
            return false;
        };
        let stored = tokio::task::spawn_blocking(move || credentials.read())
            .await
            .ok()
            .and_then(Result::ok)
            .unwrap_or_default();
        let failed = rho_stdx::sync::lock(&self.state).failed_token;
        stored.has_tokens && stored.challenge.is_none() && stored.token_fingerprint != failed
    }

    /// Deletes the server's stored credentials and drops its connection; whether there were
    /// any.
    pub async fn sign_out(self: &Arc<Self>) -> Result<bool, SignInFailure> {
        let name = self.name().to_owned();
        let Some(credentials) = self.oauth_credentials() else {
            return Err(SignInFailure::NotOAuth(name));
        };
        let removed = tokio::task::spawn_blocking(move || credentials.remove())
            .await
            .map_err(|e| SignInFailure::Flow(e.to_string()))?
            .map_err(|e| SignInFailure::Flow(e.to_string()))?;
        let closed = {
            let mut state = rho_stdx::sync::lock(&self.state);
            state.challenge = None;
            if matches!(state.snapshot.phase, Phase::Connected | Phase::Disconnected) {
                state.snapshot.phase = Phase::NeedsAuth;
                state.snapshot.error = Some(format!(
                    "MCP server \"{name}\" requires sign-in. Run /mcp to sign in."
                ));
                state.snapshot.tools.clear();
            }
            state.connection.take()
        };
        self.notify_changed();
        if let Some(connection) = closed {
            connection.close().await;
        }
        Ok(removed)
    }
}
