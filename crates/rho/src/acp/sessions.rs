//! The sessions of one ACP connection, by id: opened (`open.rs`), prompted beside the
//! dispatch loop, cancelled, rebuilt in another permission mode, and ended with the connection.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    ContentChunk, CurrentModeUpdate, LoadSessionRequest, NewSessionRequest, PromptRequest,
    PromptResponse, SessionConfigOption, SessionConfigOptionCategory, SessionConfigOptionValue,
    SessionConfigSelectOption, SessionId, SessionMode, SessionModeId, SessionModeState,
    SessionNotification, SessionUpdate, SetSessionConfigOptionRequest, SetSessionModeRequest,
    StopReason,
};
use agent_client_protocol::{Client, Error};
use rho_ai::{StopReason as ModelStop, ThinkingLevel};
use rho_gate::PermissionMode;
use rho_host::{AgentSession, SettledReason};
use rho_stdx::sync::lock;

use super::commands::compact_request;
use super::content::prompt_of;
use super::open::{Opened, Opening, invalid, open};
use super::servers::client_servers;
use crate::cli::Cli;
use crate::rpc::models::{ModelCatalog, RoutedProvider};

/// One live session.
struct Live {
    session: AgentSession,
    mcp: Option<Arc<rho_host::mcp::McpHost>>,
    cwd: PathBuf,
    /// The MCP servers the client named for it.
    servers: Vec<(String, serde_json::Value)>,
    /// The connection it talks on.
    cx: ConnectionTo<Client>,
    /// Its provider, which a model switch adds a route to.
    router: Arc<RoutedProvider>,
}

/// The connection's sessions.
pub struct Sessions {
    /// The command line `rho acp` was started with: every session's flags.
    cli: Cli,
    live: Mutex<HashMap<String, Live>>,
    /// The models a session may switch to (none with `--faux-script`), read once.
    catalog: OnceLock<Option<Arc<ModelCatalog>>>,
}

/// The permission modes, as the session's modes.
pub fn modes(current: PermissionMode) -> SessionModeState {
    let described = [
        (
            PermissionMode::ReadOnly,
            "Read only",
            "Tools read; nothing is written.",
        ),
        (
            PermissionMode::WorkspaceWrite,
            "Workspace write",
            "Tools write inside the project; bash runs in rho's sandbox.",
        ),
        (
            PermissionMode::Full,
            "Full access",
            "No path checks and no sandbox, as Pi; command rules still apply.",
        ),
    ];
    let available = described
        .into_iter()
        .map(|(mode, name, description)| {
            SessionMode::new(mode.as_str(), name).description(description.to_owned())
        })
        .collect();
    SessionModeState::new(current.as_str(), available)
}

/// The session's options: its model (among the catalog's models that have a key) and, when
/// the model reasons, its thinking level.
pub fn config_options(
    session: &AgentSession,
    catalog: Option<&ModelCatalog>,
) -> Vec<SessionConfigOption> {
    let (model, level) = session
        .agent()
        .with_state(|s| (s.model.clone(), s.thinking_level));
    let current = format!("{}/{}", model.provider, model.id);
    let mut models: Vec<SessionConfigSelectOption> = catalog
        .map(ModelCatalog::available)
        .unwrap_or_default()
        .iter()
        .map(|entry| {
            let value = format!("{}/{}", entry.model.provider, entry.model.id);
            SessionConfigSelectOption::new(value, entry.model.name.clone())
        })
        .collect();
    if !models
        .iter()
        .any(|option| option.value.0.as_ref() == current)
    {
        models.insert(
            0,
            SessionConfigSelectOption::new(current.clone(), model.name.clone()),
        );
    }
    let mut options = vec![
        SessionConfigOption::select("model", "Model", current, models)
            .category(SessionConfigOptionCategory::Model),
    ];
    if model.reasoning {
        let levels: Vec<SessionConfigSelectOption> = ThinkingLevel::ALL
            .into_iter()
            .map(|level| SessionConfigSelectOption::new(level.as_str(), level.as_str()))
            .collect();
        options.push(
            SessionConfigOption::select("thinking", "Thinking", level.as_str(), levels)
                .category(SessionConfigOptionCategory::ThoughtLevel),
        );
    }
    options
}

impl Sessions {
    pub fn new(cli: Cli) -> Sessions {
        Sessions {
            cli,
            live: Mutex::default(),
            catalog: OnceLock::new(),
        }
    }

    fn session(&self, id: &SessionId) -> Result<AgentSession, Error> {
        lock(&self.live)
            .get(id.0.as_ref())
            .map(|live| live.session.clone())
            .ok_or_else(|| invalid(format!("no session {}", id.0)))
    }

    fn keep(&self, opened: Opened) -> (SessionId, PermissionMode) {
        lock(&self.live).insert(
            opened.id.0.to_string(),
            Live {
                session: opened.session,
                mcp: opened.mcp,
                cwd: opened.cwd,
                servers: opened.servers,
                cx: opened.cx,
                router: opened.router,
            },
        );
        (opened.id, opened.mode)
    }

