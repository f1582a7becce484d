//! `/mcp` in the interactive mode (Pi 1.6's manager): a menu of the servers, most in need of
//! attention first; for one server its transport, file, state and error, and what can be done
//! — sign in or out (OAuth servers), see its tools, reconnect, change its exposure, enable or
//! disable it (saved to the file that defines it, or for this project only). Esc goes back,
//! and out.

use std::sync::{Arc, Mutex};

use rho_mcp::exposure::tool_exposure;
use rho_mcp::{Exposure, Phase, Scope, Server, TransportKind};

use super::McpHost;
use super::text::{describe_state, no_servers_message};
use crate::ui::{HostUi, Menu, MenuItem};

/// What each exposure means, as the exposure menu says it.
const EXPOSURES: [(Exposure, &str); 3] = [
    (
        Exposure::Codemode,
        "Pi's default: called from codemode scripts; rho has no codemode yet, so deferred",
    ),
    (
        Exposure::Deferred,
        "not declared until tool_search loads them, then called directly; no codemode needed",
    ),
    (
        Exposure::Direct,
        "declared to the model like built-in tools",
    ),
];

/// One thing the server menu offers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Action {
    SignIn,
    SignOut,
    Tools,
    Reconnect,
    Exposure,
    Enable { in_project: bool },
    Disable { in_project: bool },
}

impl McpHost {
    /// Runs the manager until the user leaves it.
    /// The menus follow the servers while they are open (a server connecting shows up).
    pub async fn manage(self: &Arc<Self>, ui: &dyn HostUi) {
        loop {
            // The rows as last shown: a pick means the server on that row.
            let shown: Mutex<Vec<Arc<Server>>> = Mutex::default();
            let build = || {
                let servers = self.by_attention();
                let menu = self.servers_menu(&servers);
                *rho_stdx::sync::lock(&shown) = servers;
                menu
            };
            let Some(picked) = ui.live_menu(&build, self.subscribe()).await else {
                return;
            };
            let Some(server) = rho_stdx::sync::lock(&shown).get(picked).cloned() else {
                return;
            };
            let mut message: Option<String> = None;
            loop {
                let offered: Mutex<Vec<Action>> = Mutex::default();
                let said = message.take();
                let build = || {
                    let (menu, actions) = self.server_menu(&server, said.clone());
                    *rho_stdx::sync::lock(&offered) = actions;
                    menu
                };
                let Some(choice) = ui.live_menu(&build, self.subscribe()).await else {
                    break;
                };
                let Some(action) = rho_stdx::sync::lock(&offered).get(choice).copied() else {
                    break;
                };
                message = self.run_action(&server, action, ui).await;
            }
        }
    }

    /// The servers, those needing attention first, then by name.
    fn by_attention(&self) -> Vec<Arc<Server>> {
        let rank = |server: &Server| match server.snapshot().phase {
            _ if !server.entry().config.enabled() => 5,
            Phase::NeedsAuth => 0,
            Phase::Failed => 1,
            Phase::Disconnected => 2,
            Phase::Connected => 4,
            _ => 3,
        };
        let mut servers = self.servers().to_vec();
        servers.sort_by(|a, b| rank(a).cmp(&rank(b)).then_with(|| a.name().cmp(b.name())));
        servers
    }

    fn servers_menu(&self, servers: &[Arc<Server>]) -> Menu {
        let errors: Vec<String> = self
            .config()
            .errors
            .iter()
            .map(|error| format!("config: {error}"))
            .collect();
        Menu {
            title: "MCP servers".to_owned(),
            details: Vec::new(),
            error: (!errors.is_empty()).then(|| errors.join("\n")),
            items: servers
                .iter()
                .map(|server| {
                    let entry = server.entry();
                    let place = if entry.override_source.is_some() {
                        "global, project override"
                    } else {
                        entry.scope.as_str()
                    };
                    let description = format!(
                        "{} · {} · {place}",
                        describe_state(server),
                        entry.config.exposure().as_str()
                    );
                    MenuItem::new(server.name(), description)
                })
                .collect(),
            empty: no_servers_message(&self.config().global_file),
            selected: 0,
        }
    }

