//! `/mcp` with an action, in every mode, and a bare `/mcp` outside the interactive mode (Pi
//! 1.6's handler): a bare `/mcp` waits for the servers' first connections and reports their
//! state; `/mcp reconnect [server]` connects a server again; `/mcp login [server]` signs an
//! OAuth server in (in the interactive and RPC modes: `-p` has nobody to open the browser for),
//! `/mcp logout [server]` deletes its tokens. Without a name, the one server that could be
//! meant is taken, or the user is asked.

use std::sync::Arc;

use rho_mcp::{Phase, Server, SignedIn};

use super::McpHost;
use super::sign_in_prompt::UiSignInPrompt;
use super::text::{MCP_USAGE, describe_state};
use crate::ui::{HostUi, NoticeLevel};

/// Which servers an action may name.
struct Pick {
    eligible: fn(&Server) -> bool,
    preferred: fn(&Server) -> bool,
    none: &'static str,
}

const RECONNECT: Pick = Pick {
    eligible: |s| s.entry().config.enabled(),
    preferred: |s| matches!(s.snapshot().phase, Phase::Failed | Phase::Disconnected),
    none: "No enabled MCP server to reconnect.",
};

const OAUTH: Pick = Pick {
    eligible: |s| s.entry().config.enabled() && s.uses_oauth(),
    preferred: |s| s.snapshot().phase == Phase::NeedsAuth,
    none: "No enabled MCP server uses OAuth. Only HTTP servers without an Authorization header do.",
};

impl McpHost {
    /// Runs `/mcp <args>` (a bare `/mcp`: the status lines).
    pub async fn command(self: &Arc<Self>, args: &str, ui: &dyn HostUi) {
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
        let name = rest.first().copied();
        match action {
            "reconnect" => {
                if let Some(server) = self.pick(name, &RECONNECT, ui).await {
                    self.reconnect_command(&server, ui).await;
                }
            }
            "login" => {
                if let Some(server) = self.pick(name, &OAUTH, ui).await {
                    self.login_command(&server, ui).await;
                }
            }
            "logout" => {
                if let Some(server) = self.pick(name, &OAUTH, ui).await {
                    match self.sign_out(server.name()).await {
                        Ok(true) => ui.notify(
                            &format!("Signed out of MCP server \"{}\".", server.name()),
                            NoticeLevel::Info,
                        ),
                        Ok(false) => ui.notify(
                            &format!(
                                "No stored credentials for MCP server \"{}\".",
                                server.name()
                            ),
                            NoticeLevel::Info,
                        ),
                        Err(error) => ui.notify(&error, NoticeLevel::Error),
                    }
                }
            }
            _ => ui.notify(MCP_USAGE, NoticeLevel::Warning),
        }
    }

    /// The server an action names, or the one it can only mean, or the user's choice.
    async fn pick(&self, name: Option<&str>, pick: &Pick, ui: &dyn HostUi) -> Option<Arc<Server>> {
        if let Some(name) = name {
            let Some(server) = self.server(name) else {
                ui.notify(
                    &format!("No MCP server named \"{name}\"."),
                    NoticeLevel::Error,
                );
                return None;
            };
            if !(pick.eligible)(server) {
                ui.notify(pick.none, NoticeLevel::Error);
                return None;
            }
            return Some(server.clone());
        }
        let candidates: Vec<&Arc<Server>> = self
            .servers()
            .iter()
            .filter(|s| (pick.eligible)(s))
            .collect();
        let preferred: Vec<&&Arc<Server>> =
            candidates.iter().filter(|s| (pick.preferred)(s)).collect();
        if candidates.is_empty() {
            ui.notify(pick.none, NoticeLevel::Info);
            return None;
        }
        if let [only] = candidates.as_slice() {
            return Some((*only).clone());
        }
        if let [only] = preferred.as_slice() {
            return Some((**only).clone());
        }
        let names: Vec<String> = candidates.iter().map(|s| s.name().to_owned()).collect();
        let choice = ui.select("MCP server", &names).await?;
        candidates
            .iter()
            .find(|s| s.name() == choice)
            .map(|s| (*s).clone())
    }

    async fn reconnect_command(&self, server: &Arc<Server>, ui: &dyn HostUi) {
        match self.reconnect(server.name()).await {
            Ok(()) => ui.notify(
                &format!(
                    "Reconnected to MCP server \"{}\" ({}).",
                    server.name(),
                    describe_state(server)
                ),
                NoticeLevel::Info,
            ),
            Err(error) => ui.notify(&error, NoticeLevel::Error),
        }
    }

    async fn login_command(self: &Arc<Self>, server: &Arc<Server>, ui: &dyn HostUi) {
        let name = server.name();
        if !ui.interactive() {
            ui.notify(
                &format!("Signing in to MCP server \"{name}\" requires interactive mode."),
                NoticeLevel::Error,
            );
            return;
        }
        let prompt = UiSignInPrompt::new(ui, name);
        match self.sign_in(name, &prompt).await {
            Ok(SignedIn::Already(tools)) => ui.notify(
                &format!("Already signed in to MCP server \"{name}\" ({tools} tools)."),
                NoticeLevel::Info,
            ),
            Ok(SignedIn::Now(tools)) => ui.notify(
                &format!("Signed in to MCP server \"{name}\" ({tools} tools)."),
                NoticeLevel::Info,
            ),
            Err(error) => ui.notify(&error, NoticeLevel::Error),
        }
    }
}
