//! The resource tools (Pi 1.6): `list_mcp_resources`, `list_mcp_resource_templates` and
//! `read_mcp_resource`, registered once a connected server offers resources, with the exposure
//! of the first such server that is direct, codemode or deferred (in that order).

use std::sync::{Arc, Weak};

use async_trait::async_trait;
use rho_agent::{AgentTool, ToolAnnotations, ToolError, ToolOutput, ToolUpdates};
use rho_ai::ContentBlock;
use rho_mcp::convert::{Conversion, OutputFiles, details, limit, resource_content};
use rho_mcp::{Exposure, Phase, Server};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::McpHost;
use crate::tool_set::{ToolExposure, ToolSet};

/// The three tools' names.
const LIST: &str = "list_mcp_resources";
const TEMPLATES: &str = "list_mcp_resource_templates";
const READ: &str = "read_mcp_resource";

/// Pages followed at most when listing every server.
const MAX_PAGES: usize = 1000;

/// Registers (or hides) the resource tools for the servers that offer resources now.
pub(super) fn sync(host: &Arc<McpHost>, sets: &[Arc<ToolSet>]) {
    let offering: Vec<&Arc<Server>> = offering(host);
    let exposures: Vec<Exposure> = offering
        .iter()
        .map(|s| s.entry().config.exposure())
        .collect();
    let exposure = [Exposure::Direct, Exposure::Codemode, Exposure::Deferred]
        .into_iter()
        .find(|e| exposures.contains(e));
    for kind in [Kind::List, Kind::Templates, Kind::Read] {
        let name = kind.name();
        let hide = || {
            for set in sets {
                if set.get(name).is_some() {
                    set.hide(name);
                }
            }
        };
        let Some(exposure) = exposure else {
            hide();
            continue;
        };
        let Some((registered, active)) = host.filter.decide(name, exposure) else {
            hide();
            continue;
        };
        let tool = ResourceTool {
            kind,
            host: Arc::downgrade(host),
            schema: kind.schema(),
        };
        let active = active && registered == ToolExposure::Direct;
        let tool: Arc<dyn AgentTool> = Arc::new(tool);
        for set in sets {
            set.register(tool.clone(), registered, active, None);
        }
    }
}

/// Enabled, connected servers offering resources whose exposure is not hidden.
fn offering(host: &McpHost) -> Vec<&Arc<Server>> {
    host.servers
        .iter()
        .filter(|s| s.entry().config.enabled() && s.entry().config.exposure() != Exposure::Hidden)
        .filter(|s| {
            let snapshot = s.snapshot();
            snapshot.phase == Phase::Connected && snapshot.has_resources
        })
        .collect()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    List,
    Templates,
    Read,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::List => LIST,
            Kind::Templates => TEMPLATES,
            Kind::Read => READ,
        }
    }

    fn description(self) -> &'static str {
        match self {
            Kind::List => {
                "Lists resources provided by MCP servers. Resources allow servers to share data that provides context to language models, such as files, database schemas, or application-specific information. Prefer resources over web search when possible."
            }
            Kind::Templates => {
                "Lists resource templates provided by MCP servers. Parameterized resource templates allow servers to share data that takes parameters and provides context to language models, such as files, database schemas, or application-specific information. Prefer resource templates over web search when possible."
            }
            Kind::Read => {
                "Read a specific resource from an MCP server given the server name and resource URI."
            }
        }
    }

    fn schema(self) -> Value {
        match self {
            Kind::List | Kind::Templates => json!({
                "type": "object",
                "properties": {
                    "server": {"type": "string", "description": "MCP server name. Omit to list every server with resources."},
                    "cursor": {"type": "string", "description": "Opaque cursor from a previous call with the same server; omit for the first page."}
                },
                "additionalProperties": false
            }),
            Kind::Read => json!({
                "type": "object",
                "properties": {
                    "server": {"type": "string", "description": "MCP server name exactly as configured. Must match the 'server' field returned by list_mcp_resources."},
                    "uri": {"type": "string", "description": "Resource URI to read. Must be one of the URIs returned by list_mcp_resources."}
                },
                "required": ["server", "uri"],
                "additionalProperties": false
            }),
        }
    }

    /// The key of a listing's items.
    fn items_key(self) -> &'static str {
        match self {
            Kind::Templates => "resourceTemplates",
            Kind::List | Kind::Read => "resources",
        }
    }
}

