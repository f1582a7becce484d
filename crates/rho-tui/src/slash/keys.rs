//! The commands' keys: the model picker and panels take every key while open; bound keys are
//! resolved through the user's keybindings; the popup's Up/Down/Tab/Enter/Escape; a submitted
//! `/` line turned into what it asks for.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use rho_ai::ThinkingLevel;

use super::{Builtin, Panel, SettingChange, SlashAction, SlashKind, SlashPopup, parse};
use crate::app::App;
use crate::keybindings::Resolved;
use crate::keys::Command;
use crate::picker::PickerOutcome;
use crate::sessions::SwitchRequest;
use crate::theme::Theme;
use crate::transcript::Entry;

const LEVELS: &[(&str, ThinkingLevel)] = &[
    ("off", ThinkingLevel::Off),
    ("minimal", ThinkingLevel::Minimal),
    ("low", ThinkingLevel::Low),
    ("medium", ThinkingLevel::Medium),
    ("high", ThinkingLevel::High),
    ("xhigh", ThinkingLevel::Xhigh),
];

impl App {
    /// Keys for the model picker or a panel while one is open.
    pub(crate) fn commands_overlay_key(&mut self, key: KeyEvent) -> Option<Vec<Command>> {
        if let Some(panel) = &mut self.commands.panel {
            if !panel.handle_key(key) {
                self.commands.panel = None;
            }
            return Some(Vec::new());
        }
        let open = self.commands.model_picker.as_mut()?;
        match open.picker.handle_key(key) {
            PickerOutcome::None => Some(Vec::new()),
            PickerOutcome::Cancelled => {
                self.commands.model_picker = None;
                Some(Vec::new())
            }
            PickerOutcome::Picked(index) => {
                let model = open.models.get(index).cloned();
                self.commands.model_picker = None;
                Some(
                    model.map_or_else(Vec::new, |m| vec![Command::Slash(SlashAction::SetModel(m))]),
                )
            }
        }
    }

    /// The key as the user's bindings mean it: `Ok` to handle, `Err` with what an action
    /// without a default key asks for (or nothing, for a key taken away).
    pub(crate) fn bound_key(&mut self, key: KeyEvent) -> Result<KeyEvent, Vec<Command>> {
        match self.commands.keybindings.resolve(key) {
            Resolved::Key(key) => Ok(key),
            Resolved::Unbound => Err(Vec::new()),
            Resolved::Action(id) => Err(match id {
                "app.session.new" => vec![Command::SwitchSession(SwitchRequest::New)],
                "app.session.tree" => vec![Command::OpenTree],
                "app.session.fork" => vec![Command::OpenForkPicker],
                "app.session.resume" => vec![Command::OpenSessionPicker],
                _ => Vec::new(),
            }),
        }
    }

