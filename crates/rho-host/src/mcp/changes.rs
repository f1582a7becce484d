//! What `/mcp` changes in a running session (Pi 1.6's manager): reconnect a server, enable or
//! disable it, change its exposure. Each change is saved to the `mcp.json` that defines the
//! server (or its project override) and takes effect at once: a disabled server's tools leave
//! the session, an enabled one connects, tools no longer `direct` stop being declared.

use std::path::PathBuf;
use std::sync::Arc;

use rho_mcp::edit::{ServerPatch, update_server};
use rho_mcp::exposure::tool_exposure;
use rho_mcp::{Exposure, Server, ServerEntry};

use super::McpHost;

impl McpHost {
    /// Drops server `name`'s connection and connects again; the error when that fails.
    pub async fn reconnect(&self, name: &str) -> Result<(), String> {
        let server = self.known(name)?;
        if !server.entry().config.enabled() {
            return Err(format!("MCP server \"{name}\" is disabled."));
        }
        server.reconnect().await
    }

    /// Enables or disables server `name`, saved to the file that defines it — or, with
    /// `in_project`, as an override in the trusted project's `.rho/mcp.json`. The error is a
    /// file that could not be written; a connection's failure shows in the server's state.
    pub async fn set_enabled(
        self: &Arc<Self>,
        name: &str,
        enabled: bool,
        in_project: bool,
    ) -> Result<(), String> {
        let server = self.known(name)?;
        let patch = ServerPatch {
            enabled: Some(enabled),
            exposure: None,
        };
        let entry = self.save(&server, patch, in_project).await?;
        server.set_entry(entry).await;
        if enabled {
            let _ = server.ensure_connected().await;
        } else {
            self.withdraw(&server);
        }
        Ok(())
    }

    /// Changes server `name`'s exposure, saved to the file that defines it (or its project
    /// override). Its tools are registered again under the new exposure; those no longer
    /// `direct` stop being declared.
    pub async fn set_exposure(
        self: &Arc<Self>,
        name: &str,
        exposure: Exposure,
    ) -> Result<(), String> {
        let server = self.known(name)?;
        let patch = ServerPatch {
            enabled: None,
            exposure: Some(exposure),
        };
        let entry = self.save(&server, patch, false).await?;
        server.set_entry(entry).await;
        self.register(&server);
        let config = server.entry().config.clone();
        let snapshot = server.snapshot();
        let names = rho_stdx::sync::lock(&self.names).current(server.name());
        let indirect: Vec<String> = snapshot
            .tools
            .iter()
            .zip(&names)
            .filter(|(tool, _)| tool_exposure(&config, &tool.name) != Exposure::Direct)
            .map(|(_, name)| name.clone())
            .collect();
        for set in self.tool_sets() {
            set.deactivate(&indirect);
        }
        Ok(())
    }

    fn known(&self, name: &str) -> Result<Arc<Server>, String> {
        self.server(name)
            .cloned()
            .ok_or_else(|| format!("No MCP server named \"{name}\"."))
    }

    /// Writes `patch` to the file that holds the server — its project override when it has
    /// one, the project file when `in_project` — and returns the entry with the patch applied.
    async fn save(
        &self,
        server: &Server,
        patch: ServerPatch,
        in_project: bool,
    ) -> Result<ServerEntry, String> {
        let mut entry = (*server.entry()).clone();
        let project = self.config.project_file.clone();
        let override_file: Option<PathBuf> = if in_project {
            Some(project.ok_or_else(|| {
                "The project is not trusted: its .rho/mcp.json is not read.".to_owned()
            })?)
        } else {
            entry.override_source.clone()
        };
        let (file, create_override) = match &override_file {
            Some(file) => (file.clone(), true),
            None => (entry.source.clone(), false),
        };
        let name = entry.name.clone();
        let path = file.clone();
        tokio::task::spawn_blocking(move || update_server(&path, &name, patch, create_override))
            .await
            .map_err(|e| e.to_string())?
            .map_err(|e| format!("Could not update {}: {e}", file.display()))?;
        entry.config = entry.config.patched(patch);
        if in_project {
            entry.override_source = override_file;
        }
        Ok(entry)
    }

    /// Takes a disabled server's tools (and resource tools, when no other server offers
    /// resources) out of every session.
    pub(super) fn withdraw(self: &Arc<Self>, server: &Server) {
        let assigned = rho_stdx::sync::lock(&self.names).assign(server.name(), &[]);
        let sets = self.tool_sets();
        for name in &assigned.withdrawn {
            sets.iter().for_each(|set| set.hide(name));
        }
        super::resources::sync(self, &sets);
    }
}
