//! One configured server, live: its connection state (Pi's `starting`, `connecting`,
//! `connected`, `failed`, `needs-auth`, `disconnected`, `closed`, and `disabled`), the tools it
//! lists, and the calls made to it. A server that is not connected when a call comes is
//! connected again first (a dropped stdio server restarts on the next call); a call is never
//! retried.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotification, CancelledNotificationParam,
    ClientRequest, CustomResult, ListResourceTemplatesRequest, ListResourcesRequest,
    PaginatedRequestParams, ReadResourceRequest, ReadResourceRequestParams, ServerResult, Tool,
};
use rmcp::service::{Peer, PeerRequestOptions, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{RoleClient, ServiceError, ServiceExt};
use serde_json::{Map, Value};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::config::{ServerEntry, TransportKind};
use crate::context::McpContext;
use crate::handler::Handler;
use crate::interpolate::{ProcessVariables, resolve};
use crate::process::ServerProcess;
use crate::tap::{RawResults, Tap};

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

/// One server.
pub struct Server {
    entry: ServerEntry,
    context: Arc<McpContext>,
    state: Mutex<State>,
    /// One connection attempt at a time.
    connecting: tokio::sync::Mutex<()>,
    /// Bumped on every change of state, for waiters.
    changed: watch::Sender<u64>,
}

struct State {
    snapshot: Snapshot,
    connection: Option<Arc<Connection>>,
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
        Arc::new(Server {
            entry,
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
            }),
            connecting: tokio::sync::Mutex::new(()),
            changed: watch::channel(0).0,
        })
    }

    /// Its configuration.
    pub fn entry(&self) -> &ServerEntry {
        &self.entry
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.entry.name
    }

    /// Its state now.
    pub fn snapshot(&self) -> Snapshot {
        rho_stdx::sync::lock(&self.state).snapshot.clone()
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
        self.changed.send_modify(|n| *n += 1);
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
                let same = match (&s.connection, watched.upgrade()) {
                    (Some(current), Some(watched)) => Arc::ptr_eq(current, &watched),
                    _ => false,
                };
                if same && s.snapshot.phase == Phase::Connected {
                    s.snapshot.phase = Phase::Disconnected;
                    s.snapshot.error = Some(with_tail("Connection closed".to_owned(), &tail));
                    s.connection = None;
                }
            });
        });
    }

    /// Makes one connection: transport, `initialize`, `tools/list`. The phase to go to and
    /// the message on failure.
    async fn connect(&self) -> Result<(Arc<Connection>, Vec<Tool>), (Phase, String)> {
        let handler = Handler::new(
            self.name(),
            &self.context.cwd,
            self.context.signals.clone(),
            self.context.log.clone(),
            self.context.elicitor.clone(),
        );
        let raw = Arc::new(RawResults::default());
        let (service, process) = match self.entry.config.kind() {
            TransportKind::Stdio => self.connect_stdio(handler.clone(), raw.clone()).await?,
            TransportKind::Http => (self.connect_http(handler.clone()).await?, None),
        };
        let peer = service.peer().clone();
        let timeout = self.timeout();
        let tools = match tokio::time::timeout(timeout, peer.list_all_tools()).await {
            Ok(Ok(tools)) => tools,
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

    fn failure(&self, message: String, process: Option<&ServerProcess>) -> (Phase, String) {
        let tail = process.map(ServerProcess::stderr_tail).unwrap_or_default();
        (Phase::Failed, with_tail(message, &tail))
    }

    /// The per-request timeout.
    fn timeout(&self) -> Duration {
        Duration::from_secs_f64(self.entry.config.timeout_secs())
    }

    async fn connect_stdio(
        &self,
        handler: Handler,
        raw: Arc<RawResults>,
    ) -> Result<(RunningService<RoleClient, Handler>, Option<ServerProcess>), (Phase, String)> {
        let config = &self.entry.config;
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
        let config = &self.entry.config;
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
        let transport = StreamableHttpClientTransport::with_client(client, transport_config);
        let timeout = self.timeout();
        match tokio::time::timeout(timeout, handler.serve(transport)).await {
            Ok(Ok(service)) => Ok(service),
            Ok(Err(error)) if error.is_authorization_required() => Err((
                Phase::NeedsAuth,
                format!(
                    "MCP server \"{}\" requires sign-in. Run /mcp to sign in.",
                    self.name()
                ),
            )),
            Ok(Err(error)) => Err(fail(initialize_error(&error))),
            Err(_) => Err(fail(format!(
                "MCP request timed out after {}ms",
                timeout.as_millis()
            ))),
        }
    }

    /// The live connection, connecting first if needed.
    async fn connection(self: &Arc<Self>) -> Result<Arc<Connection>, CallError> {
        if let Some(connection) = rho_stdx::sync::lock(&self.state).connection.clone() {
            return Ok(connection);
        }
        self.ensure_connected().await?;
        rho_stdx::sync::lock(&self.state)
            .connection
            .clone()
            .ok_or_else(|| format!("MCP server \"{}\" is still starting.", self.name()))
    }

    /// Calls `tool` with `arguments`; `progress` gets each progress notification's text. The
    /// timeout starts again at each progress notification; an abort or a timeout sends
    /// `notifications/cancelled`. The result as the server's JSON.
    pub async fn call_tool(
        self: &Arc<Self>,
        tool: &str,
        arguments: Map<String, Value>,
        cancel: &CancellationToken,
        progress: impl Fn(String),
    ) -> Result<Value, CallError> {
        let connection = self.connection().await?;
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(
            CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments),
        ));
        let handle = connection
            .peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await
            .map_err(|e| self.call_error(&e))?;
        let mut updates = connection
            .handler
            .progress
            .subscribe(handle.progress_token.clone())
            .await;
        let timeout = self.timeout();
        let idle = tokio::time::sleep(timeout);
        tokio::pin!(idle);
        let mut rx = handle.rx;
        let outcome = loop {
            tokio::select! {
                biased;
                response = &mut rx => break Ok(response),
                () = cancel.cancelled() => break Err(("AbortError: This operation was aborted", "MCP request aborted".to_owned())),
                () = &mut idle => break Err(("Request timed out", format!("MCP request timed out after {}ms", timeout.as_millis()))),
                Some(update) = updates.next() => {
                    idle.as_mut().reset(tokio::time::Instant::now() + timeout);
                    let text = update.message.clone().unwrap_or_else(|| match update.total {
                        Some(total) => format!("Progress {}/{}", rho_stdx::js::number_text(update.progress), rho_stdx::js::number_text(total)),
                        None => format!("Progress {}", rho_stdx::js::number_text(update.progress)),
                    });
                    progress(text);
                }
            }
        };
        match outcome {
            Ok(Ok(Ok(ServerResult::CallToolResult(result)))) => serde_json::to_value(result)
                .map(|mut value| {
                    restore_priorities(&mut value);
                    value
                })
                .map_err(|e| e.to_string()),
            Ok(Ok(Ok(ServerResult::CustomResult(CustomResult(value))))) => Ok(value),
            Ok(Ok(Ok(_))) => Err("Invalid MCP tools/call result".to_owned()),
            Ok(Ok(Err(error))) => Err(self.call_error(&error)),
            Ok(Err(_)) => Err(self.call_error(&ServiceError::TransportClosed)),
            Err((reason, message)) => {
                let notification = CancelledNotification::new(CancelledNotificationParam::new(
                    Some(handle.id),
                    Some(reason.to_owned()),
                ));
                let _ = handle.peer.send_notification(notification.into()).await;
                Err(message)
            }
        }
    }

    /// Reads a resource; the result as the server's JSON.
    pub async fn read_resource(self: &Arc<Self>, uri: &str) -> Result<Value, CallError> {
        let request = ClientRequest::ReadResourceRequest(ReadResourceRequest::new(
            ReadResourceRequestParams::new(uri.to_owned()),
        ));
        self.request_json(request).await.map_err(String::from)
    }

    /// One page of `resources/list` (`templates`: `resources/templates/list`), as JSON.
    pub async fn list_resources(
        self: &Arc<Self>,
        templates: bool,
        cursor: Option<String>,
    ) -> Result<Value, CallError> {
        let params = PaginatedRequestParams::default().with_cursor(cursor);
        let request = if templates {
            ClientRequest::ListResourceTemplatesRequest(ListResourceTemplatesRequest::with_param(
                params,
            ))
        } else {
            ClientRequest::ListResourcesRequest(ListResourcesRequest::with_param(params))
        };
        match self.request_json(request).await {
            // A server without templates answers "method not found": it has none.
            Err(RequestError::Server { code: -32601, .. }) if templates => {
                Ok(serde_json::json!({"resourceTemplates": []}))
            }
            other => other,
        }
        .map_err(String::from)
    }

    /// Sends `request` and gives the result as the server's JSON: typed results as rmcp reads
    /// them, and results rmcp's types do not fit (a resource without a name) as they came.
    async fn request_json(self: &Arc<Self>, request: ClientRequest) -> Result<Value, RequestError> {
        let connection = self.connection().await.map_err(RequestError::Other)?;
        let timeout = self.timeout();
        let timed_out = || {
            RequestError::Other(format!(
                "MCP request timed out after {}ms",
                timeout.as_millis()
            ))
        };
        let handle = connection
            .peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await
            .map_err(|e| RequestError::Other(self.call_error(&e)))?;
        let id = match &handle.id {
            rmcp::model::NumberOrString::Number(n) => Some(*n),
            rmcp::model::NumberOrString::String(_) => None,
        };
        let result = tokio::time::timeout(timeout, handle.await_response())
            .await
            .map_err(|_| timed_out())?;
        if result.is_ok()
            && let Some(raw) = id.and_then(|id| connection.raw.take(id))
        {
            return Ok(raw);
        }
        match result {
            Ok(ServerResult::CustomResult(CustomResult(value))) => Ok(value),
            Ok(ServerResult::EmptyResult(_)) => Ok(Value::Object(Map::new())),
            Ok(typed) => serde_json::to_value(typed)
                .map(|mut value| {
                    restore_priorities(&mut value);
                    value
                })
                .map_err(|e| RequestError::Other(e.to_string())),
            Err(ServiceError::McpError(error)) => Err(RequestError::Server {
                code: error.code.0,
                message: error.message.to_string(),
            }),
            Err(error) => Err(RequestError::Other(self.call_error(&error))),
        }
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

    /// The text of a failed request; a dropped connection marks the server disconnected.
    fn call_error(&self, error: &ServiceError) -> CallError {
        match error {
            ServiceError::McpError(error) => error.message.to_string(),
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
                if error.is_authorization_required() {
                    let message = format!(
                        "MCP server \"{}\" requires sign-in. Run /mcp to sign in.",
                        self.name()
                    );
                    self.update(|s| {
                        s.snapshot.phase = Phase::NeedsAuth;
                        s.snapshot.error = Some(message.clone());
                        s.connection = None;
                    });
                    return message;
                }
                self.update(|s| {
                    if s.snapshot.phase == Phase::Connected {
                        s.snapshot.phase = Phase::Disconnected;
                        s.snapshot.error = Some("Connection closed".to_owned());
                        s.connection = None;
                    }
                });
                "MCP connection closed".to_owned()
            }
            other => other.to_string(),
        }
    }

    /// Closes the connection and stops the process (stdin closed, SIGTERM, SIGKILL).
    pub async fn shutdown(&self) {
        let connection = {
            let mut state = rho_stdx::sync::lock(&self.state);
            state.snapshot.phase = Phase::Closed;
            state.connection.take()
        };
        self.changed.send_modify(|n| *n += 1);
        let Some(connection) = connection else {
            return;
        };
        if let Some(service) = connection.service.lock().await.take() {
            // Ends the service task, which drops the transport: the server's stdin closes.
            let _ = service.cancel().await;
        }
        if let Some(process) = &connection.process {
            process.stop().await;
        }
    }

    /// Where the session runs (for messages).
    pub fn cwd(&self) -> PathBuf {
        self.context.cwd.clone()
    }
}

/// rmcp keeps an annotation's `priority` as an `f32`: written back as the shortest decimal of
/// that `f32`, which is what the server sent (`0.7`, not `0.699999988079071`).
fn restore_priorities(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if let Some(Value::Object(annotations)) = map.get_mut("annotations")
                && let Some(priority) = annotations.get_mut("priority")
                && let Some(number) = priority.as_f64()
            {
                let shortest = (number as f32).to_string();
                if let Ok(parsed) = shortest.parse::<f64>()
                    && let Some(exact) = serde_json::Number::from_f64(parsed)
                {
                    *priority = Value::Number(exact);
                }
            }
            map.values_mut().for_each(restore_priorities);
        }
        Value::Array(items) => items.iter_mut().for_each(restore_priorities),
        _ => {}
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
fn with_tail(message: String, tail: &str) -> String {
    if tail.is_empty() {
        message
    } else {
        format!("{message}\n{tail}")
    }
}

/// A failed request's text.
fn error_text(error: &ServiceError) -> String {
    match error {
        ServiceError::McpError(error) => error.message.to_string(),
        ServiceError::TransportClosed => "MCP connection closed".to_owned(),
        other => other.to_string(),
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
