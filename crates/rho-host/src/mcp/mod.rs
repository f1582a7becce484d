//! MCP in a session (Pi 1.6's built-in `mcp` extension): the servers of `mcp.json` connect in
//! the background when the session starts, and each one's tools join the session's
//! [`ToolSet`] as it connects — `direct` ones declared, `deferred` (and `codemode`, which acts as
//! `deferred` until rho has codemode) loadable with `tool_search`, `hidden` ones never. The first
//! prompt waits at most 10 s, and only for servers with direct tools; the system prompt lists
//! the servers whose tools are not declared (`mcp_servers`); `tools/list_changed` registers the
//! tools again; the resource tools appear once a server offers resources.

mod changes;
mod command;
mod elicit;
mod manager;
mod names;
mod resources;
mod section;
mod sign_in;
mod sign_in_prompt;
mod status;
mod text;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use async_trait::async_trait;
use rho_mcp::exposure::{configured_exposures, tool_exposure};
use rho_mcp::naming::namespace;
use rho_mcp::{Exposure, McpConfig, McpContext, McpTool, Phase, Server, ServerSignal};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

pub use self::elicit::DialogElicitor;
use self::names::Names;
pub use self::sign_in_prompt::{SIGN_IN_TIMEOUT, UiSignInPrompt, open_browser};
pub use self::text::{
    MCP_COMMAND_DESCRIPTION, MCP_USAGE, describe_state, mcp_command_args, no_servers_message,
};
use crate::session::BeforePrompt;
use crate::tool_selection::matches_tool;
use crate::tool_set::{ToolExposure, ToolNamespace, ToolSet};

/// Whether a server's configuration has `exposure` among its exposures.
pub fn configures(server: &Server, exposure: Exposure) -> bool {
    configured_exposures(&server.entry().config).contains(&exposure)
}
use crate::tools::tool_search::Registration;

/// How long the first prompt waits for servers with direct tools.
const FIRST_PROMPT_WAIT: Duration = Duration::from_secs(10);

/// What `--tools` and `--exclude-tools` say of MCP tools (Pi 1.6's rule): an allowlist that
/// names no `mcp__` tool leaves MCP tools registered but declares none of them (`tool_search`
/// may still load deferred ones); one that does (or `--no-tools`, an empty list) picks MCP
/// tools like any other; excluded tools are never declared.
#[derive(Clone, Debug, Default)]
pub struct McpToolFilter {
    /// The `--tools` allowlist (`Some(empty)` for `--no-tools`), if any.
    pub allow: Option<Vec<String>>,
    /// `--exclude-tools`.
    pub exclude: Vec<String>,
}

impl McpToolFilter {
    /// The exposure and activity of the MCP tool `name` whose configured exposure is
    /// `exposure`; `None` when it must not be registered at all.
    fn decide(&self, name: &str, exposure: Exposure) -> Option<(ToolExposure, bool)> {
        if matches_tool(&self.exclude, name) {
            return None;
        }
        let registered = match exposure {
            Exposure::Direct => ToolExposure::Direct,
            Exposure::Deferred | Exposure::Codemode => ToolExposure::Deferred,
            Exposure::Hidden => return None,
        };
        let active = match &self.allow {
            None => registered == ToolExposure::Direct,
            Some(list) if list.is_empty() || list.iter().any(|e| e.starts_with("mcp__")) => {
                matches_tool(list, name)
            }
            Some(_) => false,
        };
        Some((registered, active))
    }
}

/// The MCP servers of a working directory's sessions (a session switch keeps them).
pub struct McpHost {
    config: McpConfig,
    servers: Vec<Arc<Server>>,
    /// The tool registries of the sessions attached.
    tool_sets: Mutex<Vec<Weak<ToolSet>>>,
    filter: McpToolFilter,
    names: Mutex<Names>,
    first_prompt_waited: AtomicBool,
    /// Bumped after every change of any server (a live menu is made again).
    changes: tokio::sync::watch::Sender<u64>,
}

impl McpHost {
    /// Starts connecting every enabled server of `config` in the background; their tools go to
    /// the tool sets attached. `signals` is the receiving end of `context.signals`. Call within
    /// the runtime.
    pub fn start(
        config: McpConfig,
        context: Arc<McpContext>,
        signals: mpsc::UnboundedReceiver<ServerSignal>,
        filter: McpToolFilter,
    ) -> Arc<McpHost> {
        let servers = config
            .servers
            .iter()
            .map(|entry| Server::new(entry.clone(), context.clone()))
            .collect();
        let host = Arc::new(McpHost {
            config,
            servers,
            tool_sets: Mutex::default(),
            filter,
            names: Mutex::default(),
            first_prompt_waited: AtomicBool::new(false),
            changes: tokio::sync::watch::channel(0).0,
        });
        for server in &host.servers {
            // Every change of a server's state registers its tools again, before the change
            // is done: its first connection, a reconnection after a drop, a tool list listed
            // again during a call, enabling it with `/mcp`.
            let weak = Arc::downgrade(&host);
            server.observe(Arc::new(move |name: &str| {
                if let Some(host) = weak.upgrade()
                    && let Some(server) = host.server(name).cloned()
                {
                    host.register(&server);
                    host.changes.send_modify(|n| *n += 1);
                }
            }));
            if !server.entry().config.enabled() {
                continue;
            }
            let connecting = server.clone();
            tokio::spawn(async move {
                let _ = connecting.ensure_connected().await;
            });
        }
        tokio::spawn(listen(Arc::downgrade(&host), signals));
        host
    }

