//! Making a connection: the stdio process or the HTTP transport, `initialize`, `tools/list`.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::Tool;
use rmcp::service::RunningService;
use rmcp::transport::auth::AuthError;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{AuthClient, StreamableHttpClientTransport};
use rmcp::{RoleClient, ServiceExt};

use super::requests::error_text;
use super::{Connection, Phase, Server};
use crate::auth::store::ServerCredentials;
use crate::auth::{is_insufficient_scope, transport::signed_in_manager};
use crate::config::TransportKind;
use crate::handler::Handler;
use crate::interpolate::{ProcessVariables, resolve};
use crate::process::ServerProcess;
use crate::tap::{RawResults, Tap};

impl Server {
    /// Makes one connection: transport, `initialize`, `tools/list`. The phase to go to and
    /// the message on failure.
    pub(super) async fn connect(&self) -> Result<(Arc<Connection>, Vec<Tool>), (Phase, String)> {
        let handler = Handler::new(
            self.name(),
            &self.context.cwd,
            self.context.signals.clone(),
            self.context.log.clone(),
            self.context.elicitor.clone(),
        );
        let raw = Arc::new(RawResults::default());
        let (service, process) = match self.entry().config.kind() {
            TransportKind::Stdio => self.connect_stdio(handler.clone(), raw.clone()).await?,
            TransportKind::Http => (self.connect_http(handler.clone()).await?, None),
        };
        let peer = service.peer().clone();
        let timeout = self.timeout();
        let tools = match tokio::time::timeout(timeout, peer.list_all_tools()).await {
            Ok(Ok(tools)) => tools,
            Ok(Err(error))
                if error.is_authorization_required() || error.auth_challenge().is_some() =>
            {
                return Err(self.needs_sign_in(error.auth_challenge()));
            }
            Ok(Err(error)) => return Err(self.failure(error_text(&error), process.as_ref())),
            Err(_) => {
                let message = format!("MCP request timed out after {}ms", timeout.as_millis());
                return Err(self.failure(message, process.as_ref()));
            }
        };
        let connection = Arc::new(Connection {
            peer,
            raw,
            handler,
            service: tokio::sync::Mutex::new(Some(service)),
            process: process.map(Arc::new),
        });
        Ok((connection, tools))
    }

    /// The stored credentials of an HTTP server that signs in with OAuth.
    pub(super) fn oauth_credentials(&self) -> Option<ServerCredentials> {
        let entry = self.entry();
        let store = self.context.auth.as_ref()?;
        entry
            .config
            .uses_oauth()
            .then(|| store.for_server(self.name(), entry.config.url().unwrap_or_default()))
    }

    /// The server needs a sign-in: its challenge is kept for the sign-in (and stored, when it
    /// asks for more scope than the tokens have, so a sign-in in another process asks for it).
    pub(super) fn needs_sign_in(&self, challenge: Option<&str>) -> (Phase, String) {
        let more_scope = challenge.is_some_and(is_insufficient_scope);
        rho_stdx::sync::lock(&self.state).challenge = challenge.map(str::to_owned);
        if let Some(credentials) = self.oauth_credentials() {
            let kept = more_scope.then(|| challenge.map(str::to_owned)).flatten();
            let server = self.weak();
            let write = tokio::task::spawn_blocking(move || {
                if kept.is_some() {
                    let _ = credentials.save_challenge(kept.as_deref());
                }
                // The tokens that failed: a sign-in elsewhere stores others.
                let failed = credentials.read().ok().and_then(|a| a.token_fingerprint);
                if let Some(server) = server.upgrade() {
                    rho_stdx::sync::lock(&server.state).failed_token = failed;
                }
            });
            let mut state = rho_stdx::sync::lock(&self.state);
            state.auth_writes.retain(|w| !w.is_finished());
            state.auth_writes.push(write);
        }
        let message = if more_scope {
            format!(
                "MCP server \"{}\" needs more permission than it was given. Run /mcp login {} to sign in again.",
                self.name(),
                self.name()
            )
        } else {
            format!(
                "MCP server \"{}\" requires sign-in. Run /mcp to sign in.",
                self.name()
            )
        };
        (Phase::NeedsAuth, message)
    }

    fn failure(&self, message: String, process: Option<&ServerProcess>) -> (Phase, String) {
        let tail = process.map(ServerProcess::stderr_tail).unwrap_or_default();
        (Phase::Failed, with_tail(message, &tail))
    }

    /// The per-request timeout.
    pub(super) fn timeout(&self) -> Duration {
        Duration::from_secs_f64(self.entry().config.timeout_secs())
    }