    fn server_menu(&self, server: &Server, message: Option<String>) -> (Menu, Vec<Action>) {
        let entry = server.entry();
        let config = &entry.config;
        let snapshot = server.snapshot();
        let saved = if entry.override_source.is_some() {
            "saved to the project mcp.json".to_owned()
        } else {
            format!("saved to the {} mcp.json", entry.scope.as_str())
        };
        // A global server without an override can be turned on or off for this project alone.
        let in_project = entry.scope == Scope::Global
            && entry.override_source.is_none()
            && self.config().project_file.is_some();
        let in_project_saved = "saved to the project mcp.json";
        let mut items = Vec::new();
        let mut actions = Vec::new();
        let mut add = |action: Action, label: &str, description: String| {
            actions.push(action);
            items.push(MenuItem::new(label, description));
        };
        if !config.enabled() {
            add(
                Action::Enable { in_project: false },
                "Enable",
                saved.clone(),
            );
            if in_project {
                add(
                    Action::Enable { in_project: true },
                    "Enable in this project",
                    in_project_saved.to_owned(),
                );
            }
        } else {
            let phase = snapshot.phase;
            if phase == Phase::NeedsAuth {
                add(Action::SignIn, "Sign in", "opens the browser".to_owned());
            }
            if phase == Phase::Connected {
                let offered = format!("{} offered", snapshot.tools.len());
                add(Action::Tools, "Tools", offered);
            }
            if matches!(
                phase,
                Phase::Failed | Phase::Disconnected | Phase::Connected | Phase::NeedsAuth
            ) {
                add(Action::Reconnect, "Reconnect", String::new());
            }
            if phase == Phase::Connected && server.uses_oauth() {
                add(
                    Action::SignOut,
                    "Sign out",
                    "deletes the stored credentials".to_owned(),
                );
            }
            add(
                Action::Exposure,
                "Exposure",
                config.exposure().as_str().to_owned(),
            );
            add(Action::Disable { in_project: false }, "Disable", saved);
            if in_project {
                add(
                    Action::Disable { in_project: true },
                    "Disable in this project",
                    in_project_saved.to_owned(),
                );
            }
        }
        let transport = match config.kind() {
            TransportKind::Http => config.url().unwrap_or_default().to_owned(),
            TransportKind::Stdio => {
                std::iter::once(config.command().unwrap_or_default().to_owned())
                    .chain(config.args())
                    .collect::<Vec<_>>()
                    .join(" ")
            }
        };
        let mut details = vec![
            transport,
            format!("{}: {}", entry.scope.as_str(), entry.source.display()),
        ];
        if let Some(path) = &entry.override_source {
            details.push(format!("project override: {}", path.display()));
        }
        details.push(format!("State: {}", describe_state(server)));
        let connection_error = snapshot
            .error
            .filter(|_| snapshot.phase != Phase::Connected);
        let error: Vec<String> = message.into_iter().chain(connection_error).collect();
        let menu = Menu {
            title: format!("MCP server {}", server.name()),
            details,
            error: (!error.is_empty()).then(|| error.join("\n")),
            items,
            empty: String::new(),
            selected: 0,
        };
        (menu, actions)
    }

    /// Carries out `action`; a message to show on the server's menu when it failed.
    async fn run_action(
        self: &Arc<Self>,
        server: &Arc<Server>,
        action: Action,
        ui: &dyn HostUi,
    ) -> Option<String> {
        let name = server.name();
        match action {
            Action::SignIn => {
                let prompt = super::sign_in_prompt::UiSignInPrompt::new(ui, name);
                self.sign_in(name, &prompt).await.err()
            }
            Action::SignOut => self.sign_out(name).await.err(),
            Action::Tools => {
                ui.menu(self.tools_menu(server)).await;
                None
            }
            Action::Reconnect => {
                // A failure shows in the server's state and error.
                let _ = self.reconnect(name).await;
                None
            }
            Action::Exposure => {
                let current = server.entry().config.exposure();
                let menu = Menu {
                    title: format!("Exposure of {name}"),
                    details: vec![format!(
                        "Saved to {}.",
                        server
                            .entry()
                            .override_source
                            .as_ref()
                            .unwrap_or(&server.entry().source)
                            .display()
                    )],
                    error: None,
                    items: EXPOSURES
                        .iter()
                        .map(|(exposure, description)| {
                            let mark = if *exposure == current { "✓ " } else { "  " };
                            MenuItem::new(format!("{mark}{}", exposure.as_str()), *description)
                        })
                        .collect(),
                    empty: String::new(),
                    selected: EXPOSURES
                        .iter()
                        .position(|(exposure, _)| *exposure == current)
                        .unwrap_or(0),
                };
                let (chosen, _) = EXPOSURES.get(ui.menu(menu).await?)?;
                if *chosen == current {
                    return None;
                }
                self.set_exposure(name, *chosen).await.err()
            }
            Action::Enable { in_project } => self.set_enabled(name, true, in_project).await.err(),
            Action::Disable { in_project } => self.set_enabled(name, false, in_project).await.err(),
        }
    }

    fn tools_menu(&self, server: &Server) -> Menu {
        let config = server.entry().config.clone();
        let exposure = config.exposure();
        let overridden = !config.tool_exposure().is_empty();
        let meaning = EXPOSURES
            .iter()
            .find(|(e, _)| *e == exposure)
            .map_or("unreachable", |(_, description)| description);
        let mut details = vec![format!("Exposure {}: {meaning}", exposure.as_str())];
        if overridden {
            details.push("Some tools override it with toolExposure.".to_owned());
        }
        Menu {
            title: format!("Tools of {}", server.name()),
            details,
            error: None,
            items: server
                .snapshot()
                .tools
                .iter()
                .map(|tool| {
                    let own = tool_exposure(&config, &tool.name);
                    let first_line = tool
                        .description
                        .as_deref()
                        .unwrap_or("")
                        .lines()
                        .next()
                        .unwrap_or("")
                        .to_owned();
                    let description = if own == exposure {
                        first_line
                    } else {
                        format!("[{}] {first_line}", own.as_str())
                    };
                    MenuItem::new(tool.name.to_string(), description)
                })
                .collect(),
            empty: "The server offers no tools.".to_owned(),
            selected: 0,
        }
    }
}