    /// Registers the servers' tools in `tools` now and whenever they change.
    pub fn attach(self: &Arc<Self>, tools: &Arc<ToolSet>) {
        let mut sets = rho_stdx::sync::lock(&self.tool_sets);
        sets.retain(|set| set.strong_count() > 0);
        sets.push(Arc::downgrade(tools));
        drop(sets);
        for server in &self.servers {
            self.register(server);
        }
    }

    /// The live tool sets.
    fn tool_sets(&self) -> Vec<Arc<ToolSet>> {
        rho_stdx::sync::lock(&self.tool_sets)
            .iter()
            .filter_map(Weak::upgrade)
            .collect()
    }

    /// The servers, in configuration order.
    pub fn servers(&self) -> &[Arc<Server>] {
        &self.servers
    }

    /// A receiver told of every change of any server.
    pub fn subscribe(&self) -> tokio::sync::watch::Receiver<u64> {
        self.changes.subscribe()
    }

    /// The configuration.
    pub fn config(&self) -> &McpConfig {
        &self.config
    }

    /// The server named `name`.
    pub fn server(&self, name: &str) -> Option<&Arc<Server>> {
        self.servers.iter().find(|s| s.name() == name)
    }

    /// Resolves once every enabled server's connection attempt has settled.
    pub async fn settled(&self) {
        for server in &self.servers {
            server.settled().await;
        }
    }

    /// Registers a connected server's tools (again), hiding those it no longer lists, and the
    /// resource tools when a server offers resources.
    fn register(self: &Arc<Self>, server: &Arc<Server>) {
        let snapshot = server.snapshot();
        if snapshot.phase != Phase::Connected {
            return;
        }
        let config = &server.entry().config;
        let ns = Arc::new(ToolNamespace {
            name: namespace(server.name()),
            description: config
                .description()
                .map(|d| d.trim().to_owned())
                .filter(|d| !d.is_empty()),
            instructions: snapshot.instructions.clone(),
        });
        let listed: Vec<String> = snapshot.tools.iter().map(|t| t.name.to_string()).collect();
        let assigned = rho_stdx::sync::lock(&self.names).assign(server.name(), &listed);
        let sets = self.tool_sets();
        for (tool, name) in snapshot.tools.iter().zip(&assigned.names) {
            let exposure = tool_exposure(config, &tool.name);
            match self.filter.decide(name, exposure) {
                Some((registered, active)) => {
                    let mcp_tool: Arc<dyn rho_agent::AgentTool> =
                        Arc::new(McpTool::new(server.clone(), tool, name.clone(), exposure));
                    for set in &sets {
                        set.register(mcp_tool.clone(), registered, active, Some(ns.clone()));
                    }
                }
                None => sets.iter().for_each(|set| set.hide(name)),
            }
        }
        for withdrawn in &assigned.withdrawn {
            sets.iter().for_each(|set| set.hide(withdrawn));
        }
        resources::sync(self, &sets);
    }

    /// The servers whose tools the first prompt waits for: those with direct tools configured,
    /// and those a resumed transcript's loaded tools belong to.
    fn first_prompt_servers(&self) -> Vec<Arc<Server>> {
        let pending: Vec<String> = self
            .tool_sets()
            .iter()
            .flat_map(|set| set.pending())
            .collect();
        self.servers
            .iter()
            .filter(|s| s.entry().config.enabled())
            .filter(|s| {
                let direct = configured_exposures(&s.entry().config).contains(&Exposure::Direct);
                let prefix = format!("{}__", namespace(s.name()));
                direct || pending.iter().any(|name| name.starts_with(&prefix))
            })
            .cloned()
            .collect()
    }

    /// Closes every connection and stops every stdio server.
    pub async fn shutdown(&self) {
        for server in &self.servers {
            server.shutdown().await;
        }
    }

    /// One line per problem once every server has settled (`MCP servers need attention:` …),
    /// or `None` when there is none: config errors, failed servers, servers needing sign-in.
    pub async fn attention(&self) -> Option<String> {
        self.settled().await;
        status::attention(self)
    }

    /// What `/mcp` and `rho mcp list` print.
    pub fn status(&self) -> String {
        status::format_status(self)
    }

    /// Warnings for the start: `codemode` servers acting as deferred (config errors come with
    /// [`McpHost::attention`]).
    pub fn startup_notices(&self) -> Vec<String> {
        status::startup_notices(self)
    }
}

/// Registers a server's tools again when it says they changed.
async fn listen(
    host: std::sync::Weak<McpHost>,
    mut signals: mpsc::UnboundedReceiver<ServerSignal>,
) {
    while let Some(signal) = signals.recv().await {
        let Some(host) = host.upgrade() else {
            return;
        };
        match signal {
            ServerSignal::ToolsChanged(name) => {
                if let Some(server) = host.server(&name).cloned() {
                    server.refresh_tools().await;
                    host.register(&server);
                }
            }
        }
    }
}

#[async_trait]
impl BeforePrompt for McpHost {
    async fn before_prompt(&self, cancel: &CancellationToken) -> Vec<(String, String)> {
        self.pick_up_sign_ins().await;
        if !self.first_prompt_waited.swap(true, Ordering::SeqCst) {
            let waited = self.first_prompt_servers();
            let all = async {
                for server in &waited {
                    server.settled().await;
                }
            };
            tokio::select! {
                _ = tokio::time::timeout(FIRST_PROMPT_WAIT, all) => {}
                () = cancel.cancelled() => {}
            }
        }
        section::render(self)
            .map(|text| vec![("mcp_servers".to_owned(), text)])
            .unwrap_or_default()
    }
}

#[async_trait]
impl Registration for McpHost {
    async fn settled(&self) {
        McpHost::settled(self).await;
    }
}
