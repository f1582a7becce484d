//! `rho acp` (also `rho --mode acp`): an Agent Client Protocol agent on stdin and stdout, on
//! the protocol's official crate. Editors (Zed, JetBrains, Neovim and Emacs clients) start it
//! and speak JSON-RPC 2.0; everything rho has to say besides goes to stderr.
//!
//! Each `session/new` builds a session exactly as the other modes do (`session_builder`:
//! settings, trust, the gate, hooks, MCP servers, the session file); `session/prompt` runs a
//! prompt on it while its events become `session/update` notifications (`updates.rs`); the
//! gate's and the hooks' questions become `session/request_permission` (`permission.rs`).

mod content;
mod permission;
mod sessions;
mod updates;

use std::sync::Arc;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    AgentCapabilities, CancelNotification, Implementation, InitializeRequest, InitializeResponse,
    NewSessionRequest, NewSessionResponse, PromptCapabilities, PromptRequest,
};
use agent_client_protocol::{Agent, Client, Error, Stdio};
use anyhow::bail;

use self::sessions::Sessions;
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
    let (for_new, for_prompt, for_cancel) = (sessions.clone(), sessions.clone(), sessions);
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
            async move |request: NewSessionRequest, responder, cx: ConnectionTo<Client>| {
                let sessions = for_new.clone();
                // Building reads settings and files: beside the dispatch loop, which must stay
                // free to carry the client's answers.
                cx.clone().spawn(async move {
                    let created = sessions.create(request, cx).await;
                    responder.respond_with_result(created.map(NewSessionResponse::new))
                })
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

/// What rho offers: images and embedded resources in prompts. Sessions are not loaded, and
/// MCP servers the client names are not connected yet: both are said as not offered.
fn initialize(request: &InitializeRequest) -> InitializeResponse {
    let version = if request.protocol_version < ProtocolVersion::V1 {
        request.protocol_version
    } else {
        ProtocolVersion::V1
    };
    InitializeResponse::new(version)
        .agent_capabilities(
            AgentCapabilities::new()
                .prompt_capabilities(PromptCapabilities::new().image(true).embedded_context(true)),
        )
        .agent_info(Implementation::new("rho", env!("CARGO_PKG_VERSION")))
}
