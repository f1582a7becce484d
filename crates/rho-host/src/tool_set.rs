//! The session's tools (Pi 1.6's tool registry): every registered tool with its exposure, and
//! which of them are active — declared to the model and callable. Built-in tools are direct and
//! active as the flags chose them; an MCP server's tools are registered as the server connects
//! (`direct` ones active at once, `deferred` ones until `tool_search` loads them, `hidden` ones
//! never). A tool is never unregistered: a tool a server withdraws becomes hidden.
//!
//! The session reads the active tools at each prompt and each turn, and declares any change to
//! the model in a `system` message (`toolsAdded`/`toolsRemoved`).

use std::sync::{Arc, Mutex};

use rho_agent::AgentTool;

/// How a registered tool reaches the model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ToolExposure {
    /// Declared while active.
    Direct,
    /// Declared once `tool_search` loads it.
    Deferred,
    /// Never declared, never callable.
    Hidden,
}

/// What a tool belongs to, for search (an MCP server: its namespace, description and
/// instructions).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolNamespace {
    /// `mcp__<server>`.
    pub name: String,
    /// The configured description.
    pub description: Option<String>,
    /// The server's instructions.
    pub instructions: Option<String>,
}

/// One registered tool.
#[derive(Clone)]
pub struct Registered {
    /// The tool.
    pub tool: Arc<dyn AgentTool>,
    /// Its exposure.
    pub exposure: ToolExposure,
    /// Whether it is declared and callable now.
    pub active: bool,
    /// What it belongs to.
    pub namespace: Option<Arc<ToolNamespace>>,
    /// When it became active: active tools are declared in that order (Pi appends the tools
    /// a search loads, in the order it ranked them).
    activated: u64,
}

/// The registry.
#[derive(Default)]
pub struct ToolSet {
    entries: Mutex<Entries>,
    /// Tools a resumed transcript declares that are not registered yet (their MCP server is
    /// still connecting): active as soon as they are, until the next prompt starts.
    pending: Mutex<Vec<String>>,
}

