//! What rho says of MCP servers in a few words, shared by the status lines, the manager and
//! the commands: a server's state, the empty configuration, `/mcp`'s usage and description.

use rho_mcp::{Phase, Server};

/// What `/mcp` answers with a wrong form.
pub const MCP_USAGE: &str =
    "Usage: /mcp, /mcp login [server], /mcp logout [server], /mcp reconnect [server]";

/// The description `get_commands` and the completions give `/mcp`.
pub const MCP_COMMAND_DESCRIPTION: &str =
    "Manage MCP servers: sign in, reconnect, enable or disable, and change exposure";

/// What `/mcp` says when no server is configured (`global` is `RHO_HOME/mcp.json`).
pub fn no_servers_message(global: &std::path::Path) -> String {
    format!(
        "No MCP servers configured. Add them to {} or .rho/mcp.json.",
        global.display()
    )
}

/// The first line of an error (empty without one).
pub fn first_line(error: Option<&str>) -> &str {
    error.and_then(|e| e.lines().next()).unwrap_or("")
}

/// A server's state in a few words (`connected · 3 tools · resources`).
pub fn describe_state(server: &Server) -> String {
    let snapshot = server.snapshot();
    match snapshot.phase {
        Phase::Disabled => "disabled".to_owned(),
        Phase::Starting => "starting".to_owned(),
        Phase::NeedsAuth => "needs sign-in".to_owned(),
        Phase::Connecting => "connecting…".to_owned(),
        Phase::Failed => format!("failed: {}", first_line(snapshot.error.as_deref())),
        Phase::Connected => {
            let count = snapshot.tools.len();
            let plural = if count == 1 { "" } else { "s" };
            let resources = if snapshot.has_resources {
                " · resources"
            } else {
                ""
            };
            format!("connected · {count} tool{plural}{resources}")
        }
        other => other.as_str().to_owned(),
    }
}

/// Whether `text` is the `/mcp` command; its arguments when it is.
pub fn mcp_command_args(text: &str) -> Option<&str> {
    let rest = text.strip_prefix("/mcp")?;
    (rest.is_empty() || rest.starts_with(char::is_whitespace)).then_some(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_mcp_command_and_its_arguments_are_recognized() {
        assert_eq!(mcp_command_args("/mcp"), Some(""));
        assert_eq!(mcp_command_args("/mcp reconnect a"), Some(" reconnect a"));
        assert_eq!(mcp_command_args("/mcpx"), None);
        assert_eq!(mcp_command_args("mcp"), None);
    }
}
