//! MCP servers the client names in `session/new` and `session/load`, as `mcp.json` entries:
//! stdio (`command`, `args`, `env`) and streamable HTTP (`url`, `headers`), their tools
//! declared to the model (`direct`). Their values are taken as written: `$` and a leading `!`
//! are escaped, so nothing the client sends is expanded or run as a command. The legacy SSE
//! transport is refused, as in `mcp.json` (the capability says it is not offered).

use agent_client_protocol::Error;
use agent_client_protocol::v1::schema::McpServer;
use serde_json::{Map, Value, json};

use super::open::invalid;

/// `value` so that `mcp.json`'s resolution gives it back unchanged.
fn literal(value: &str) -> String {
    let escaped = value.replace('$', "$$");
    match escaped.strip_prefix('!') {
        Some(rest) => format!("$!{rest}"),
        None => escaped,
    }
}

/// The client's servers as `(name, entry)`.
pub fn client_servers(servers: &[McpServer]) -> Result<Vec<(String, Value)>, Error> {
    servers
        .iter()
        .map(|server| match server {
            McpServer::Stdio(stdio) => {
                let env: Map<String, Value> = stdio
                    .env
                    .iter()
                    .map(|var| (var.name.clone(), Value::from(literal(&var.value))))
                    .collect();
                let entry = json!({
                    "command": stdio.command.display().to_string(),
                    "args": stdio.args,
                    "env": env,
                    "exposure": "direct",
                });
                Ok((stdio.name.clone(), entry))
            }
            McpServer::Http(http) => {
                let headers: Map<String, Value> = http
                    .headers
                    .iter()
                    .map(|h| (h.name.clone(), Value::from(literal(&h.value))))
                    .collect();
                let entry = json!({
                    "url": http.url,
                    "headers": headers,
                    "exposure": "direct",
                });
                Ok((http.name.clone(), entry))
            }
            McpServer::Sse(sse) => Err(invalid(format!(
                "MCP server \"{}\": the legacy SSE transport is not supported; use streamable HTTP",
                sse.name
            ))),
            _ => Err(invalid("an MCP server of a transport rho does not know")),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::literal;

    #[test]
    fn client_values_are_escaped_so_they_resolve_to_themselves() {
        assert_eq!(literal("plain"), "plain");
        assert_eq!(literal("${HOME}/x"), "$${HOME}/x");
        assert_eq!(literal("!rm -rf /"), "$!rm -rf /");
        assert_eq!(literal("a!b$"), "a!b$$");
    }
}
