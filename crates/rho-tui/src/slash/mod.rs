//! `/` commands: the registry of what can be typed after `/` (rho's own commands, skills as
//! `/skill:name`, prompt templates as `/name`), parsing a submitted line, and the popup listing
//! the commands while the first word is typed.

pub mod host;
pub mod panel;
pub mod view;

use std::sync::Arc;

use crate::keybindings::Keybindings;
use crate::picker::{Picker, fuzzy_order};
use crate::theme::Theme;

pub use host::{CommandHost, ModelOption, SettingChange, SlashAction};
pub use panel::Panel;

/// rho's own commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Builtin {
    /// `/settings`.
    Settings,
    /// `/model`.
    Model,
    /// `/thinking [level]`.
    Thinking,
    /// `/export [path]`.
    Export,
    /// `/copy`.
    Copy,
    /// `/session`.
    Session,
    /// `/hotkeys`.
    Hotkeys,
    /// `/fork`.
    Fork,
    /// `/tree`.
    Tree,
    /// `/new`.
    New,
    /// `/compact [instructions]`.
    Compact,
    /// `/resume`.
    Resume,
    /// `/help`.
    Help,
    /// `/quit`.
    Quit,
}

/// The built-in commands in Pi's order, with Pi's descriptions (`/thinking` and `/help` are
/// rho's).
pub const BUILTINS: &[(Builtin, &str, &str)] = &[
    (Builtin::Settings, "settings", "Open settings menu"),
    (Builtin::Model, "model", "Select model (opens selector UI)"),
    (Builtin::Thinking, "thinking", "Set the thinking level"),
    (
        Builtin::Export,
        "export",
        "Export session (HTML default, or specify path: .html/.jsonl)",
    ),
    (
        Builtin::Copy,
        "copy",
        "Copy last agent message to clipboard",
    ),
    (Builtin::Session, "session", "Show session info and stats"),
    (Builtin::Hotkeys, "hotkeys", "Show all keyboard shortcuts"),
    (
        Builtin::Fork,
        "fork",
        "Create a new fork from a previous user message",
    ),
    (
        Builtin::Tree,
        "tree",
        "Navigate session tree (switch branches)",
    ),
    (Builtin::New, "new", "Start a new session"),
    (
        Builtin::Compact,
        "compact",
        "Manually compact the session context",
    ),
    (Builtin::Resume, "resume", "Resume a different session"),
    (Builtin::Help, "help", "Show the commands"),
    (Builtin::Quit, "quit", "Quit rho"),
];

/// What a command does when submitted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlashKind {
    /// One of rho's own.
    Builtin(Builtin),
    /// A skill (`/skill:name`) or a prompt template (`/name`): sent as a prompt, which the
    /// session expands.
    Prompt,
    /// A command the host provides (`/mcp`), run by [`crate::hooks::ExtensionCommands`].
    Extension,
}

/// One entry of the registry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlashCommand {
    /// The name typed after `/`.
    pub name: String,
    /// The popup's description.
    pub description: String,
    /// What it does.
    pub kind: SlashKind,
}

/// Every command that can be typed, in the popup's order: the built-ins, the host's commands,
/// then prompt templates, then skills (Pi's order).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlashRegistry {
    commands: Vec<SlashCommand>,
}

impl Default for SlashRegistry {
    fn default() -> Self {
        SlashRegistry::new(Vec::new(), Vec::new())
    }
}

impl SlashRegistry {
    /// The built-ins plus `templates` and `skills`, each `(name, description)`. A template
    /// named like a built-in is left out: the built-in wins, as in Pi.
    pub fn new(templates: Vec<(String, String)>, skills: Vec<(String, String)>) -> Self {
        let mut commands: Vec<SlashCommand> = BUILTINS
            .iter()
            .map(|(builtin, name, description)| SlashCommand {
                name: (*name).to_owned(),
                description: (*description).to_owned(),
                kind: SlashKind::Builtin(*builtin),
            })
            .collect();
        for (name, description) in templates {
            if commands.iter().any(|c| c.name == name) {
                continue;
            }
            commands.push(SlashCommand {
                name,
                description,
                kind: SlashKind::Prompt,
            });
        }
        for (name, description) in skills {
            commands.push(SlashCommand {
                name: format!("skill:{name}"),
                description,
                kind: SlashKind::Prompt,
            });
        }
        SlashRegistry { commands }
    }

    /// The registry with the host's `commands` (`(name, description)`) after the built-ins, as
    /// Pi lists its extensions' commands; a name already taken is left out.
    pub fn with_extensions(mut self, commands: Vec<(String, String)>) -> Self {
        let at = BUILTINS.len().min(self.commands.len());
        let mut added = Vec::new();
        for (name, description) in commands {
            if self.commands.iter().any(|c| c.name == name) {
                continue;
            }
            added.push(SlashCommand {
                name,
                description,
                kind: SlashKind::Extension,
            });
        }
        self.commands.splice(at..at, added);
        self
    }

    /// Every command.
    pub fn commands(&self) -> &[SlashCommand] {
        &self.commands
    }

    /// The command called `name`.
    pub fn find(&self, name: &str) -> Option<&SlashCommand> {
        self.commands.iter().find(|c| c.name == name)
    }

    /// The indices of the commands matching `query` (what follows the `/`), best first; a
    /// name starting with the query comes before a scattered match.
    pub fn matching(&self, query: &str) -> Vec<usize> {
        let fuzzy = fuzzy_order(query, self.commands.iter().map(|c| c.name.clone()));
        let (mut prefix, rest): (Vec<usize>, Vec<usize>) = fuzzy.into_iter().partition(|&i| {
            self.commands
                .get(i)
                .is_some_and(|c| c.name.starts_with(query))
        });
        prefix.sort_unstable();
        prefix.extend(rest);
        prefix
    }
}

/// A submitted line read as a command: the name after `/` and the rest, trimmed. `None` when
/// the line does not start with `/` followed by a name.
pub fn parse(line: &str) -> Option<(&str, &str)> {
    let rest = line.trim_start().strip_prefix('/')?;
    let (name, args) = match rest.find(char::is_whitespace) {
        Some(i) => (&rest[..i], rest[i..].trim()),
        None => (rest, ""),
    };
    if name.is_empty() {
        return None;
    }
    Some((name, args))
}

/// The popup under the editor while a command name is typed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlashPopup {
    /// The text after `/`.
    pub query: String,
    /// The matching commands (indices into the registry), best first.
    pub items: Vec<usize>,
    /// The highlighted row.
    pub selected: usize,
}

/// The model picker: the picker and the models behind its rows.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelPicker {
    /// The list.
    pub picker: Picker,
    /// The models, in the picker's item order.
    pub models: Vec<ModelOption>,
}

/// What the commands are set up with: the registry, the keys and the theme. (The popup, the
/// model picker and the panels are the state's overlays.)
#[derive(Clone, Debug, Default)]
pub struct Commands {
    /// What `/` can complete to.
    pub registry: SlashRegistry,
    /// The key bindings in effect.
    pub keybindings: Arc<Keybindings>,
    /// The colour theme.
    pub theme: Theme,
    /// The `theme` setting is `auto` (and `NO_COLOR` unset): a background reported by the
    /// terminal decides the theme.
    pub theme_auto: bool,
}
