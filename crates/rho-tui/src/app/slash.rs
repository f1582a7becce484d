//! The commands' keys: the model picker and panels take every key while open; bound keys are
//! resolved through the user's keybindings; the popup's Up/Down/Tab/Enter/Escape; a submitted
//! `/` line turned into what it asks for.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use rho_ai::ThinkingLevel;

use super::App;
use super::input::Effect;
use crate::keybindings::Resolved;
use crate::sessions::SwitchRequest;
use crate::slash::{Builtin, Panel, SettingChange, SlashAction, SlashKind, SlashPopup, parse};
use crate::theme::Theme;

impl App {
    /// Keys for the model picker or a panel while one is open.
    pub(super) fn commands_overlay_key(&mut self, key: KeyEvent) -> Option<Vec<Effect>> {
        if self.overlays.panel_key(key) {
            return Some(Vec::new());
        }
        let picked = self.overlays.model_picker_key(key)?;
        Some(picked.map_or_else(Vec::new, |model| {
            vec![Effect::Slash(SlashAction::SetModel(model))]
        }))
    }

    /// The key as the user's bindings mean it: `Ok` to handle, `Err` with what an action
    /// without a default key asks for (or nothing, for a key taken away).
    pub(super) fn bound_key(&mut self, key: KeyEvent) -> Result<KeyEvent, Vec<Effect>> {
        match self.ui.keybindings.resolve(key) {
            Resolved::Key(key) => Ok(key),
            Resolved::Unbound => Err(Vec::new()),
            Resolved::Action(id) => Err(match id {
                "app.session.new" => {
                    self.sessions_effect(Effect::SwitchSession(SwitchRequest::New))
                }
                "app.session.tree" => self.sessions_effect(Effect::OpenTree),
                "app.session.fork" => self.sessions_effect(Effect::OpenForkPicker),
                "app.session.resume" => self.sessions_effect(Effect::OpenSessionPicker),
                _ => Vec::new(),
            }),
        }
    }

