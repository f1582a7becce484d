//! MCP for a run: the servers of `RHO_HOME/mcp.json` (and a trusted project's `.rho/mcp.json`)
//! started in the background unless `--no-mcp`, with a provider's key for `auth.provider`
//! servers, the tool filter of `--tools`/`--exclude-tools`, and what rho says at start; and
//! `rho mcp add|remove|list` ([`command`]).

mod command;
mod list;
mod login;
mod print_ui;

pub use command::main;
pub use print_ui::PrintUi;

use std::path::Path;
use std::sync::Arc;

use rho_gate::GatePolicy;
use rho_host::mcp::{McpHost, McpToolFilter};
use rho_mcp::log::McpLog;
use rho_mcp::{Credentials, Defaults, Elicitor, McpConfig, McpContext};
use rho_models::{ProcessEnvironment, rho_home};
use tokio::sync::mpsc;

use crate::cli::Cli;

/// A provider's key from `auth.json` or the environment, as the models get theirs.
struct ProviderKeys {
    home: std::path::PathBuf,
}

impl Credentials for ProviderKeys {
    fn provider_key(&self, provider: &str) -> Option<String> {
        let (auth, _) = rho_models::AuthStore::load(&self.home, Arc::new(ProcessEnvironment));
        auth.api_key(provider)
            .ok()
            .flatten()
            .map(|key| key.expose().to_owned())
    }
}

/// The MCP servers of a run in `cwd`, started; `None` with `--no-mcp` or without a `RHO_HOME`. Config errors and other start notices go to stderr. Call within
/// the runtime (on a blocking thread is fine).
pub fn start(
    cli: &Cli,
    cwd: &Path,
    trusted: bool,
    policy: &GatePolicy,
    elicitor: Option<Arc<dyn Elicitor>>,
    client_servers: &[(String, serde_json::Value)],
) -> Option<Arc<McpHost>> {
    if cli.no_mcp {
        return None;
    }
    let home = rho_home(&ProcessEnvironment)?;
    // Without servers the host is empty and costs nothing; it still answers `/mcp`.
    let mut config = McpConfig::load(&home, cwd, trusted);
    for (name, entry) in client_servers {
        if let Err(error) = config.add_client_server(name, entry.clone()) {
            config
                .errors
                .push(format!("the ACP client's servers: {error}"));
        }
    }
    let (context, receiver) = context(
        &home,
        cwd,
        policy.tool_environment().clone(),
        elicitor.unwrap_or_else(|| Arc::new(Defaults)),
    );
    let host = McpHost::start(config, context, receiver, filter(cli));
    for notice in host.startup_notices() {
        crate::warnings::say(format!("rho: {notice}"));
    }
    Some(host)
}

/// What the servers of a run in `cwd` are given: the log, who answers elicitation, the
/// environment their processes start with, provider keys; and the receiver of their signals.
fn context(
    home: &Path,
    cwd: &Path,
    tool_environment: Arc<rho_gate::ToolEnvironment>,
    elicitor: Arc<dyn Elicitor>,
) -> (
    Arc<McpContext>,
    mpsc::UnboundedReceiver<rho_mcp::ServerSignal>,
) {
    let (signals, receiver) = mpsc::unbounded_channel();
    let context = Arc::new(McpContext {
        cwd: cwd.to_path_buf(),
        log: Arc::new(McpLog::new(home.join("mcp.log"))),
        elicitor,
        signals,
        tool_environment,
        credentials: Arc::new(ProviderKeys {
            home: home.to_path_buf(),
        }),
        http: rho_http::HttpClient::shared(),
        auth: Some(rho_mcp::auth::McpAuthStore::new(home)),
    });
    (context, receiver)
}

/// `--tools`/`--no-tools` and `--exclude-tools` as they apply to MCP tools.
fn filter(cli: &Cli) -> McpToolFilter {
    let trimmed = |entries: &[String]| -> Vec<String> {
        entries
            .iter()
            .map(|e| e.trim().to_owned())
            .filter(|e| !e.is_empty())
            .collect()
    };
    let allow = if cli.no_tools {
        Some(Vec::new())
    } else {
        cli.tools.as_deref().map(trimmed).filter(|list| {
            !list
                .iter()
                .any(|e| rho_host::tool_selection::is_tool_modifier(e))
        })
    };
    McpToolFilter {
        allow,
        exclude: cli
            .exclude_tools
            .as_deref()
            .map(trimmed)
            .unwrap_or_default(),
    }
}

/// Whether the servers need `tool_search`: some enabled server has deferred or codemode tools.
pub fn needs_tool_search(host: &McpHost) -> bool {
    host.servers().iter().any(|server| {
        server.entry().config.enabled()
            && [rho_mcp::Exposure::Deferred, rho_mcp::Exposure::Codemode]
                .into_iter()
                .any(|exposure| rho_host::mcp::configures(server, exposure))
    })
}