    async fn connect_stdio(
        &self,
        handler: Handler,
        raw: Arc<RawResults>,
    ) -> Result<(RunningService<RoleClient, Handler>, Option<ServerProcess>), (Phase, String)> {
        let entry = self.entry();
        let config = &entry.config;
        let fail = |message: String| (Phase::Failed, message);
        let command_name = config.command().unwrap_or_default();
        let program = expand_home(command_name);
        let cwd = self
            .context
            .cwd
            .join(expand_home(config.cwd().unwrap_or(".")));
        let mut env = Vec::new();
        for (key, value) in config.env() {
            let what = format!("MCP server \"{}\" env \"{key}\"", self.name());
            env.push((key, resolve_blocking(value, what).await.map_err(fail)?));
        }
        let mut command = tokio::process::Command::new(&program);
        command
            .args(config.args().iter().map(|a| expand_home(a)))
            .current_dir(&cwd)
            .env_clear()
            .envs(self.context.tool_environment.apply(std::env::vars_os()))
            .env("PI_CODING_AGENT", "true")
            .env("AI_AGENT", "rho")
            .envs(env);
        let spawned = ServerProcess::spawn(command).map_err(|error| {
            let code = match error.kind() {
                std::io::ErrorKind::NotFound => "ENOENT".to_owned(),
                std::io::ErrorKind::PermissionDenied => "EACCES".to_owned(),
                _ => error.to_string(),
            };
            fail(format!("spawn {command_name} {code}"))
        })?;
        let process = spawned.process;
        let timeout = self.timeout();
        let stdout = Tap::new(spawned.stdout, raw);
        let served = tokio::time::timeout(timeout, handler.serve((stdout, spawned.stdin)));
        match served.await {
            Ok(Ok(service)) => Ok((service, Some(process))),
            Ok(Err(error)) => {
                // The server may have died mid-handshake: give its stderr a moment to arrive.
                let _ = tokio::time::timeout(Duration::from_millis(100), process.wait()).await;
                Err(self.failure(initialize_error(&error), Some(&process)))
            }
            Err(_) => {
                let message = format!("MCP request timed out after {}ms", timeout.as_millis());
                Err(self.failure(message, Some(&process)))
            }
        }
    }

    async fn connect_http(
        &self,
        handler: Handler,
    ) -> Result<RunningService<RoleClient, Handler>, (Phase, String)> {
        let entry = self.entry();
        let config = &entry.config;
        let fail = |message: String| (Phase::Failed, message);
        let url = config.url().unwrap_or_default().to_owned();
        let mut headers = std::collections::HashMap::new();
        for (name, value) in config.headers() {
            let what = format!("MCP server \"{}\" header \"{name}\"", self.name());
            let value = resolve_blocking(value, what).await.map_err(fail)?;
            let header_name = http::HeaderName::try_from(name.as_str())
                .map_err(|e| fail(format!("header \"{name}\": {e}")))?;
            let header_value = http::HeaderValue::try_from(value.as_str())
                .map_err(|e| fail(format!("header \"{name}\": {e}")))?;
            headers.insert(header_name, header_value);
        }
        let mut transport_config =
            StreamableHttpClientTransportConfig::with_uri(url.as_str()).custom_headers(headers);
        if let Some(provider) = config.auth_provider() {
            let credentials = self.context.credentials.clone();
            let name = provider.to_owned();
            let key = tokio::task::spawn_blocking(move || credentials.provider_key(&name))
                .await
                .ok()
                .flatten()
                .ok_or_else(|| {
                    fail(format!(
                        "no key for provider \"{provider}\": run rho auth login {provider}"
                    ))
                })?;
            transport_config = transport_config.auth_header(key);
        }
        let client = self.context.http_client().map_err(fail)?;
        let manager = match self.oauth_credentials() {
            Some(credentials) => {
                let reading = credentials.clone();
                let stored = tokio::task::spawn_blocking(move || reading.read())
                    .await
                    .map_err(|e| fail(e.to_string()))?
                    .map_err(|e| fail(format!("{}: {e}", credentials.store_path().display())))?;
                match signed_in_manager(&entry, &credentials, &stored).await {
                    Ok(manager) => manager,
                    Err(AuthError::AuthorizationRequired | AuthError::TokenRefreshRejected(_)) => {
                        return Err(self.needs_sign_in(None));
                    }
                    Err(error) => return Err(fail(format!("OAuth: {error}"))),
                }
            }
            None => None,
        };
        let timeout = self.timeout();
        let serving = async {
            match manager {
                Some(manager) => {
                    let client = AuthClient::new(client, manager);
                    let transport =
                        StreamableHttpClientTransport::with_client(client, transport_config);
                    handler.serve(transport).await
                }
                None => {
                    let transport =
                        StreamableHttpClientTransport::with_client(client, transport_config);
                    handler.serve(transport).await
                }
            }
        };
        match tokio::time::timeout(timeout, serving).await {
            Ok(Ok(service)) => Ok(service),
            Ok(Err(error))
                if error.is_authorization_required() || error.auth_challenge().is_some() =>
            {
                Err(self.needs_sign_in(error.auth_challenge()))
            }
            Ok(Err(error)) => Err(fail(initialize_error(&error))),
            Err(_) => Err(fail(format!(
                "MCP request timed out after {}ms",
                timeout.as_millis()
            ))),
        }
    }
}

/// Resolves a config value on a blocking thread (a `!command` runs).
async fn resolve_blocking(value: String, what: String) -> Result<String, String> {
    tokio::task::spawn_blocking(move || resolve(&value, &what, &ProcessVariables))
        .await
        .map_err(|e| e.to_string())?
}

/// `~` and `~/…` as the user's home.
fn expand_home(path: &str) -> String {
    let home = || std::env::var("HOME").unwrap_or_default();
    if path == "~" {
        home()
    } else if let Some(rest) = path.strip_prefix("~/") {
        format!("{}/{rest}", home())
    } else {
        path.to_owned()
    }
}

/// `message`, then the stderr tail on its own lines when there is one.
pub(super) fn with_tail(message: String, tail: &str) -> String {
    if tail.is_empty() {
        message
    } else {
        format!("{message}\n{tail}")
    }
}
/// The handshake's failure, in words a user can act on.
fn initialize_error(error: &rmcp::service::ClientInitializeError) -> String {
    use rmcp::service::ClientInitializeError;
    match error {
        ClientInitializeError::ConnectionClosed(_) => "MCP connection closed".to_owned(),
        ClientInitializeError::JsonRpcError(error) => error.message.to_string(),
        other => other.to_string(),
    }
}
