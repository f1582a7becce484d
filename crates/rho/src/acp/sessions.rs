//! The sessions of one ACP connection, by id: each built as every mode builds one, its events
//! forwarded to the client as `session/update`, its prompts run beside the dispatch loop.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    NewSessionRequest, PromptRequest, PromptResponse, SessionId, StopReason,
};
use agent_client_protocol::{Client, Error, ErrorCode};
use rho_ai::StopReason as ModelStop;
use rho_host::{AgentSession, SettledReason};
use rho_stdx::sync::lock;

use super::content::prompt_of;
use super::permission::AcpApprover;
use super::updates::Forwarder;
use crate::cli::Cli;
use crate::session_builder::{self, Extras};
use crate::session_choice::choose_session;

/// One live session.
struct Live {
    session: AgentSession,
    mcp: Option<Arc<rho_host::mcp::McpHost>>,
}

/// The connection's sessions.
pub struct Sessions {
    /// The command line `rho acp` was started with: every session's flags.
    cli: Cli,
    live: Mutex<HashMap<String, Live>>,
}

fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::INVALID_PARAMS, message)
}

impl Sessions {
    pub fn new(cli: Cli) -> Sessions {
        Sessions {
            cli,
            live: Mutex::default(),
        }
    }

    fn session(&self, id: &SessionId) -> Result<AgentSession, Error> {
        lock(&self.live)
            .get(id.0.as_ref())
            .map(|live| live.session.clone())
            .ok_or_else(|| invalid(format!("no session {}", id.0)))
    }

    /// `session/new`: a new session in `cwd`, recorded where the other modes record it.
    pub async fn create(
        &self,
        request: NewSessionRequest,
        cx: ConnectionTo<Client>,
    ) -> Result<SessionId, Error> {
        if !request.mcp_servers.is_empty() {
            return Err(invalid(
                "rho acp does not connect MCP servers named by the client yet: add them to RHO_HOME/mcp.json or the project's .rho/mcp.json",
            ));
        }
        let cwd: PathBuf = request.cwd;
        if !cwd.is_absolute() || !cwd.is_dir() {
            return Err(invalid(format!(
                "cwd must be an absolute path to a directory, got {}",
                cwd.display()
            )));
        }
        let approver = Arc::new(AcpApprover::new(cx.clone()));
        let forwarder = Arc::new(Forwarder::new(cx, approver.clone()));
        let mut cli = self.cli.clone();
        let extras = Extras {
            approver: Some(approver.clone()),
            ..Extras::default()
        };
        // Settings, keys (a `!command` may run for seconds), the workspace and the file.
        let built = tokio::task::spawn_blocking(move || {
            let home = rho_models::rho_home(&rho_models::ProcessEnvironment);
            let target = choose_session(&cli, &cwd, home.as_deref())?;
            let chosen = session_builder::choose(&mut cli, &target, &cwd)?;
            session_builder::build_chosen(&cli, chosen, target, extras)
        })
        .await
        .map_err(|e| Error::internal_error().data(e.to_string()))?
        .map_err(|e| invalid(format!("{e:#}")))?;
        let id = SessionId::new(built.header.id.clone());
        approver.bind(id.clone());
        forwarder.bind(
            id.clone(),
            built.run_cwd.clone(),
            built.model.context_window,
        );
        let forward = forwarder.clone();
        built.session.subscribe(move |event| forward.forward(event));
        lock(&self.live).insert(
            built.header.id.clone(),
            Live {
                session: built.session,
                mcp: built.mcp,
            },
        );
        Ok(id)
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
        for Live { session, mcp } in live {
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
