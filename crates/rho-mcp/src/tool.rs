//! An MCP server's tool as one of the session's tools: its name (`mcp__<server>__<tool>`), its
//! description and input schema as Pi 1.6 presents them, and a call that goes to the server,
//! with progress as `tool_execution_update` and the result converted as Pi converts it.

use std::sync::Arc;

use async_trait::async_trait;
use rho_agent::{AgentTool, ToolAnnotations, ToolError, ToolOutput, ToolUpdates};
use rho_ai::ContentBlock;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use crate::convert::{Conversion, OutputFiles, call_result};
use crate::exposure::Exposure;
use crate::server::Server;

/// One tool of one server.
pub struct McpTool {
    server: Arc<Server>,
    /// The server's name for it.
    mcp_name: String,
    /// The model's name for it.
    name: String,
    label: String,
    description: String,
    parameters: Value,
    annotations: ToolAnnotations,
    exposure: Exposure,
}

impl McpTool {
    /// The tool `tool` of `server`, named `name` for the model.
    pub fn new(
        server: Arc<Server>,
        tool: &rmcp::model::Tool,
        name: String,
        exposure: Exposure,
    ) -> McpTool {
        let mcp_name = tool.name.to_string();
        let title = tool
            .title
            .clone()
            .or_else(|| tool.annotations.as_ref().and_then(|a| a.title.clone()));
        let description = tool
            .description
            .as_deref()
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(str::to_owned)
            .or(title)
            .unwrap_or_else(|| format!("MCP tool {mcp_name} from server {}", server.name()));
        let annotations = tool
            .annotations
            .as_ref()
            .map(|a| ToolAnnotations {
                read_only_hint: a.read_only_hint,
                destructive_hint: a.destructive_hint,
                idempotent_hint: a.idempotent_hint,
                open_world_hint: a.open_world_hint,
            })
            .unwrap_or_default();
        McpTool {
            label: format!("{}/{mcp_name}", server.name()),
            parameters: normalize_schema(&tool.input_schema),
            server,
            mcp_name,
            name,
            description,
            annotations,
            exposure,
        }
    }

    /// Its exposure.
    pub fn exposure(&self) -> Exposure {
        self.exposure
    }

    /// Its server's name.
    pub fn server_name(&self) -> &str {
        self.server.name()
    }

    /// The server's name for it.
    pub fn mcp_name(&self) -> &str {
        &self.mcp_name
    }
}

/// Pi's `normalizeMcpInputSchema`: the schema as given, with `type: "object"` and then
/// `properties: {}` appended when missing.
fn normalize_schema(schema: &Map<String, Value>) -> Value {
    let mut normalized = schema.clone();
    if !normalized.contains_key("type") {
        normalized.insert("type".to_owned(), json!("object"));
    }
    if !normalized.contains_key("properties") {
        normalized.insert("properties".to_owned(), json!({}));
    }
    Value::Object(normalized)
}

#[async_trait]
impl AgentTool for McpTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn label(&self) -> &str {
        &self.label
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> &Value {
        &self.parameters
    }

    fn annotations(&self) -> ToolAnnotations {
        self.annotations
    }

    async fn execute(
        &self,
        _tool_call_id: &str,
        args: Value,
        cancel: CancellationToken,
        updates: ToolUpdates,
    ) -> Result<ToolOutput, ToolError> {
        let arguments = match args {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        let details = json!({"server": self.server.name(), "tool": self.mcp_name});
        let progress = |text: String| {
            updates.send(json!({"content": [ContentBlock::text(text)], "details": details}));
        };
        let result = self
            .server
            .call_tool(&self.mcp_name, arguments, &cancel, progress)
            .await
            .map_err(ToolError::new)?;
        let offers_resources = self.server.snapshot().has_resources;
        let server = self.server.name().to_owned();
        let tool = self.mcp_name.clone();
        // Saving a cut output or a blob writes a file: off the runtime.
        tokio::task::spawn_blocking(move || {
            let conversion = Conversion {
                server: &server,
                tool: &tool,
                offers_resources,
                saver: &OutputFiles,
            };
            call_result(result, &conversion)
        })
        .await
        .map_err(|e| ToolError::new(e.to_string()))?
        .map_err(ToolError::new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_schema_gets_type_and_properties_appended_after_its_own_keys() {
        let given: Map<String, Value> =
            serde_json::from_str(r#"{"properties":{"a":{"type":"string"}}}"#).unwrap_or_default();
        assert_eq!(
            serde_json::to_string(&normalize_schema(&given)).unwrap_or_default(),
            r#"{"properties":{"a":{"type":"string"}},"type":"object"}"#
        );
        let typed: Map<String, Value> =
            serde_json::from_str(r#"{"type":"object"}"#).unwrap_or_default();
        assert_eq!(
            serde_json::to_string(&normalize_schema(&typed)).unwrap_or_default(),
            r#"{"type":"object","properties":{}}"#
        );
    }
}