    /// `session/new`: a new session in `cwd`, recorded where the other modes record it.
    pub async fn create(
        &self,
        request: NewSessionRequest,
        cx: ConnectionTo<Client>,
    ) -> Result<(SessionId, PermissionMode), Error> {
        let servers = client_servers(&request.mcp_servers)?;
        let opened = open(self.cli.clone(), request.cwd, cx, Opening::New, servers).await?;
        Ok(self.keep(opened))
    }

    /// `session/load`: the session with this id (as `--session <id>` finds it), its
    /// transcript sent again as updates before the answer.
    pub async fn load(
        &self,
        request: LoadSessionRequest,
        cx: ConnectionTo<Client>,
    ) -> Result<PermissionMode, Error> {
        let servers = client_servers(&request.mcp_servers)?;
        let open_here = lock(&self.live).remove(request.session_id.0.as_ref());
        let opening = match open_here {
            // Open in this connection: its run stopped, its file taken over and told again.
            Some(live) => Opening::Reload(Box::new(self.close(live).await?)),
            None => Opening::Load,
        };
        let mut cli = self.cli.clone();
        cli.session = Some(request.session_id.0.to_string());
        let opened = open(cli, request.cwd, cx, opening, servers).await?;
        if opened.id != request.session_id {
            let found = opened.id.0.to_string();
            self.keep(opened);
            return Err(invalid(format!(
                "session {} was found as {found}",
                request.session_id.0
            )));
        }
        Ok(self.keep(opened).1)
    }

    /// `session/set_mode`: the session built again on its file with the gate of that mode.
    pub async fn set_mode(
        &self,
        request: SetSessionModeRequest,
        cx: ConnectionTo<Client>,
    ) -> Result<(), Error> {
        let mode: PermissionMode = request.mode_id.0.parse().map_err(|_| {
            invalid(format!(
                "no mode {}: the modes are {}",
                request.mode_id.0,
                PermissionMode::NAMES.join(", ")
            ))
        })?;
        let id = request.session_id.0.to_string();
        let Some(old) = lock(&self.live).remove(&id) else {
            return Err(invalid(format!("no session {id}")));
        };
        let (cwd, servers) = (old.cwd.clone(), old.servers.clone());
        let file = self.close(old).await?;
        let mut cli = self.cli.clone();
        cli.permission = Some(mode);
        let rebuilt = Opening::Rebuild(Box::new(file));
        let opened = open(cli, cwd, cx.clone(), rebuilt, servers).await?;
        let (id, _) = self.keep(opened);
        let update = SessionUpdate::CurrentModeUpdate(CurrentModeUpdate::new(SessionModeId::new(
            mode.as_str(),
        )));
        let _ = cx.send_notification(SessionNotification::new(id, update));
        Ok(())
    }

    /// The models a session may switch to: the registry's that have a key (read once, off the
    /// runtime); none with `--faux-script`.
    async fn catalog(&self) -> Option<Arc<ModelCatalog>> {
        if let Some(catalog) = self.catalog.get() {
            return catalog.clone();
        }
        let faux = self.cli.faux_script.is_some();
        let read = tokio::task::spawn_blocking(move || {
            (!faux).then(|| {
                let (registry, auth) = crate::model_choice::load_registry();
                Arc::new(ModelCatalog::registry(registry, auth))
            })
        })
        .await
        .ok()
        .flatten();
        self.catalog.get_or_init(|| read).clone()
    }

    /// The session's options ([`config_options`]).
    pub async fn options_of(&self, id: &SessionId) -> Vec<SessionConfigOption> {
        let catalog = self.catalog().await;
        self.session(id)
            .map(|session| config_options(&session, catalog.as_deref()))
            .unwrap_or_default()
    }

