//! `RHO_HOME/keybindings.json` in Pi's format: an object from action ids (`app.model.select`)
//! to a key (`"ctrl+l"`) or a list of keys, overriding that action's defaults.
//!
//! The key handling in `keys.rs` is written against the default keys; a pressed key is
//! [`Keybindings::resolve`]d first: a key the user bound to an action becomes that action's
//! default key, and a default key the user took away from its action is dropped.

use std::path::Path;

use crossterm::event::KeyEvent;
use serde_json::Value;

mod key_spec;

pub use key_spec::KeySpec;

/// The keybindings file's name inside `RHO_HOME`.
pub const FILE_NAME: &str = "keybindings.json";

/// One action that can be bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Action {
    /// Pi's namespaced id.
    pub id: &'static str,
    /// The default keys, in Pi's syntax.
    pub defaults: &'static [&'static str],
    /// What it does (`/hotkeys`).
    pub description: &'static str,
}

const fn action(
    id: &'static str,
    defaults: &'static [&'static str],
    description: &'static str,
) -> Action {
    Action {
        id,
        defaults,
        description,
    }
}

/// The actions of the editor and the application that rho carries out, with Pi's defaults.
pub const ACTIONS: &[Action] = &[
    action("tui.editor.cursorUp", &["up"], "Move cursor up"),
    action("tui.editor.cursorDown", &["down"], "Move cursor down"),
    action(
        "tui.editor.cursorLeft",
        &["left", "ctrl+b"],
        "Move cursor left",
    ),
    action(
        "tui.editor.cursorRight",
        &["right", "ctrl+f"],
        "Move cursor right",
    ),
    action(
        "tui.editor.cursorLineStart",
        &["home", "ctrl+a"],
        "Move to line start",
    ),
    action(
        "tui.editor.cursorLineEnd",
        &["end", "ctrl+e"],
        "Move to line end",
    ),
    action("tui.editor.pageUp", &["pageUp"], "Scroll up by page"),
    action("tui.editor.pageDown", &["pageDown"], "Scroll down by page"),
    action(
        "tui.editor.deleteCharBackward",
        &["backspace"],
        "Delete character backward",
    ),
    action(
        "tui.editor.deleteCharForward",
        &["delete"],
        "Delete character forward",
    ),
    action(
        "tui.editor.deleteWordBackward",
        &["ctrl+w", "alt+backspace"],
        "Delete word backward",
    ),
    action(
        "tui.editor.deleteToLineStart",
        &["ctrl+u"],
        "Delete to line start",
    ),
    action(
        "tui.editor.deleteToLineEnd",
        &["ctrl+k"],
        "Delete to line end",
    ),
    action(
        "tui.input.newLine",
        &["shift+enter", "ctrl+j"],
        "Insert new line",
    ),
    action("tui.input.submit", &["enter"], "Submit input"),
    action("tui.input.tab", &["tab"], "Tab / autocomplete"),
    action("app.interrupt", &["escape"], "Cancel / abort"),
    action("app.clear", &["ctrl+c"], "Clear editor"),
    action("app.exit", &["ctrl+d"], "Exit (when editor empty)"),
    action("app.model.select", &["ctrl+l"], "Open model selector"),
    action("app.thinking.cycle", &["shift+tab"], "Cycle thinking level"),
    action(
        "app.thinking.toggle",
        &["ctrl+t"],
        "Collapse or expand thinking blocks",
    ),
    action(
        "app.tools.expand",
        &["ctrl+o"],
        "Collapse or expand tool output",
    ),
    action(
        "app.message.followUp",
        &["alt+enter"],
        "Queue follow-up message",
    ),
    action("app.session.new", &[], "Start a new session (/new)"),
    action(
        "app.session.tree",
        &[],
        "Open session tree navigator (/tree)",
    ),
    action("app.session.fork", &[], "Fork current session (/fork)"),
    action(
        "app.session.resume",
        &[],
        "Open session resume picker (/resume)",
    ),
];

/// Why a keybindings file was not used.
#[derive(Debug, thiserror::Error)]
pub enum KeybindingsError {
    /// The file exists but cannot be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// Not JSON, or not an object.
    #[error("{0}")]
    Json(String),
    /// A value that is neither a key nor a list of keys.
    #[error("\"{action}\": expected a key or a list of keys")]
    NotKeys {
        /// The action id.
        action: String,
    },
    /// A key that cannot be parsed.
    #[error("\"{action}\": unknown key \"{key}\"")]
    BadKey {
        /// The action id.
        action: String,
        /// The key as written.
        key: String,
    },
}

