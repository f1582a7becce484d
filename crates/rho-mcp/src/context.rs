//! What every server of a session shares: where the session runs, the log, who answers
//! elicitation, where servers' signals go, the environment a stdio server inherits (rho's,
//! without keys), how a provider's key is found for `auth.provider`, the HTTP client, and the
//! OAuth servers' stored tokens.

use std::path::PathBuf;
use std::sync::Arc;

use rho_gate::ToolEnvironment;
use tokio::sync::mpsc;

use crate::elicit::Elicitor;
use crate::handler::ServerSignal;
use crate::log::McpLog;

/// Where a provider's key comes from (`auth: {"provider": …}` sends it as the bearer token).
pub trait Credentials: Send + Sync {
    /// The key of `provider`, if one is configured. May block (a key command runs).
    fn provider_key(&self, provider: &str) -> Option<String>;
}

/// No keys at all.
pub struct NoCredentials;

impl Credentials for NoCredentials {
    fn provider_key(&self, _provider: &str) -> Option<String> {
        None
    }
}

/// The shared context of a session's servers.
pub struct McpContext {
    /// The session's working directory: servers' relative `cwd`, and the root they are told.
    pub cwd: PathBuf,
    /// `RHO_HOME/mcp.log`.
    pub log: Arc<McpLog>,
    /// Who answers `elicitation/create`.
    pub elicitor: Arc<dyn Elicitor>,
    /// Where `tools/list_changed` and the like go.
    pub signals: mpsc::UnboundedSender<ServerSignal>,
    /// What of rho's environment a stdio server inherits (its own `env` comes on top).
    pub tool_environment: Arc<ToolEnvironment>,
    /// Keys for `auth.provider`.
    pub credentials: Arc<dyn Credentials>,
    /// HTTP.
    pub http: rho_http::HttpClient,
    /// `RHO_HOME/mcp-auth.json`: OAuth servers' tokens (`None`: no sign-ins kept).
    pub auth: Option<Arc<crate::auth::McpAuthStore>>,
}

impl McpContext {
    /// A reqwest client for streamable HTTP servers (rustls, no redirects, no retries).
    pub fn http_client(&self) -> Result<reqwest::Client, String> {
        self.http.reqwest_client()
    }
}