    /// `session/set_config_option`: the model (recorded as a `model_change`) or the thinking
    /// level (a `thinking_level_change`); the options as they now are.
    pub async fn set_option(
        &self,
        request: &SetSessionConfigOptionRequest,
    ) -> Result<Vec<SessionConfigOption>, Error> {
        let session = self.session(&request.session_id)?;
        let catalog = self.catalog().await;
        let value = match &request.value {
            SessionConfigOptionValue::ValueId { value } => value.0.to_string(),
            _ => return Err(invalid("the options of a session are chosen by value")),
        };
        let unsaved = |e: rho_session::SessionError| Error::internal_error().data(e.to_string());
        match request.config_id.0.as_ref() {
            "model" => {
                let (provider, id) = value
                    .split_once('/')
                    .ok_or_else(|| invalid(format!("not a provider/model: {value}")))?;
                let switchable = catalog.as_deref().ok_or_else(|| {
                    invalid("this session's model cannot be switched (--faux-script)")
                })?;
                let (entry, route) = switchable
                    .resolve(provider, id)
                    .map_err(|e| invalid(e.to_string()))?;
                let router = lock(&self.live)
                    .get(request.session_id.0.as_ref())
                    .map(|live| live.router.clone())
                    .ok_or_else(|| invalid(format!("no session {}", request.session_id.0)))?;
                router.add_route(&entry.model, route);
                session.agent().update_state(|s| {
                    s.model = entry.model.clone();
                    if !entry.model.reasoning {
                        s.thinking_level = ThinkingLevel::Off;
                    }
                });
                session
                    .record()
                    .record_model_change(&entry.model.provider, &entry.model.id)
                    .map_err(unsaved)?;
            }
            "thinking" if session.agent().with_state(|s| s.model.reasoning) => {
                let level = ThinkingLevel::parse(&value).ok_or_else(|| {
                    invalid(
                        "the thinking level is one of off, minimal, low, medium, high, xhigh, max",
                    )
                })?;
                session.agent().update_state(|s| s.thinking_level = level);
                session
                    .record()
                    .record_thinking_level(level)
                    .map_err(unsaved)?;
            }
            other => return Err(invalid(format!("no option {other} in this session"))),
        }
        Ok(config_options(&session, catalog.as_deref()))
    }

    /// `session/prompt`: runs the prompt to its end; the stop reason says how it ended.
    pub async fn prompt(&self, request: PromptRequest) -> Result<PromptResponse, Error> {
        let session = self.session(&request.session_id)?;
        let (text, images) = prompt_of(&request.prompt);
        if session.is_busy() {
            return Err(invalid(
                "a prompt is already running in this session: wait for its answer or cancel it",
            ));
        }
        if let Some(instructions) = compact_request(&text) {
            let said = match session.compact(instructions).await {
                Ok(result) => format!(
                    "Compacted: {} tokens before, about {} after.",
                    result.tokens_before, result.estimated_tokens_after
                ),
                Err(error) => format!("Not compacted: {error}"),
            };
            self.say(&request.session_id, said);
            return Ok(PromptResponse::new(StopReason::EndTurn));
        }
        let settled = session
            .prompt_with_images(&text, images)
            .await
            .map_err(|e| invalid(e.to_string()))?;
        let last = session.agent().with_state(|s| {
            s.messages
                .iter()
                .rev()
                .find_map(|m| m.as_assistant().cloned())
        });
        let stop = match settled.reason {
            SettledReason::Completed => match last.map(|m| m.stop_reason) {
                Some(ModelStop::Length) => StopReason::MaxTokens,
                _ => StopReason::EndTurn,
            },
            SettledReason::Budget => StopReason::MaxTurnRequests,
            SettledReason::Aborted => StopReason::Cancelled,
            SettledReason::Hook => StopReason::Refusal,
            SettledReason::Error => {
                let message = last
                    .and_then(|m| m.error_message.clone())
                    .unwrap_or_else(|| "the model call failed".to_owned());
                return Err(Error::internal_error().data(message));
            }
        };
        Ok(PromptResponse::new(stop))
    }

    /// Stops `live`'s run and servers and takes its file back, to be opened again.
    async fn close(&self, live: Live) -> Result<rho_session::SessionFile, Error> {
        live.session.abort().await;
        live.session.record().flush().await;
        let file = live.session.record().detach();
        if let Some(mcp) = live.mcp {
            mcp.shutdown().await;
        }
        file.ok_or_else(|| invalid("the session has no file to go on with"))
    }

    /// A message of rho's own to the client, as the agent's.
    fn say(&self, id: &SessionId, text: String) {
        let cx = lock(&self.live)
            .get(id.0.as_ref())
            .map(|live| live.cx.clone());
        if let Some(cx) = cx {
            let chunk = ContentChunk::new(text.into());
            let update = SessionUpdate::AgentMessageChunk(chunk);
            let _ = cx.send_notification(SessionNotification::new(id.clone(), update));
        }
    }

    /// Whether the session is open in this connection.
    pub fn is_open(&self, id: &SessionId) -> bool {
        lock(&self.live).contains_key(id.0.as_ref())
    }

    /// `session/cancel`: the running prompt is aborted; it answers `cancelled`.
    pub fn cancel(&self, id: &SessionId) {
        if let Ok(session) = self.session(id) {
            session.abort_now();
        }
    }

    /// At the end of the connection: every run stopped, `SessionEnd` run, files flushed, MCP
    /// servers stopped.
    pub async fn shut_down(&self) {
        let live: Vec<Live> = lock(&self.live).drain().map(|(_, live)| live).collect();
        rho_models::kill_running_commands();
        for Live { session, mcp, .. } in live {
            session.abort().await;
            session.end("exit").await;
            session.record().flush().await;
            for error in session.record().take_errors() {
                eprintln!("rho acp: the session was not fully saved: {error}");
            }
            if let Some(mcp) = mcp {
                mcp.shutdown().await;
            }
        }
    }
}
