//! Agent tools with fixed answers, for provider tests that run the real agent loop against a
//! [`MockServer`](crate::MockServer): the second request must carry these tools' results.

use async_trait::async_trait;
use rho_agent::{AgentTool, ToolError, ToolOutput, ToolUpdates};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

/// `lookup` ("Look a key up"): answers `<key>=42` for the `key` argument.
pub struct Lookup {
    /// The JSON schema the tool advertises; tests assert it in request bodies.
    pub schema: Value,
}

#[async_trait]
impl AgentTool for Lookup {
    fn name(&self) -> &str {
        "lookup"
    }
    fn description(&self) -> &str {
        "Look a key up"
    }
    fn parameters(&self) -> &Value {
        &self.schema
    }
    async fn execute(
        &self,
        _id: &str,
        args: Value,
        _cancel: CancellationToken,
        _updates: ToolUpdates,
    ) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(format!(
            "{}=42",
            args["key"].as_str().unwrap_or_default()
        )))
    }
}

/// `read_note` ("Read a note"): reads a note by `name`; the only note is `todo` ("buy milk"),
/// any other name is a tool error.
pub struct NoteTool {
    /// The JSON schema the tool advertises; tests assert it in request bodies.
    pub parameters: Value,
}

#[async_trait]
impl AgentTool for NoteTool {
    fn name(&self) -> &str {
        "read_note"
    }
    fn description(&self) -> &str {
        "Read a note"
    }
    fn parameters(&self) -> &Value {
        &self.parameters
    }
    async fn execute(
        &self,
        _tool_call_id: &str,
        args: Value,
        _cancel: CancellationToken,
        _updates: ToolUpdates,
    ) -> Result<ToolOutput, ToolError> {
        match args["name"].as_str() {
            Some("todo") => Ok(ToolOutput::text("buy milk")),
            other => Err(ToolError::new(format!("no note {other:?}"))),
        }
    }
}
