//! Requests on a live connection: tool calls with progress, timeout and cancellation,
//! resource listings and reads, and what a failed request says.

use std::sync::Arc;

use futures::StreamExt;
use rmcp::ServiceError;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotification, CancelledNotificationParam,
    ClientRequest, CustomResult, ListResourceTemplatesRequest, ListResourcesRequest,
    PaginatedRequestParams, ReadResourceRequest, ReadResourceRequestParams, ServerResult,
};
use rmcp::service::PeerRequestOptions;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::{CallError, Connection, Phase, RequestError, Server};

impl Server {
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
    /// `notifications/cancelled`; a tool list the server changed meanwhile is listed again
    /// before the call returns. The result as the server's JSON.
    pub async fn call_tool(
        self: &Arc<Self>,
        tool: &str,
        arguments: Map<String, Value>,
        cancel: &CancellationToken,
        progress: impl Fn(String),
    ) -> Result<Value, CallError> {
        let connection = self.connection().await?;
        let tools_changed = connection.raw.tools_changed();
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
        if connection.raw.tools_changed() != tools_changed {
            // The server changed its tools during the call: the next turn must see them.
            self.refresh_tools().await;
        }
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

    /// The text of a failed request; a dropped connection marks the server disconnected.
    fn call_error(&self, error: &ServiceError) -> CallError {
        match error {
            ServiceError::McpError(error) => error.message.to_string(),
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
                if error.is_authorization_required() || error.auth_challenge().is_some() {
                    let (_, message) = self.needs_sign_in(error.auth_challenge());
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

/// A failed request's text.
pub(super) fn error_text(error: &ServiceError) -> String {
    match error {
        ServiceError::McpError(error) => error.message.to_string(),
        ServiceError::TransportClosed => "MCP connection closed".to_owned(),
        other => other.to_string(),
    }
}
