//! `tool_search` (Pi 1.6's built-in tool discovery): searches the deferred tools (an MCP
//! server's `deferred` or `codemode` tools) with BM25 and loads the matches, which the model
//! gets from its next call on — declared in a `system` message, so they stay declared when the
//! session is resumed.

mod rank;

use std::sync::Arc;

use async_trait::async_trait;
use rho_agent::{AgentTool, ToolError, ToolOutput, ToolUpdates};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use self::rank::{Document, rank};
use crate::tool_set::ToolSet;

/// The tool's name.
pub const NAME: &str = "tool_search";

/// Its line in the system prompt's `<tools>`.
pub const SNIPPET: &str = "Search for tools that are not loaded yet and load the matches";

/// Pi 1.6's description, verbatim.
const DESCRIPTION: &str = "# Tool discovery\n\nSearches over deferred tool metadata with BM25 and exposes matching tools for the next model call.\n\nSome of the tools, such as tools of MCP servers, may not have been provided to you upfront, and you should use this tool (`tool_search`) to search for the required tools. For MCP tool discovery, always use `tool_search`.";

/// How many tools a search loads unless it says.
const DEFAULT_LIMIT: u64 = 8;

/// What a search waits for before it looks: tools still being registered (MCP servers still
/// connecting).
#[async_trait]
pub trait Registration: Send + Sync {
    /// Resolves once every pending registration has settled.
    async fn settled(&self);
}

/// The tool.
pub struct ToolSearch {
    tools: Arc<ToolSet>,
    registration: Option<Arc<dyn Registration>>,
    schema: Value,
}

impl ToolSearch {
    /// A search over `tools`' deferred tools, waiting for `registration` first.
    pub fn new(tools: Arc<ToolSet>, registration: Option<Arc<dyn Registration>>) -> ToolSearch {
        ToolSearch {
            tools,
            registration,
            schema: json!({
                "type": "object",
                "required": ["query"],
                "properties": {
                    "query": {"type": "string", "description": "Search query for deferred tools."},
                    "limit": {"type": "number", "description": "Maximum number of tools to return. Defaults to 8."}
                }
            }),
        }
    }
}

#[async_trait]
impl AgentTool for ToolSearch {
    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> &str {
        DESCRIPTION
    }

    fn parameters(&self) -> &Value {
        &self.schema
    }

    async fn execute(
        &self,
        _tool_call_id: &str,
        args: Value,
        cancel: CancellationToken,
        _updates: ToolUpdates,
    ) -> Result<ToolOutput, ToolError> {
        let query = args.get("query").and_then(Value::as_str).unwrap_or("");
        if query.trim().is_empty() {
            return Err(ToolError::new("query must not be empty"));
        }
        let limit = match args.get("limit") {
            None | Some(Value::Null) => DEFAULT_LIMIT,
            Some(value) => value
                .as_f64()
                .filter(|n| *n >= 1.0 && n.fract() == 0.0)
                .map(|n| n as u64)
                .ok_or_else(|| ToolError::new("limit must be a positive integer"))?,
        };
        if let Some(registration) = &self.registration {
            tokio::select! {
                () = registration.settled() => {}
                () = cancel.cancelled() => return Err(ToolError::new("Operation aborted")),
            }
        }
        let loadable = self.tools.loadable();
        let documents: Vec<Document<'_>> = loadable
            .iter()
            .map(|entry| Document {
                name: entry.tool.name(),
                description: entry.tool.description(),
                parameters: entry.tool.parameters(),
                namespace: entry
                    .namespace
                    .as_ref()
                    .map(|ns| {
                        [
                            ns.name.as_str(),
                            ns.description.as_deref().unwrap_or(""),
                            ns.instructions.as_deref().unwrap_or(""),
                        ]
                        .join(" ")
                    })
                    .unwrap_or_default(),
            })
            .collect();
        let found = rank(
            &documents,
            query,
            usize::try_from(limit).unwrap_or(usize::MAX),
        );
        if found.is_empty() {
            return Ok(ToolOutput {
                details: Some(json!({"loaded": []})),
                ..ToolOutput::text("No matching tools found.")
            });
        }
        let names: Vec<String> = found
            .iter()
            .map(|&i| loadable[i].tool.name().to_owned())
            .collect();
        self.tools.activate(&names);
        let lines: Vec<String> = found
            .iter()
            .map(|&i| {
                let tool = &loadable[i].tool;
                let first = tool.description().trim().lines().next().unwrap_or("");
                format!("- {}: {first}", tool.name())
            })
            .collect();
        let count = names.len();
        let text = format!(
            "Loaded {count} tool{}. They are available from your next call:\n{}",
            if count == 1 { "" } else { "s" },
            lines.join("\n")
        );
        Ok(ToolOutput {
            details: Some(json!({"loaded": names})),
            ..ToolOutput::text(text)
        })
    }
}
