//! What rho answers a server (rmcp's `ClientHandler`): its identity and capabilities (roots,
//! elicitation forms), `roots/list` with the session's directory, progress notifications
//! fanned out to the calls waiting for them, logging notifications to `mcp.log`,
//! `tools/list_changed` passed on, and elicitation requests handed to the user.
//!
//! rmcp marks roots and logging deprecated: a draft of the protocol drops them, but the servers
//! of today use both.
#![allow(deprecated)]

use std::sync::Arc;

use rmcp::handler::client::progress::ProgressDispatcher;
use rmcp::model::{
    ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
    ElicitationCapability, FormElicitationCapability, Implementation, ListRootsResult,
    LoggingMessageNotificationParam, ProgressNotificationParam, ProtocolVersion, Root,
    RootsCapabilities,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ClientHandler, ErrorData, RoleClient};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::elicit::{Elicitation, ElicitationAnswer, Elicitor};
use crate::log::McpLog;

/// Something a server said that the manager acts on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ServerSignal {
    /// `notifications/tools/list_changed` from this server.
    ToolsChanged(String),
}

/// One server's handler.
#[derive(Clone)]
pub struct Handler {
    server: String,
    /// `file://` URL of the session's directory, and its name.
    root: (String, String),
    pub(crate) progress: ProgressDispatcher,
    signals: mpsc::UnboundedSender<ServerSignal>,
    log: Arc<McpLog>,
    elicitor: Arc<dyn Elicitor>,
}

impl Handler {
    /// A handler for `server`, in a session at `cwd`.
    pub fn new(
        server: &str,
        cwd: &std::path::Path,
        signals: mpsc::UnboundedSender<ServerSignal>,
        log: Arc<McpLog>,
        elicitor: Arc<dyn Elicitor>,
    ) -> Handler {
        let uri = url::Url::from_file_path(cwd)
            .map(String::from)
            .unwrap_or_else(|()| format!("file://{}", cwd.display()));
        let name = cwd
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        Handler {
            server: server.to_owned(),
            root: (uri, name),
            progress: ProgressDispatcher::new(),
            signals,
            log,
            elicitor,
        }
    }
}

/// rho's version, as servers see it.
const VERSION: &str = env!("CARGO_PKG_VERSION");

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        // `ClientCapabilities` is non-exhaustive and its builder needs rmcp's server features.
        let mut capabilities = ClientCapabilities::default();
        capabilities.roots = Some(RootsCapabilities::default());
        capabilities.elicitation =
            Some(ElicitationCapability::new().with_form(FormElicitationCapability::new()));
        ClientConfig::new(capabilities, Implementation::new("rho", VERSION))
            // rmcp's newest version is a draft the servers of today refuse; Pi speaks this one.
            .with_protocol_version(ProtocolVersion::V_2025_11_25)
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        let (uri, name) = &self.root;
        Ok(ListRootsResult::new(vec![
            Root::new(uri.clone()).with_name(name.clone()),
        ]))
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.handle_notification(params).await;
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let level = serde_json::to_value(params.level)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_else(|| "info".to_owned());
        let text = match &params.data {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        };
        let line = McpLog::format_line(&self.server, &level, params.logger.as_deref(), &text);
        let log = self.log.clone();
        // An append to a file: off the runtime.
        tokio::task::spawn_blocking(move || log.append(&line));
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self
            .signals
            .send(ServerSignal::ToolsChanged(self.server.clone()));
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let (message, schema) = match request {
            ElicitRequestParams::FormElicitationParams {
                message,
                requested_schema,
                ..
            } => (
                message,
                serde_json::to_value(&requested_schema).unwrap_or(Value::Null),
            ),
            // A URL to open in a browser: rho has no way to show one yet.
            _ => return Ok(ElicitResult::new(ElicitationAction::Decline)),
        };
        let question = Elicitation {
            server: self.server.clone(),
            message,
            schema,
        };
        let answer = tokio::select! {
            answer = self.elicitor.elicit(question) => answer,
            () = context.ct.cancelled() => ElicitationAnswer::Cancel,
        };
        Ok(match answer {
            ElicitationAnswer::Accept(content) => {
                ElicitResult::new(ElicitationAction::Accept).with_content(content)
            }
            ElicitationAnswer::Decline => ElicitResult::new(ElicitationAction::Decline),
            ElicitationAnswer::Cancel => ElicitResult::new(ElicitationAction::Cancel),
        })
    }
}
