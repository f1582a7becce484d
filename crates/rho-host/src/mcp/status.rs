//! What rho says of its MCP servers: `/mcp`'s status lines and `rho mcp list`'s (Pi's
//! `formatStatus`), the one report of the problems once every server has settled, and the
//! notices at start.

use rho_mcp::exposure::configured_exposures;
use rho_mcp::{Exposure, Phase, Scope, TransportKind};

use super::McpHost;
use super::text::{first_line, no_servers_message};

/// `<name>: <state>, N tools (<exposure>)` lines, with errors indented beneath, then the config
/// errors.
pub(super) fn format_status(host: &McpHost) -> String {
    if host.servers.is_empty() && host.config.errors.is_empty() {
        return no_servers_message(&host.config.global_file);
    }
    let mut lines = Vec::new();
    for server in &host.servers {
        let snapshot = server.snapshot();
        let exposure = server.entry().config.exposure().as_str();
        if snapshot.phase == Phase::NeedsAuth {
            lines.push(format!(
                "{}: needs sign-in, run /mcp login {} ({exposure})",
                server.name(),
                server.name()
            ));
            continue;
        }
        let state = match snapshot.phase {
            Phase::Disconnected => "disconnected, reconnects on next call".to_owned(),
            other => other.as_str().to_owned(),
        };
        let tools = if snapshot.phase == Phase::Connected {
            format!(", {} tools", snapshot.tools.len())
        } else {
            String::new()
        };
        let error = match (&snapshot.error, snapshot.phase) {
            (Some(error), phase) if phase != Phase::Connected => {
                format!("\n    {}", error.lines().collect::<Vec<_>>().join("\n    "))
            }
            _ => String::new(),
        };
        lines.push(format!(
            "{}: {state}{tools} ({exposure}){error}",
            server.name()
        ));
    }
    for error in &host.config.errors {
        lines.push(format!("config error: {error}"));
    }
    lines.join("\n")
}

/// `MCP servers need attention:` with one indented line per config error, failed server and
/// server needing sign-in, then `Run /mcp to fix.`; `None` when all is well.
pub(super) fn attention(host: &McpHost) -> Option<String> {
    let mut lines: Vec<String> = host
        .config
        .errors
        .iter()
        .map(|error| format!("  config: {error}"))
        .collect();
    for server in &host.servers {
        let snapshot = server.snapshot();
        match snapshot.phase {
            Phase::Failed => lines.push(format!(
                "  {}: failed: {}",
                server.name(),
                first_line(snapshot.error.as_deref())
            )),
            Phase::NeedsAuth => lines.push(format!("  {}: needs sign-in", server.name())),
            _ => {}
        }
    }
    if lines.is_empty() {
        return None;
    }
    Some(format!(
        "MCP servers need attention:\n{}\nRun /mcp to fix.",
        lines.join("\n")
    ))
}

/// One notice per server a trusted project's `.rho/mcp.json` adds (its process runs outside
/// the sandbox, with the user's rights), and one naming the servers whose `codemode` exposure
/// acts as `deferred` (rho has no codemode yet). Config errors are said once, with the
/// servers' problems ([`attention`]).
pub(super) fn startup_notices(host: &McpHost) -> Vec<String> {
    let mut notices: Vec<String> = host
        .servers
        .iter()
        .map(|s| s.entry())
        .filter(|entry| entry.scope == Scope::Project && entry.config.enabled())
        .map(|entry| {
            let what = match entry.config.kind() {
                TransportKind::Stdio => format!(
                    "starts `{}`",
                    std::iter::once(entry.config.command().unwrap_or_default().to_owned())
                        .chain(entry.config.args())
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
                TransportKind::Http => {
                    format!("connects to {}", entry.config.url().unwrap_or_default())
                }
            };
            format!(
                "the project's {} adds MCP server \"{}\", which {what}; MCP servers run outside rho's sandbox, with your rights",
                entry.source.display(),
                entry.name
            )
        })
        .collect();
    let codemode: Vec<&str> = host
        .servers
        .iter()
        .filter(|s| s.entry().config.enabled())
        .filter(|s| configured_exposures(&s.entry().config).contains(&Exposure::Codemode))
        .map(|s| s.name())
        .collect();
    if !codemode.is_empty() {
        notices.push(format!(
            "MCP server{} {} use{} codemode exposure (Pi's default); rho has no codemode tool yet, so {} tools are deferred: the model loads them with tool_search",
            if codemode.len() == 1 { "" } else { "s" },
            codemode.join(", "),
            if codemode.len() == 1 { "s" } else { "" },
            if codemode.len() == 1 { "its" } else { "their" },
        ));
    }
    notices
}
