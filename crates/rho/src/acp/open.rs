//! Opening a session for the client: the project's trust asked of the client when nothing has
//! decided it (Pi's question, as a permission request), then the session built as every mode
//! builds one, its events forwarded, and — for `session/load` — its transcript told again.

use std::path::PathBuf;
use std::sync::Arc;

use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{SessionId, SessionNotification, SessionUpdate};
use agent_client_protocol::{Client, Error, ErrorCode};
use rho_gate::PermissionMode;
use rho_host::AgentSession;

use super::permission::{AcpApprover, ask_trust};
use super::updates::Forwarder;
use crate::cli::Cli;
use crate::session_builder::{self, Extras};
use crate::session_choice::{SessionTarget, choose_session, opened};

/// Which session to open.
pub enum Opening {
    /// A new one (`session/new`).
    New,
    /// The one `cli.session` names, told again to the client (`session/load`).
    Load,
    /// This file (a live session's, detached), built again with other flags
    /// (`session/set_mode`).
    Rebuild(Box<rho_session::SessionFile>),
    /// This file (a live session's, detached), built again and told again (`session/load` of
    /// a session this connection has open).
    Reload(Box<rho_session::SessionFile>),
}

/// A session the client may use.
pub struct Opened {
    pub id: SessionId,
    pub session: AgentSession,
    pub mcp: Option<Arc<rho_host::mcp::McpHost>>,
    pub cwd: PathBuf,
    pub mode: PermissionMode,
    /// The MCP servers the client named.
    pub servers: Vec<(String, serde_json::Value)>,
    /// The connection it talks on.
    pub cx: ConnectionTo<Client>,
    /// Its provider, which a model switch adds a route to.
    pub router: Arc<crate::rpc::models::RoutedProvider>,
}

pub fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::INVALID_PARAMS, message)
}

/// A session that could not be built: `auth_required` when a key is missing (the client may
/// offer the sign-in methods of `initialize`), else invalid params; the message says why.
fn build_error(error: &anyhow::Error) -> Error {
    let message = format!("{error:#}");
    let no_key = error
        .chain()
        .any(|cause| cause.downcast_ref::<crate::model_choice::NoKey>().is_some());
    if no_key {
        Error::auth_required().data(message)
    } else {
        invalid(message)
    }
}

fn internal(error: impl std::fmt::Display) -> Error {
    Error::internal_error().data(error.to_string())
}

/// Opens the session `opening` names for `cli` in `cwd`.
pub async fn open(
    mut cli: Cli,
    cwd: PathBuf,
    cx: ConnectionTo<Client>,
    opening: Opening,
    servers: Vec<(String, serde_json::Value)>,
) -> Result<Opened, Error> {
    if !cwd.is_absolute() || !cwd.is_dir() {
        return Err(invalid(format!(
            "cwd must be an absolute path to a directory, got {}",
            cwd.display()
        )));
    }
    // Where the session is, its id (a new one's chosen now, so a trust question can name it),
    // and whether the project's trust is still to be asked.
    let load = matches!(opening, Opening::Load | Opening::Reload(_));
    let (target, undecided) = {
        let (cli, cwd) = (cli.clone(), cwd.clone());
        tokio::task::spawn_blocking(move || {
            let target = match opening {
                Opening::Rebuild(file) | Opening::Reload(file) => {
                    SessionTarget::Open(Box::new(opened(*file, cwd.clone())))
                }
                Opening::New | Opening::Load => {
                    let home = rho_models::rho_home(&rho_models::ProcessEnvironment);
                    match (choose_session(&cli, &cwd, home.as_deref())?, load) {
                        (SessionTarget::New { dir, .. }, false) => SessionTarget::New {
                            dir,
                            id: Some(uuid::Uuid::now_v7().to_string()),
                        },
                        (target @ SessionTarget::Ephemeral, false) => target,
                        (target @ SessionTarget::Open(_), true) => target,
                        _ => anyhow::bail!("no session {}", cli.session.unwrap_or_default()),
                    }
                }
            };
            let undecided = crate::project_trust::undecided(&cli, &cwd)?;
            anyhow::Ok((target, undecided))
        })
        .await
        .map_err(internal)?
        .map_err(|e| invalid(format!("{e:#}")))?
    };
    let id = SessionId::new(target_id(&target));
    if let Some(options) = undecided {
        let chosen = ask_trust(&cx, &id, &cwd, &options).await;
        let option = options
            .get(chosen.unwrap_or(usize::MAX))
            .or(options.last())
            .cloned();
        if let Some(option) = option {
            let at = cwd.clone();
            tokio::task::spawn_blocking(move || crate::project_trust::record_answer(&at, &option))
                .await
                .map_err(internal)?
                .map_err(|e| invalid(format!("{e:#}")))?;
        }
    }
    let approver = Arc::new(AcpApprover::new(cx.clone()));
    let forwarder = Arc::new(Forwarder::new(cx.clone(), approver.clone()));
    let extras = Extras {
        approver: Some(approver.clone()),
        mcp_servers: servers.clone(),
        ..Extras::default()
    };
    // Settings, keys (a `!command` may run for seconds), the workspace and the file.
    let at = cwd.clone();
    let (built, mode) = tokio::task::spawn_blocking(move || {
        let chosen = session_builder::choose(&mut cli, &target, &at)?;
        let mode = cli
            .permission
            .or(chosen.settings.permission)
            .unwrap_or_default();
        let built = session_builder::build_chosen(&cli, chosen, target, extras)?;
        anyhow::Ok((built, mode))
    })
    .await
    .map_err(internal)?
    .map_err(|e| build_error(&e))?;
    let id = SessionId::new(built.header.id.clone());
    if load {
        let messages = built.session.agent().with_state(|s| s.messages.clone());
        for update in super::replay::replay(&messages, &built.run_cwd) {
            let _ = cx.send_notification(SessionNotification::new(id.clone(), update));
        }
    }
    let commands =
        SessionUpdate::AvailableCommandsUpdate(super::commands::available(&built.resources));
    let _ = cx.send_notification(SessionNotification::new(id.clone(), commands));
    approver.bind(id.clone());
    forwarder.bind(
        id.clone(),
        built.run_cwd.clone(),
        built.model.context_window,
    );
    let forward = forwarder.clone();
    built.session.subscribe(move |event| forward.forward(event));
    let router = built.router.clone();
    Ok(Opened {
        router,
        id,
        session: built.session,
        mcp: built.mcp,
        cwd: built.run_cwd,
        mode,
        servers,
        cx,
    })
}

/// The id the session will have (an ephemeral one has none on disk: a fresh one).
fn target_id(target: &SessionTarget) -> String {
    match target {
        SessionTarget::New { id: Some(id), .. } => id.clone(),
        SessionTarget::Open(opened) => opened.file.header().id.clone(),
        _ => uuid::Uuid::now_v7().to_string(),
    }
}