    /// Ctrl+L and the popup's keys; `None` lets the key through to the editor.
    pub(crate) fn slash_key(&mut self, key: KeyEvent) -> Option<Vec<Command>> {
        // An approval dialog takes every key while it is up.
        if !self.approvals.is_empty() {
            return None;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl && key.code == KeyCode::Char('l') {
            return Some(vec![Command::Slash(SlashAction::OpenModelPicker(
                String::new(),
            ))]);
        }
        let popup = self.commands.popup.as_mut()?;
        if key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
        {
            return None;
        }
        let len = popup.items.len();
        match key.code {
            KeyCode::Esc => {
                self.commands.popup = None;
                self.commands.dismissed = Some(self.editor.text().to_owned());
            }
            KeyCode::Up if len > 0 => {
                popup.selected = popup.selected.checked_sub(1).unwrap_or(len - 1)
            }
            KeyCode::Down if len > 0 => popup.selected = (popup.selected + 1) % len,
            KeyCode::Tab => {
                let name = self.popup_choice()?;
                self.editor.set_text(format!("/{name} "));
                self.commands.popup = None;
            }
            // Enter runs the highlighted command (completed first when only partly typed).
            KeyCode::Enter => {
                if let Some(name) = self.popup_choice() {
                    self.editor.set_text(format!("/{name}"));
                }
                self.commands.popup = None;
                return None;
            }
            _ => return None,
        }
        Some(Vec::new())
    }

    fn popup_choice(&self) -> Option<String> {
        let popup = self.commands.popup.as_ref()?;
        let index = popup.items.get(popup.selected)?;
        Some(self.commands.registry.commands().get(*index)?.name.clone())
    }

    /// Opens, updates or closes the popup after an edit: open while the editor holds `/` and
    /// part of a name, nothing else.
    pub(crate) fn refresh_slash(&mut self) {
        let text = self.editor.text();
        let query = text
            .strip_prefix('/')
            .filter(|q| !q.contains(char::is_whitespace) && self.editor.cursor() == text.len());
        let Some(query) = query else {
            self.commands.popup = None;
            self.commands.dismissed = None;
            return;
        };
        if self.commands.dismissed.as_deref() == Some(text) {
            return;
        }
        self.commands.dismissed = None;
        let items = self.commands.registry.matching(query);
        let selected = match &self.commands.popup {
            Some(open) if open.query == query => open.selected.min(items.len().saturating_sub(1)),
            _ => 0,
        };
        self.commands.popup = Some(SlashPopup {
            query: query.to_owned(),
            items,
            selected,
        });
    }

    /// A submitted line naming one of rho's own commands: what it asks for. `None` for any
    /// other line (skills and templates go to the session as prompts, which expands them).
    pub(crate) fn slash_submit(&mut self, text: &str) -> Option<Vec<Command>> {
        let (name, args) = parse(text)?;
        let SlashKind::Builtin(builtin) = self.commands.registry.find(name)?.kind else {
            return None;
        };
        self.commands.popup = None;
        let args = args.to_owned();
        let optional = |args: String| (!args.is_empty()).then_some(args);
        Some(match builtin {
            Builtin::Settings => self.settings_command(&args),
            Builtin::Model => vec![Command::Slash(SlashAction::OpenModelPicker(args))],
            Builtin::Thinking => self.thinking_command(&args),
            Builtin::Export => vec![Command::Slash(SlashAction::Export(optional(args)))],
            Builtin::Copy => vec![Command::Slash(SlashAction::Copy)],
            Builtin::Session => vec![Command::Slash(SlashAction::Session)],
            Builtin::Hotkeys => {
                self.commands.panel = Some(self.hotkeys_panel());
                Vec::new()
            }
            Builtin::Fork => vec![Command::OpenForkPicker],
            Builtin::Tree => vec![Command::OpenTree],
            Builtin::New => vec![Command::SwitchSession(SwitchRequest::New)],
            Builtin::Compact => vec![Command::Slash(SlashAction::Compact(optional(args)))],
            Builtin::Resume => vec![Command::OpenSessionPicker],
            Builtin::Help => {
                let rows = self
                    .commands
                    .registry
                    .commands()
                    .iter()
                    .map(|c| (format!("/{}", c.name), c.description.clone()))
                    .collect();
                self.commands.panel = Some(Panel::table("Commands", rows));
                Vec::new()
            }
            Builtin::Quit => {
                self.exit = true;
                Vec::new()
            }
        })
    }

    /// `/hotkeys`: every action with its keys.
    pub fn hotkeys_panel(&self) -> Panel {
        let rows = self
            .commands
            .keybindings
            .list()
            .map(|(action, keys)| {
                let keys: Vec<String> = keys.iter().map(ToString::to_string).collect();
                let keys = if keys.is_empty() {
                    "(none)".to_owned()
                } else {
                    keys.join(", ")
                };
                (keys, action.description.to_owned())
            })
            .collect();
        Panel::table("Keyboard shortcuts", rows)
    }

    /// `/settings` shows them; `/settings thinking <level>`, `/settings auto-compaction on|off`
    /// and `/settings theme dark|light` change one now and keep it in the global settings file,
    /// as Pi's settings menu does.
    fn settings_command(&mut self, args: &str) -> Vec<Command> {
        let (name, value) = args.split_once(char::is_whitespace).unwrap_or((args, ""));
        let value = value.trim();
        let save = |change| Command::Slash(SlashAction::SaveSetting(change));
        match (name, value) {
            ("", _) => vec![Command::Slash(SlashAction::Settings)],
            // As `/thinking`: the host keeps a level that changed (`ThinkingHook`).
            ("thinking", level) => self.thinking_command(level),
            ("auto-compaction", "on" | "off") => {
                let enabled = value == "on";
                vec![
                    Command::Slash(SlashAction::SetAutoCompaction(enabled)),
                    save(SettingChange::AutoCompaction(enabled)),
                ]
            }
            ("theme", "dark" | "light") => {
                // NO_COLOR wins over any theme, as it does at start-up.
                if self.commands.theme != Theme::NoColor {
                    self.commands.theme = if value == "light" {
                        Theme::Light
                    } else {
                        Theme::Dark
                    };
                }
                self.transcript
                    .push(Entry::Notice(format!("Theme: {value}")));
                vec![save(SettingChange::Theme(value.to_owned()))]
            }
            _ => {
                self.transcript.push(Entry::Error(format!(
                    "Unknown setting \"{args}\" (try: thinking <level>, auto-compaction on|off, theme dark|light)"
                )));
                Vec::new()
            }
        }
    }

    fn thinking_command(&mut self, args: &str) -> Vec<Command> {
        let names: Vec<&str> = LEVELS.iter().map(|(n, _)| *n).collect();
        if args.is_empty() {
            let current = LEVELS
                .iter()
                .find(|(_, l)| *l == self.status.info.thinking)
                .map_or("off", |(n, _)| n);
            self.transcript.push(Entry::Notice(format!(
                "Thinking level: {current} (one of: {})",
                names.join(", ")
            )));
            return Vec::new();
        }
        let Some(&(_, level)) = LEVELS.iter().find(|(n, _)| *n == args) else {
            self.transcript.push(Entry::Error(format!(
                "Unknown thinking level \"{args}\" (one of: {})",
                names.join(", ")
            )));
            return Vec::new();
        };
        if !self.status.info.reasoning && level != ThinkingLevel::Off {
            self.transcript.push(Entry::Error(
                "The current model does not support thinking".to_owned(),
            ));
            return Vec::new();
        }
        self.status.info.thinking = level;
        vec![Command::SetThinking(level)]
    }
}