    /// Ctrl+L and the popup's keys; `None` lets the key through to the editor.
    pub(super) fn slash_key(&mut self, key: KeyEvent) -> Option<Vec<Effect>> {
        // An approval dialog takes every key while it is up.
        if !self.overlays.approvals().is_empty() {
            return None;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl && key.code == KeyCode::Char('l') {
            return Some(vec![Effect::Slash(SlashAction::OpenModelPicker(
                String::new(),
            ))]);
        }
        let len = self.overlays.popup()?.items.len();
        if key
            .modifiers
            .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
        {
            return None;
        }
        match key.code {
            KeyCode::Esc => self.overlays.dismiss_popup(self.editor.text()),
            KeyCode::Up if len > 0 => {
                if let Some(popup) = self.overlays.popup_mut() {
                    popup.selected = popup.selected.checked_sub(1).unwrap_or(len - 1);
                }
            }
            KeyCode::Down if len > 0 => {
                if let Some(popup) = self.overlays.popup_mut() {
                    popup.selected = (popup.selected + 1) % len;
                }
            }
            KeyCode::Tab => {
                let name = self.popup_choice()?;
                self.editor.set_text(format!("/{name} "));
                self.overlays.take_popup_down();
            }
            // Enter runs the highlighted command (completed first when only partly typed).
            KeyCode::Enter => {
                if let Some(name) = self.popup_choice() {
                    self.editor.set_text(format!("/{name}"));
                }
                self.overlays.take_popup_down();
                return None;
            }
            _ => return None,
        }
        Some(Vec::new())
    }

    fn popup_choice(&self) -> Option<String> {
        let popup = self.overlays.popup()?;
        let index = popup.items.get(popup.selected)?;
        Some(self.ui.registry.commands().get(*index)?.name.clone())
    }

    /// Opens, updates or closes the popup after an edit: open while the editor holds `/` and
    /// part of a name, nothing else.
    pub(super) fn refresh_slash(&mut self) {
        let text = self.editor.text();
        let query = text
            .strip_prefix('/')
            .filter(|q| !q.contains(char::is_whitespace) && self.editor.cursor() == text.len());
        let Some(query) = query else {
            self.overlays.close_popup();
            return;
        };
        if self.overlays.dismissed() == Some(text) {
            return;
        }
        let items = self.ui.registry.matching(query);
        let selected = match self.overlays.popup() {
            Some(open) if open.query == query => open.selected.min(items.len().saturating_sub(1)),
            _ => 0,
        };
        let popup = SlashPopup {
            query: query.to_owned(),
            items,
            selected,
        };
        self.overlays.show_popup(popup);
    }

    /// A submitted line naming one of rho's own commands: what it asks for. `None` for any
    /// other line (skills and templates go to the session as prompts, which expands them).
    pub(super) fn slash_submit(&mut self, text: &str) -> Option<Vec<Effect>> {
        let (name, args) = parse(text)?;
        let builtin = match self.ui.registry.find(name)?.kind {
            SlashKind::Builtin(builtin) => builtin,
            SlashKind::Extension => {
                self.overlays.take_popup_down();
                return Some(vec![Effect::Extension {
                    name: name.to_owned(),
                    args: args.to_owned(),
                }]);
            }
            SlashKind::Prompt => return None,
        };
        self.overlays.take_popup_down();
        let args = args.to_owned();
        let optional = |args: String| (!args.is_empty()).then_some(args);
        let slash = |action| vec![Effect::Slash(action)];
        Some(match builtin {
            Builtin::Settings => self.settings_command(&args),
            Builtin::Model => slash(SlashAction::OpenModelPicker(args)),
            Builtin::Thinking => self.thinking_command(&args),
            Builtin::Export => slash(SlashAction::Export(optional(args))),
            Builtin::Copy => slash(SlashAction::Copy),
            Builtin::Session => slash(SlashAction::Session),
            Builtin::Hotkeys => {
                self.overlays.open_panel(self.hotkeys_panel());
                Vec::new()
            }
            Builtin::Fork => self.sessions_effect(Effect::OpenForkPicker),
            Builtin::Tree => self.sessions_effect(Effect::OpenTree),
            Builtin::New => self.sessions_effect(Effect::SwitchSession(SwitchRequest::New)),
            Builtin::Compact => slash(SlashAction::Compact(optional(args))),
            Builtin::Resume => self.sessions_effect(Effect::OpenSessionPicker),
            Builtin::Help => {
                let rows = self
                    .ui
                    .registry
                    .commands()
                    .iter()
                    .map(|c| (format!("/{}", c.name), c.description.clone()))
                    .collect();
                self.overlays.open_panel(Panel::table("Commands", rows));
                Vec::new()
            }
            Builtin::Quit => vec![Effect::Exit],
        })
    }

    /// `/hotkeys`: every action with its keys.
    fn hotkeys_panel(&self) -> Panel {
        let rows = self
            .ui
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
    fn settings_command(&mut self, args: &str) -> Vec<Effect> {
        let (name, value) = args.split_once(char::is_whitespace).unwrap_or((args, ""));
        let value = value.trim();
        let save = |change| Effect::Slash(SlashAction::SaveSetting(change));
        match (name, value) {
            ("", _) => vec![Effect::Slash(SlashAction::Settings)],
            // As `/thinking`: the host keeps a level that changed (`ThinkingHook`).
            ("thinking", level) => self.thinking_command(level),
            ("auto-compaction", "on" | "off") => {
                let enabled = value == "on";
                vec![
                    Effect::Slash(SlashAction::SetAutoCompaction(enabled)),
                    save(SettingChange::AutoCompaction(enabled)),
                ]
            }
            ("theme", "dark" | "light") => {
                // NO_COLOR wins over any theme, as it does at start-up.
                if self.ui.theme != Theme::NoColor {
                    self.ui.theme = if value == "light" {
                        Theme::Light
                    } else {
                        Theme::Dark
                    };
                }
                self.conversation.notice(format!("Theme: {value}"));
                vec![save(SettingChange::Theme(value.to_owned()))]
            }
            _ => {
                self.conversation.error(format!(
                    "Unknown setting \"{args}\" (try: thinking <level>, auto-compaction on|off, theme dark|light)"
                ));
                Vec::new()
            }
        }
    }

    fn thinking_command(&mut self, args: &str) -> Vec<Effect> {
        let names: Vec<&str> = ThinkingLevel::ALL.map(ThinkingLevel::as_str).to_vec();
        if args.is_empty() {
            let current = self.status.info().thinking.as_str();
            self.conversation.notice(format!(
                "Thinking level: {current} (one of: {})",
                names.join(", ")
            ));
            return Vec::new();
        }
        let Some(level) = ThinkingLevel::parse(args) else {
            self.conversation.error(format!(
                "Unknown thinking level \"{args}\" (one of: {})",
                names.join(", ")
            ));
            return Vec::new();
        };
        if !self.status.info().reasoning && level != ThinkingLevel::Off {
            self.conversation
                .error("The current model does not support thinking");
            return Vec::new();
        }
        self.status.set_thinking(level);
        vec![Effect::SetThinking(level)]
    }
}
