//! `rho acp` (also `rho --mode acp`): an Agent Client Protocol agent on stdin and stdout, on
//! the protocol's official crate. Editors (Zed, JetBrains, Neovim and Emacs clients) start it
//! and speak JSON-RPC 2.0; everything rho has to say besides goes to stderr.
//!
//! Each `session/new` builds a session exactly as the other modes do (`session_builder`:
//! settings, trust, the gate, hooks, MCP servers, the session file); `session/prompt` runs a
//! prompt on it while its events become `session/update` notifications (`updates.rs`); the
//! gate's and the hooks' questions become `session/request_permission` (`permission.rs`).

mod auth;
mod commands;
mod content;
mod listing;
mod open;
mod permission;
mod replay;
mod servers;
mod sessions;
mod updates;

use std::sync::Arc;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    AgentCapabilities, AuthenticateRequest, CancelNotification, DeleteSessionRequest,
    Implementation, InitializeRequest, InitializeResponse, ListSessionsRequest, LoadSessionRequest,
    LoadSessionResponse, McpCapabilities, NewSessionRequest, NewSessionResponse,
    PromptCapabilities, PromptRequest, SessionCapabilities, SessionDeleteCapabilities,
    SessionListCapabilities, SetSessionConfigOptionRequest, SetSessionConfigOptionResponse,
    SetSessionModeRequest, SetSessionModeResponse,
};
use agent_client_protocol::{Agent, Client, Error, ErrorCode, Stdio};
use anyhow::bail;

use self::sessions::{Sessions, modes};
use crate::cli::Cli;

/// Serves ACP until stdin ends (exit 0); every session is then ended and flushed.
pub async fn run(cli: &Cli) -> anyhow::Result<u8> {
    if !cli.messages.is_empty() {
        bail!("rho acp takes no messages: the client sends prompts");
    }
    if cli.resume || cli.continue_session || cli.session.is_some() {
        bail!(
            "rho acp opens sessions the client asks for; --resume, --continue and --session do not apply"
        );
    }
    let sessions = Arc::new(Sessions::new(cli.clone()));
    let served = serve(sessions.clone()).await;
    sessions.shut_down().await;
    match served {
        Ok(()) => Ok(0),
        Err(error) => {
            eprintln!("rho acp: the connection failed: {error}");
            Ok(1)
        }
    }
}

async fn serve(sessions: Arc<Sessions>) -> Result<(), Error> {
    let (for_new, for_load, for_mode) = (sessions.clone(), sessions.clone(), sessions.clone());
    let (for_prompt, for_option, for_delete) =
        (sessions.clone(), sessions.clone(), sessions.clone());
    let for_cancel = sessions;
    Agent
        .v1()
        .name("rho")
        .on_receive_request(
            async move |request: InitializeRequest, responder, _cx: ConnectionTo<Client>| {
                responder.respond(initialize(&request))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: AuthenticateRequest, responder, _cx: ConnectionTo<Client>| {
                responder.respond_with_result(auth::authenticate(&request))
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: NewSessionRequest, responder, cx: ConnectionTo<Client>| {
                let sessions = for_new.clone();
                // Building reads settings and files: beside the dispatch loop, which must stay
                // free to carry the client's answers.
                cx.clone().spawn(async move {
                    let created = match sessions.create(request, cx).await {
                        Ok((id, mode)) => {
                            let options = sessions.options_of(&id).await;
                            Ok(NewSessionResponse::new(id)
                                .modes(modes(mode))
                                .config_options(options))
                        }
                        Err(error) => Err(error),
                    };
                    responder.respond_with_result(created)
                })
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: LoadSessionRequest, responder, cx: ConnectionTo<Client>| {
                let sessions = for_load.clone();
                // The replayed updates go out before the answer (the connection keeps order).
                cx.clone().spawn(async move {
                    let loaded = sessions.load(request, cx).await;
                    responder.respond_with_result(
                        loaded.map(|mode| LoadSessionResponse::new().modes(modes(mode))),
                    )
                })
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: SetSessionModeRequest, responder, cx: ConnectionTo<Client>| {
                let sessions = for_mode.clone();
                cx.clone().spawn(async move {
                    let set = sessions.set_mode(request, cx).await;
                    responder.respond_with_result(set.map(|()| SetSessionModeResponse::new()))
                })
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: SetSessionConfigOptionRequest,
                        responder,
                        cx: ConnectionTo<Client>| {
                let sessions = for_option.clone();
                // A model switch may read keys: beside the dispatch loop.
                cx.spawn(async move {
                    let set = sessions.set_option(&request).await;
                    responder.respond_with_result(set.map(SetSessionConfigOptionResponse::new))
                })
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: ListSessionsRequest, responder, cx: ConnectionTo<Client>| {
                // Reading the session files: beside the dispatch loop.
                cx.spawn(async move { responder.respond_with_result(listing::list(request).await) })
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: DeleteSessionRequest, responder, cx: ConnectionTo<Client>| {
                if for_delete.is_open(&request.session_id) {
                    let open = Error::new(
                        ErrorCode::INVALID_PARAMS,
                        "the session is open in this connection",
                    );
                    return responder.respond_with_error(open);
                }
                cx.spawn(
                    async move { responder.respond_with_result(listing::delete(request).await) },
                )
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: PromptRequest, responder, cx: ConnectionTo<Client>| {
                let sessions = for_prompt.clone();
                // A prompt waits for the model and may ask the client for permissions: never
                // inside the dispatch loop.
                cx.spawn(async move {
                    let answered = sessions.prompt(request).await;
                    responder.respond_with_result(answered)
                })
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            async move |cancel: CancelNotification, _cx: ConnectionTo<Client>| {
                for_cancel.cancel(&cancel.session_id);
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_to(Stdio::new())
        .await
}

/// What rho offers: loading sessions, images and embedded resources in prompts, the client's
/// MCP servers over stdio and streamable HTTP (not the legacy SSE).
fn initialize(request: &InitializeRequest) -> InitializeResponse {
    let version = if request.protocol_version < ProtocolVersion::V1 {
        request.protocol_version
    } else {
        ProtocolVersion::V1
    };
    InitializeResponse::new(version)
        .agent_capabilities(
            AgentCapabilities::new()
                .load_session(true)
                .prompt_capabilities(PromptCapabilities::new().image(true).embedded_context(true))
                .mcp_capabilities(McpCapabilities::new().http(true))
                .session_capabilities(
                    SessionCapabilities::new()
                        .list(SessionListCapabilities::new())
                        .delete(SessionDeleteCapabilities::new()),
                ),
        )
        .auth_methods(auth::methods())
        .agent_info(Implementation::new("rho", env!("CARGO_PKG_VERSION")))
}
