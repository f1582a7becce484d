//! One configured server, live: its connection state (Pi's `starting`, `connecting`,
//! `connected`, `failed`, `needs-auth`, `disconnected`, `closed`, and `disabled`), the tools it
//! lists, and the calls made to it. A server that is not connected when a call comes is
//! connected again first (a dropped stdio server restarts on the next call); a call is never
//! retried.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

mod connect;
mod requests;
mod sign_in;

pub use self::sign_in::{SignInFailure, SignedIn};

use rmcp::RoleClient;
use rmcp::model::Tool;
use rmcp::service::{Peer, RunningService};
use tokio::sync::watch;

use self::connect::with_tail;
use self::requests::error_text;
use crate::config::ServerEntry;
use crate::context::McpContext;
use crate::handler::Handler;
use crate::process::ServerProcess;
use crate::tap::RawResults;

/// Where a server is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Not tried yet.
    Starting,
    /// A connection is being made.
    Connecting,
    /// Connected; its tools are listed.
    Connected,
    /// The last connection failed.
    Failed,
    /// An HTTP server answered 401: it needs a sign-in.
    NeedsAuth,
    /// The connection dropped; the next call connects again.
    Disconnected,
    /// Shut down with the session.
    Closed,
    /// `enabled: false`.
    Disabled,
}

impl Phase {
    /// Pi's name of the state.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Starting => "starting",
            Phase::Connecting => "connecting",
            Phase::Connected => "connected",
            Phase::Failed => "failed",
            Phase::NeedsAuth => "needs-auth",
            Phase::Disconnected => "disconnected",
            Phase::Closed => "closed",
            Phase::Disabled => "disabled",
        }
    }

    /// Whether nothing more will happen on its own (a connection attempt has settled).
    pub fn is_settled(self) -> bool {
        !matches!(self, Phase::Starting | Phase::Connecting)
    }
}

/// What a server's state is at one moment.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// The phase.
    pub phase: Phase,
    /// Why it failed or dropped (with its stderr tail).
    pub error: Option<String>,
    /// Its tools, as listed.
    pub tools: Vec<Tool>,
    /// Its `instructions`, trimmed.
    pub instructions: Option<String>,
    /// Whether it offers resources.
    pub has_resources: bool,
}

/// A live connection.
struct Connection {
    peer: Peer<RoleClient>,
    /// Listings as the server wrote them (stdio only).
    raw: Arc<RawResults>,
    handler: Handler,
    /// The service, kept to close it; taken at shutdown.
    service: tokio::sync::Mutex<Option<RunningService<RoleClient, Handler>>>,
    process: Option<Arc<ServerProcess>>,
}

impl Connection {
    /// Ends the service (its task drops the transport, so a server's stdin closes), then stops
    /// the process.
    async fn close(&self) {
        if let Some(service) = self.service.lock().await.take() {
            let _ = service.cancel().await;
        }
        if let Some(process) = &self.process {
            process.stop().await;
        }
    }
}

/// One server.
pub struct Server {
    /// Itself, for the work it starts beside a call.
    me: std::sync::Weak<Server>,
    name: String,
    /// Its configuration; `/mcp` may change it (enable, disable, exposure).
    entry: Mutex<Arc<ServerEntry>>,
    context: Arc<McpContext>,
    state: Mutex<State>,
    /// One connection attempt at a time.
    connecting: tokio::sync::Mutex<()>,
    /// Bumped on every change of state, for waiters.
    changed: watch::Sender<u64>,
    /// Told of every change of state, at once (the host registers the tools again).
    observer: Mutex<Option<Observer>>,
}

/// What is told of a server's changes, synchronously: a change is seen before the call that
/// caused it returns.
pub type Observer = Arc<dyn Fn(&str) + Send + Sync>;

struct State {
    snapshot: Snapshot,
    connection: Option<Arc<Connection>>,
    /// The last `WWW-Authenticate` that said a sign-in is needed.
    challenge: Option<String>,
    /// The stored access token's fingerprint when the server last needed a sign-in.
    failed_token: Option<u64>,
    /// Writes of what a sign-in needs, still running (waited for at shutdown).
    auth_writes: Vec<tokio::task::JoinHandle<()>>,
}

/// Why a call failed: the text of its error result.
pub type CallError = String;

/// A request that failed: the server's JSON-RPC error, or anything else.
#[derive(Debug)]
enum RequestError {
    /// The server answered with an error.
    Server { code: i32, message: String },
    /// No answer: the connection, a timeout, a result that is not JSON.
    Other(String),
}