struct ResourceTool {
    kind: Kind,
    host: Weak<McpHost>,
    schema: Value,
}

/// A string argument, trimmed; absent, null and empty are `None`.
fn argument(args: &Value, key: &str) -> Result<Option<String>, ToolError> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => {
            let text = text.trim();
            Ok((!text.is_empty()).then(|| text.to_owned()))
        }
        Some(_) => Err(ToolError::new(format!("{key} must be a string"))),
    }
}

#[async_trait]
impl AgentTool for ResourceTool {
    fn name(&self) -> &str {
        self.kind.name()
    }

    fn description(&self) -> &str {
        self.kind.description()
    }

    fn parameters(&self) -> &Value {
        &self.schema
    }

    fn annotations(&self) -> ToolAnnotations {
        ToolAnnotations {
            read_only_hint: Some(true),
            ..ToolAnnotations::default()
        }
    }

    async fn execute(
        &self,
        _tool_call_id: &str,
        args: Value,
        _cancel: CancellationToken,
        _updates: ToolUpdates,
    ) -> Result<ToolOutput, ToolError> {
        let host = self
            .host
            .upgrade()
            .ok_or_else(|| ToolError::new("MCP is shut down"))?;
        host.settled().await;
        let server = argument(&args, "server")?;
        match self.kind {
            Kind::Read => read(&host, server, argument(&args, "uri")?).await,
            kind => list(&host, kind, server, argument(&args, "cursor")?).await,
        }
    }
}

/// The server named `name` among those offering resources.
fn resource_server<'a>(host: &'a McpHost, name: &str) -> Result<&'a Arc<Server>, ToolError> {
    let offering = offering(host);
    offering
        .iter()
        .find(|s| s.name() == name)
        .copied()
        .ok_or_else(|| {
            let names: Vec<&str> = offering.iter().map(|s| s.name()).collect();
            let known = if names.is_empty() {
                String::new()
            } else {
                format!(". Servers with resources: {}", names.join(", "))
            };
            ToolError::new(format!("MCP server \"{name}\" has no resources{known}"))
        })
}

async fn list(
    host: &McpHost,
    kind: Kind,
    server: Option<String>,
    cursor: Option<String>,
) -> Result<ToolOutput, ToolError> {
    let templates = kind == Kind::Templates;
    let key = kind.items_key();
    let mut payload = Map::new();
    match &server {
        Some(name) => {
            let found = resource_server(host, name)?;
            let page = found
                .list_resources(templates, cursor)
                .await
                .map_err(ToolError::new)?;
            payload.insert("server".to_owned(), json!(name));
            payload.insert(key.to_owned(), Value::Array(items(name, &page, key)));
            if let Some(next) = page.get("nextCursor").filter(|c| !c.is_null()) {
                payload.insert("nextCursor".to_owned(), next.clone());
            }
        }
        None => {
            if cursor.is_some() {
                return Err(ToolError::new(
                    "cursor can only be used when a server is specified",
                ));
            }
            let mut servers = offering(host);
            servers.sort_by(|a, b| a.name().cmp(b.name()));
            let mut all = Vec::new();
            let mut errors = Vec::new();
            for found in servers {
                match every_page(found, templates, key).await {
                    Ok(mut listed) => all.append(&mut listed),
                    Err(error) => errors.push(json!({"server": found.name(), "error": error})),
                }
            }
            payload.insert(key.to_owned(), Value::Array(all));
            if !errors.is_empty() {
                payload.insert("errors".to_owned(), Value::Array(errors));
            }
        }
    }
    let payload = Value::Object(payload);
    let text = serde_json::to_string(&payload).unwrap_or_default();
    output(
        server.as_deref().unwrap_or(""),
        kind.name(),
        vec![ContentBlock::text(text)],
        payload,
    )
    .await
}