/// What a pressed key means once the user's bindings are applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolved {
    /// Handle this key (the pressed one, or the default key of the action it is bound to).
    Key(KeyEvent),
    /// An action with no default key (`app.session.new`…), by id.
    Action(&'static str),
    /// A default key the user moved away from its action: it does nothing now.
    Unbound,
}

/// The effective bindings: each action's keys.
#[derive(Clone, Debug, PartialEq)]
pub struct Keybindings {
    keys: Vec<(Action, Vec<KeySpec>)>,
}

impl Default for Keybindings {
    fn default() -> Self {
        Keybindings::defaults()
    }
}

impl Keybindings {
    /// Pi's defaults.
    pub fn defaults() -> Self {
        let keys = ACTIONS
            .iter()
            .map(|action| {
                let keys = action
                    .defaults
                    .iter()
                    .filter_map(|k| KeySpec::parse(k))
                    .collect();
                (*action, keys)
            })
            .collect();
        Keybindings { keys }
    }

    /// Reads `path`: a missing file is the defaults; a bad one is the defaults and the reason.
    pub fn load(path: &Path) -> (Self, Option<KeybindingsError>) {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return (Keybindings::defaults(), None);
            }
            Err(source) => {
                let path = path.display().to_string();
                return (
                    Keybindings::defaults(),
                    Some(KeybindingsError::Read { path, source }),
                );
            }
        };
        match Keybindings::from_json(&text) {
            Ok(bindings) => (bindings, None),
            Err(error) => (Keybindings::defaults(), Some(error)),
        }
    }

    /// The defaults overridden by a file's text. Ids rho does not carry out are ignored (Pi's
    /// other actions, or an extension's).
    pub fn from_json(text: &str) -> Result<Self, KeybindingsError> {
        let value: Value =
            serde_json::from_str(text).map_err(|e| KeybindingsError::Json(e.to_string()))?;
        let Value::Object(map) = value else {
            return Err(KeybindingsError::Json(
                "expected an object of action ids".to_owned(),
            ));
        };
        let mut bindings = Keybindings::defaults();
        for (id, value) in map {
            let texts: Vec<&str> = match &value {
                Value::String(key) => vec![key.as_str()],
                Value::Array(keys) => keys
                    .iter()
                    .map(|k| {
                        k.as_str()
                            .ok_or_else(|| KeybindingsError::NotKeys { action: id.clone() })
                    })
                    .collect::<Result<_, _>>()?,
                _ => return Err(KeybindingsError::NotKeys { action: id }),
            };
            let keys = texts
                .iter()
                .map(|text| {
                    KeySpec::parse(text).ok_or_else(|| KeybindingsError::BadKey {
                        action: id.clone(),
                        key: (*text).to_owned(),
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            if let Some((_, slot)) = bindings.keys.iter_mut().find(|(a, _)| a.id == id) {
                *slot = keys;
            }
        }
        Ok(bindings)
    }

    /// The keys bound to the action `id`.
    pub fn keys(&self, id: &str) -> &[KeySpec] {
        self.keys
            .iter()
            .find(|(a, _)| a.id == id)
            .map_or(&[], |(_, keys)| keys.as_slice())
    }

    /// Every action with its keys, in Pi's order (`/hotkeys`).
    pub fn list(&self) -> impl Iterator<Item = (&Action, &[KeySpec])> {
        self.keys.iter().map(|(a, keys)| (a, keys.as_slice()))
    }

    /// What `key` means under these bindings. A key the user gave an action in
    /// `keybindings.json` wins over another action that has it by default.
    pub fn resolve(&self, key: KeyEvent) -> Resolved {
        let spec = KeySpec::of(&key);
        let defaults_of = |action: &Action| -> Vec<KeySpec> {
            action
                .defaults
                .iter()
                .filter_map(|k| KeySpec::parse(k))
                .collect()
        };
        let bound = |by_user: bool| {
            self.keys.iter().find(|(action, keys)| {
                keys.contains(&spec) && defaults_of(action).contains(&spec) != by_user
            })
        };
        if let Some((action, _)) = bound(true) {
            return match defaults_of(action).first() {
                Some(default) => Resolved::Key(default.event()),
                None => Resolved::Action(action.id),
            };
        }
        if bound(false).is_some() {
            return Resolved::Key(key);
        }
        let taken_away = ACTIONS.iter().any(|a| {
            a.defaults
                .iter()
                .filter_map(|k| KeySpec::parse(k))
                .any(|k| k == spec)
        });
        if taken_away {
            Resolved::Unbound
        } else {
            Resolved::Key(key)
        }
    }
}