impl From<RequestError> for String {
    fn from(error: RequestError) -> String {
        match error {
            RequestError::Server { message, .. } => message,
            RequestError::Other(message) => message,
        }
    }
}

impl Server {
    /// The server of `entry`, not connected yet.
    pub fn new(entry: ServerEntry, context: Arc<McpContext>) -> Arc<Server> {
        let phase = if entry.config.enabled() {
            Phase::Starting
        } else {
            Phase::Disabled
        };
        Arc::new_cyclic(|me| Server {
            me: me.clone(),
            name: entry.name.clone(),
            entry: Mutex::new(Arc::new(entry)),
            context,
            state: Mutex::new(State {
                snapshot: Snapshot {
                    phase,
                    error: None,
                    tools: Vec::new(),
                    instructions: None,
                    has_resources: false,
                },
                connection: None,
                challenge: None,
                failed_token: None,
                auth_writes: Vec::new(),
            }),
            connecting: tokio::sync::Mutex::new(()),
            changed: watch::channel(0).0,
            observer: Mutex::new(None),
        })
    }

    /// A weak reference to itself.
    fn weak(&self) -> std::sync::Weak<Server> {
        self.me.clone()
    }

    /// Its configuration now.
    pub fn entry(&self) -> Arc<ServerEntry> {
        rho_stdx::sync::lock(&self.entry).clone()
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Changes its configuration (same name). Disabling closes the connection and stops the
    /// process; enabling a disabled server makes it `starting` (the caller connects it).
    pub async fn set_entry(&self, entry: ServerEntry) {
        let enabled = entry.config.enabled();
        *rho_stdx::sync::lock(&self.entry) = Arc::new(entry);
        let closed = {
            let mut state = rho_stdx::sync::lock(&self.state);
            if !enabled {
                state.snapshot = Snapshot {
                    phase: Phase::Disabled,
                    error: None,
                    tools: Vec::new(),
                    instructions: None,
                    has_resources: false,
                };
                state.connection.take()
            } else {
                if state.snapshot.phase == Phase::Disabled {
                    state.snapshot.phase = Phase::Starting;
                }
                None
            }
        };
        self.notify_changed();
        if let Some(connection) = closed {
            connection.close().await;
        }
    }

    /// Its state now.
    pub fn snapshot(&self) -> Snapshot {
        rho_stdx::sync::lock(&self.state).snapshot.clone()
    }

    /// The server's last challenge that asked for a sign-in.
    pub fn challenge(&self) -> Option<String> {
        rho_stdx::sync::lock(&self.state).challenge.clone()
    }

    /// Resolves once a connection attempt has settled (connected or not), or at once if the
    /// server is not starting or connecting.
    pub async fn settled(&self) {
        let mut changed = self.changed.subscribe();
        loop {
            if self.snapshot().phase.is_settled() {
                return;
            }
            if changed.changed().await.is_err() {
                return;
            }
        }
    }

    /// A receiver told of every change of state.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    fn update(&self, change: impl FnOnce(&mut State)) {
        change(&mut rho_stdx::sync::lock(&self.state));
        self.notify_changed();
    }

    /// Tells the waiters and the observer that the state changed (no lock held).
    fn notify_changed(&self) {
        self.changed.send_modify(|n| *n += 1);
        let observer = rho_stdx::sync::lock(&self.observer).clone();
        if let Some(observer) = observer {
            observer(&self.name);
        }
    }

    /// Calls `observer` with the server's name after every change of its state.
    pub fn observe(&self, observer: Observer) {
        *rho_stdx::sync::lock(&self.observer) = Some(observer);
    }