impl ToolSet {
    /// A registry of `tools`, all direct and active, in that order.
    pub fn new(tools: Vec<Arc<dyn AgentTool>>) -> ToolSet {
        let list: Vec<Registered> = tools
            .into_iter()
            .zip(0u64..)
            .map(|(tool, activated)| Registered {
                tool,
                exposure: ToolExposure::Direct,
                active: true,
                namespace: None,
                activated,
            })
            .collect();
        let next = list.len() as u64;
        ToolSet {
            entries: Mutex::new(Entries { list, next }),
            pending: Mutex::default(),
        }
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, Entries> {
        rho_stdx::sync::lock(&self.entries)
    }

    /// The active tools, in the order they became active.
    pub fn active(&self) -> Vec<Arc<dyn AgentTool>> {
        let entries = self.entries();
        let mut active: Vec<&Registered> = entries.list.iter().filter(|e| e.active).collect();
        active.sort_by_key(|entry| entry.activated);
        active.iter().map(|entry| entry.tool.clone()).collect()
    }

    /// The names of the active tools.
    pub fn active_names(&self) -> Vec<String> {
        self.active()
            .iter()
            .map(|tool| tool.name().to_owned())
            .collect()
    }

    /// Every registered tool.
    pub fn all(&self) -> Vec<Registered> {
        self.entries().list.clone()
    }

    /// The tool named `name`, registered and not hidden.
    pub fn get(&self, name: &str) -> Option<Registered> {
        self.entries()
            .list
            .iter()
            .find(|entry| entry.tool.name() == name && entry.exposure != ToolExposure::Hidden)
            .cloned()
    }

    /// Registers `tool` (replacing a tool of the same name in its place), active when `active`
    /// and not hidden.
    pub fn register(
        &self,
        tool: Arc<dyn AgentTool>,
        exposure: ToolExposure,
        active: bool,
        namespace: Option<Arc<ToolNamespace>>,
    ) {
        let restored = {
            let mut pending = rho_stdx::sync::lock(&self.pending);
            let found = pending.iter().position(|name| name == tool.name());
            found.map(|index| pending.remove(index)).is_some()
        };
        let active = active || (restored && exposure == ToolExposure::Deferred);
        let mut entries = self.entries();
        let mut entry = Registered {
            active: active && exposure != ToolExposure::Hidden,
            tool,
            exposure,
            namespace,
            activated: 0,
        };
        match entries
            .list
            .iter()
            .position(|e| e.tool.name() == entry.tool.name())
        {
            Some(index) => {
                // A tool loaded by a search stays loaded when its server registers it again,
                // and keeps its place.
                let old = &entries.list[index];
                if old.active && entry.exposure != ToolExposure::Hidden {
                    entry.active = true;
                    entry.activated = old.activated;
                } else if entry.active {
                    entry.activated = entries.take_next();
                }
                entries.list[index] = entry;
            }
            None => {
                if entry.active {
                    entry.activated = entries.take_next();
                }
                entries.list.push(entry);
            }
        }
    }

    /// Remembers the tools a resumed transcript declares: those not active now become active
    /// when they are registered (before the next prompt starts).
    pub fn restore(&self, declared: &[String]) {
        let active = self.active_names();
        let mut pending = rho_stdx::sync::lock(&self.pending);
        pending.clear();
        pending.extend(
            declared
                .iter()
                .filter(|name| !active.contains(name))
                .cloned(),
        );
        drop(pending);
        let deferred: Vec<String> = self
            .entries()
            .list
            .iter()
            .filter(|e| e.exposure == ToolExposure::Deferred)
            .map(|e| e.tool.name().to_owned())
            .filter(|name| declared.contains(name))
            .collect();
        self.activate(&deferred);
        rho_stdx::sync::lock(&self.pending).retain(|name| !deferred.contains(name));
    }

    /// The restored names still waiting for their tool.
    pub fn pending(&self) -> Vec<String> {
        rho_stdx::sync::lock(&self.pending).clone()
    }

    /// Forgets the restored names never registered (Pi drops them when the next run starts).
    pub fn drop_pending(&self) {
        rho_stdx::sync::lock(&self.pending).clear();
    }

    /// Hides `name`: never declared or callable again until registered anew.
    pub fn hide(&self, name: &str) {
        if let Some(entry) = self
            .entries()
            .list
            .iter_mut()
            .find(|e| e.tool.name() == name)
        {
            entry.exposure = ToolExposure::Hidden;
            entry.active = false;
        }
    }

    /// Stops declaring the tools among `names` (they stay registered: `tool_search` may load
    /// a deferred one again).
    pub fn deactivate(&self, names: &[String]) {
        let mut entries = self.entries();
        for entry in entries.list.iter_mut() {
            if names.iter().any(|name| name == entry.tool.name()) {
                entry.active = false;
            }
        }
    }

    /// Activates the tools among `names` that are registered and not hidden, in that order;
    /// returns the names activated.
    pub fn activate(&self, names: &[String]) -> Vec<String> {
        let mut entries = self.entries();
        let mut activated = Vec::new();
        for name in names {
            let Some(index) = entries.list.iter().position(|e| e.tool.name() == name) else {
                continue;
            };
            let entry = &entries.list[index];
            if entry.active || entry.exposure == ToolExposure::Hidden {
                continue;
            }
            let order = entries.take_next();
            let entry = &mut entries.list[index];
            entry.active = true;
            entry.activated = order;
            activated.push(name.clone());
        }
        activated
    }

    /// The deferred tools not yet active: what `tool_search` may load.
    pub fn loadable(&self) -> Vec<Registered> {
        self.entries()
            .list
            .iter()
            .filter(|entry| entry.exposure == ToolExposure::Deferred && !entry.active)
            .cloned()
            .collect()
    }
}

/// The registered tools, and the next activation number.
#[derive(Default)]
struct Entries {
    list: Vec<Registered>,
    next: u64,
}

impl Entries {
    fn take_next(&mut self) -> u64 {
        self.next += 1;
        self.next
    }
}