/// Every page of one server's listing.
async fn every_page(
    server: &Arc<Server>,
    templates: bool,
    key: &str,
) -> Result<Vec<Value>, String> {
    let mut all = Vec::new();
    let mut cursor: Option<String> = None;
    let mut seen: Vec<String> = Vec::new();
    for _ in 0..MAX_PAGES {
        let page = server.list_resources(templates, cursor.clone()).await?;
        all.extend(items(server.name(), &page, key));
        match page
            .get("nextCursor")
            .and_then(Value::as_str)
            .filter(|c| !c.is_empty())
        {
            Some(next) if seen.iter().any(|s| s == next) => {
                return Err(format!(
                    "MCP resources/list returned duplicate cursor: {next}"
                ));
            }
            Some(next) => {
                seen.push(next.to_owned());
                cursor = Some(next.to_owned());
            }
            None => return Ok(all),
        }
    }
    Err("MCP resources/list returned more than 1000 pages".to_owned())
}

/// A page's items, each `{server, …item}` without `_meta` and `icons`, named by its URI when it
/// has no name; apps' UI resources left out.
fn items(server: &str, page: &Value, key: &str) -> Vec<Value> {
    let uri_key = if key == "resourceTemplates" {
        "uriTemplate"
    } else {
        "uri"
    };
    page.get(key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
        .filter(|item| {
            let uri = item.get(uri_key).and_then(Value::as_str).unwrap_or("");
            let mime = item.get("mimeType").and_then(Value::as_str).unwrap_or("");
            !uri.starts_with("ui://") && !is_app(mime)
        })
        .map(|item| {
            let mut out = Map::new();
            out.insert("server".to_owned(), json!(server));
            for (k, v) in item {
                if k != "_meta" && k != "icons" {
                    out.insert(k.clone(), v.clone());
                }
            }
            if !out.contains_key("name") {
                let uri = item.get(uri_key).cloned().unwrap_or(Value::Null);
                out.insert("name".to_owned(), uri);
            }
            Value::Object(out)
        })
        .collect()
}

/// `…; profile="mcp-app"`.
fn is_app(mime: &str) -> bool {
    let lower = mime.to_ascii_lowercase();
    lower.split(';').skip(1).any(|param| {
        let param = param.trim().replace(' ', "");
        param == "profile=mcp-app" || param == "profile=\"mcp-app\""
    })
}

async fn read(
    host: &McpHost,
    server: Option<String>,
    uri: Option<String>,
) -> Result<ToolOutput, ToolError> {
    let name = server.ok_or_else(|| ToolError::new("server must be provided"))?;
    let uri = uri.ok_or_else(|| ToolError::new("uri must be provided"))?;
    let found = resource_server(host, &name)?.clone();
    let result = found.read_resource(&uri).await.map_err(ToolError::new)?;
    let contents: Vec<Value> = result
        .get("contents")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .map(|mut c| {
            if let Value::Object(map) = &mut c {
                map.remove("_meta");
            }
            c
        })
        .collect();
    let structured = json!({"server": name, "uri": uri, "contents": contents});
    let server_name = name.clone();
    let content = tokio::task::spawn_blocking(move || {
        let conversion = Conversion {
            server: &server_name,
            tool: READ,
            offers_resources: true,
            saver: &OutputFiles,
        };
        if contents.is_empty() {
            return vec![ContentBlock::text(format!("Resource {uri} is empty."))];
        }
        let several = contents.len() > 1;
        let mut blocks = Vec::new();
        for item in &contents {
            if several {
                let item_uri = item.get("uri").and_then(Value::as_str).unwrap_or("");
                blocks.push(ContentBlock::text(format!("{item_uri}:")));
            }
            blocks.extend(resource_content(item, &conversion));
        }
        blocks
    })
    .await
    .map_err(|e| ToolError::new(e.to_string()))?;
    output(&name, READ, content, structured).await
}

/// The result: content within the 20 KB limit, `{server, tool[, fullOutputPath]}`, the payload.
async fn output(
    server: &str,
    tool: &'static str,
    content: Vec<ContentBlock>,
    structured: Value,
) -> Result<ToolOutput, ToolError> {
    let server = server.to_owned();
    let (content, details) = tokio::task::spawn_blocking(move || {
        let (content, saved) = limit(content, &OutputFiles);
        let conversion = Conversion {
            server: &server,
            tool,
            offers_resources: true,
            saver: &OutputFiles,
        };
        (content, details(&conversion, saved))
    })
    .await
    .map_err(|e| ToolError::new(e.to_string()))?;
    Ok(ToolOutput {
        content,
        details: Some(details),
        structured_content: Some(structured),
        ..ToolOutput::default()
    })
}