    /// Connects if not connected (and not disabled or closed); the connection, or why not.
    pub async fn ensure_connected(self: &Arc<Self>) -> Result<(), CallError> {
        let _one = self.connecting.lock().await;
        let phase = self.snapshot().phase;
        match phase {
            Phase::Connected => return Ok(()),
            Phase::Disabled => {
                return Err(format!("MCP server \"{}\" is disabled.", self.name()));
            }
            Phase::Closed => return Err(format!("MCP server \"{}\" is shut down", self.name())),
            _ => {}
        }
        self.update(|s| s.snapshot.phase = Phase::Connecting);
        match self.connect().await {
            Ok((connection, _)) if !self.entry().config.enabled() => {
                // Disabled while connecting: the new connection is not kept.
                connection.close().await;
                Err(format!("MCP server \"{}\" is disabled.", self.name()))
            }
            Ok((connection, tools)) => {
                let info = connection.peer.peer_info();
                let instructions = info
                    .as_ref()
                    .and_then(|i| i.instructions.as_deref())
                    .map(str::trim)
                    .filter(|t| !t.is_empty())
                    .map(str::to_owned);
                let has_resources = info
                    .as_ref()
                    .is_some_and(|i| i.capabilities.resources.is_some());
                self.watch_process(&connection);
                self.update(|s| {
                    s.challenge = None;
                    s.snapshot = Snapshot {
                        phase: Phase::Connected,
                        error: None,
                        tools,
                        instructions,
                        has_resources,
                    };
                    s.connection = Some(connection);
                });
                Ok(())
            }
            Err(_) if !self.entry().config.enabled() => {
                Err(format!("MCP server \"{}\" is disabled.", self.name()))
            }
            Err((phase, error)) => {
                self.update(|s| {
                    s.snapshot.phase = phase;
                    s.snapshot.error = Some(error.clone());
                    s.connection = None;
                });
                Err(match phase {
                    Phase::NeedsAuth => error,
                    _ => format!("MCP server \"{}\" failed to connect: {error}", self.name()),
                })
            }
        }
    }

    /// Marks the server disconnected when its process ends.
    fn watch_process(self: &Arc<Self>, connection: &Arc<Connection>) {
        let Some(process) = connection.process.clone() else {
            return;
        };
        let server = Arc::downgrade(self);
        let watched = Arc::downgrade(connection);
        tokio::spawn(async move {
            process.wait().await;
            let Some(server) = server.upgrade() else {
                return;
            };
            let tail = process.stderr_tail();
            server.update(|s| {
                // Unless a new connection took its place: the connection ended with its
                // process (a failed call may have seen the drop first), and its stderr says
                // why.
                let replaced = match (&s.connection, watched.upgrade()) {
                    (Some(current), Some(watched)) => !Arc::ptr_eq(current, &watched),
                    (Some(_), None) => true,
                    (None, _) => false,
                };
                if !replaced && matches!(s.snapshot.phase, Phase::Connected | Phase::Disconnected) {
                    s.snapshot.phase = Phase::Disconnected;
                    s.snapshot.error = Some(with_tail("Connection closed".to_owned(), &tail));
                    s.connection = None;
                }
            });
        });
    }

    /// Lists the tools again (after `tools/list_changed`).
    pub async fn refresh_tools(self: &Arc<Self>) {
        let Some(connection) = rho_stdx::sync::lock(&self.state).connection.clone() else {
            return;
        };
        let listed = tokio::time::timeout(self.timeout(), connection.peer.list_all_tools()).await;
        match listed {
            Ok(Ok(tools)) => self.update(|s| {
                s.snapshot.tools = tools;
                s.snapshot.error = None;
            }),
            Ok(Err(error)) => {
                let message = format!("Failed to refresh tools: {}", error_text(&error));
                self.update(|s| s.snapshot.error = Some(message));
            }
            Err(_) => self.update(|s| {
                s.snapshot.error = Some("Failed to refresh tools: timed out".to_owned());
            }),
        }
    }

    /// Closes the connection and stops the process (stdin closed, SIGTERM, SIGKILL).
    pub async fn shutdown(&self) {
        let (connection, writes) = {
            let mut state = rho_stdx::sync::lock(&self.state);
            state.snapshot.phase = Phase::Closed;
            (
                state.connection.take(),
                std::mem::take(&mut state.auth_writes),
            )
        };
        // A challenge asking for more scope reaches mcp-auth.json before rho ends.
        for write in writes {
            let _ = write.await;
        }
        self.notify_changed();
        if let Some(connection) = connection {
            connection.close().await;
        }
    }

    /// Drops the connection (stopping its process) and connects again (`/mcp reconnect`);
    /// a disabled or shut-down server stays as it is.
    pub async fn reconnect(self: &Arc<Self>) -> Result<(), CallError> {
        let old = {
            let _one = self.connecting.lock().await;
            let mut state = rho_stdx::sync::lock(&self.state);
            if matches!(state.snapshot.phase, Phase::Disabled | Phase::Closed) {
                None
            } else {
                state.snapshot.phase = Phase::Starting;
                state.snapshot.error = None;
                state.connection.take()
            }
        };
        self.notify_changed();
        if let Some(connection) = old {
            connection.close().await;
        }
        self.ensure_connected().await
    }

    /// Where the session runs (for messages).
    pub fn cwd(&self) -> PathBuf {
        self.context.cwd.clone()
    }
}
