//! `/mcp` outside the interactive mode (Pi 1.6's handler for RPC, print and JSON): a bare
//! `/mcp` waits for the servers' first connections and reports their state; `/mcp reconnect
//! [server]` connects a server again, asking which one when the name is left out and more than
//! one could be meant.

use rho_mcp::Phase;

use super::McpHost;
use super::text::{MCP_USAGE, describe_state};
use crate::ui::{HostUi, NoticeLevel};

impl McpHost {
    /// Runs `/mcp <args>` outside the interactive mode.
    pub async fn command(&self, args: &str, ui: &dyn HostUi) {
        let words: Vec<&str> = args.split_whitespace().collect();
        let Some((&action, rest)) = words.split_first() else {
            self.settled().await;
            ui.notify(&self.status(), NoticeLevel::Info);
            return;
        };
        if rest.len() > 1 {
            ui.notify(MCP_USAGE, NoticeLevel::Warning);
            return;
        }
        self.settled().await;
        match action {
            "reconnect" => self.reconnect_command(rest.first().copied(), ui).await,
            _ => ui.notify(MCP_USAGE, NoticeLevel::Warning),
        }
    }

    async fn reconnect_command(&self, name: Option<&str>, ui: &dyn HostUi) {
        const NONE: &str = "No enabled MCP server to reconnect.";
        let eligible = |s: &&std::sync::Arc<rho_mcp::Server>| s.entry().config.enabled();
        let server = match name {
            Some(name) => match self.server(name) {
                None => {
                    ui.notify(
                        &format!("No MCP server named \"{name}\"."),
                        NoticeLevel::Error,
                    );
                    return;
                }
                Some(server) if !eligible(&server) => {
                    ui.notify(NONE, NoticeLevel::Error);
                    return;
                }
                Some(server) => server.clone(),
            },
            None => {
                let candidates: Vec<_> = self.servers().iter().filter(eligible).collect();
                let preferred: Vec<_> = candidates
                    .iter()
                    .filter(|s| matches!(s.snapshot().phase, Phase::Failed | Phase::Disconnected))
                    .collect();
                if candidates.is_empty() {
                    ui.notify(NONE, NoticeLevel::Info);
                    return;
                }
                if let [only] = candidates.as_slice() {
                    (*only).clone()
                } else if let [only] = preferred.as_slice() {
                    (**only).clone()
                } else {
                    let names: Vec<String> =
                        candidates.iter().map(|s| s.name().to_owned()).collect();
                    let Some(choice) = ui.select("MCP server", &names).await else {
                        return;
                    };
                    match candidates.iter().find(|s| s.name() == choice) {
                        Some(server) => (*server).clone(),
                        None => return,
                    }
                }
            }
        };
        match self.reconnect(server.name()).await {
            Ok(()) => ui.notify(
                &format!(
                    "Reconnected to MCP server \"{}\" ({}).",
                    server.name(),
                    describe_state(&server)
                ),
                NoticeLevel::Info,
            ),
            Err(error) => ui.notify(&error, NoticeLevel::Error),
        }
    }
}
