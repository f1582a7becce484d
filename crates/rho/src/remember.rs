//! What a run keeps for the next one, as Pi's `AgentSession` does (pi-reference §8.8: "writes
//! (model/thinking/mode changes) go to the global file"): a model chosen while rho runs
//! (`/model`, RPC `set_model` / `cycle_model`) becomes `defaultProvider` / `defaultModel`; a
//! thinking level that changed becomes `defaultThinkingLevel` (unless it fell to `off` on a
//! model without reasoning); the steering and follow-up modes and the auto-compaction and
//! auto-retry switches a client sets are kept too. Flags on the command line are never
//! written. The file is `RHO_HOME/settings.json`, changed key by key (`settings_save`).

use std::path::{Path, PathBuf};

use rho_agent::QueueMode;
use rho_ai::ThinkingLevel;
use rho_host::settings::SETTINGS_FILE;
use serde_json::Value;

use crate::settings_save::{SaveError, save_settings};

/// The global settings file the choices go to; without a home they are kept for this run only.
#[derive(Clone, Debug)]
pub struct Remember {
    file: Option<PathBuf>,
}

impl Remember {
    /// Writes to `home`'s settings file; `None` writes nothing.
    pub fn in_home(home: Option<&Path>) -> Self {
        Remember {
            file: home.map(|home| home.join(SETTINGS_FILE)),
        }
    }

    /// A model switched to.
    pub fn model(&self, provider: &str, id: &str) -> Result<(), SaveError> {
        self.save(&[
            (&["defaultProvider"], Value::from(provider)),
            (&["defaultModel"], Value::from(id)),
        ])
    }

    /// A thinking level that changed; `reasons` is whether the model has reasoning. Like Pi,
    /// the level a model without reasoning falls to (`off`) does not replace the default.
    pub fn thinking_level(&self, level: ThinkingLevel, reasons: bool) -> Result<(), SaveError> {
        if !reasons && level == ThinkingLevel::Off {
            return Ok(());
        }
        self.save(&[(&["defaultThinkingLevel"], to_value(level))])
    }

    /// The steering mode a client set.
    pub fn steering_mode(&self, mode: QueueMode) -> Result<(), SaveError> {
        self.save(&[(&["steeringMode"], to_value(mode))])
    }

    /// The follow-up mode a client set.
    pub fn follow_up_mode(&self, mode: QueueMode) -> Result<(), SaveError> {
        self.save(&[(&["followUpMode"], to_value(mode))])
    }

    /// Auto-compaction switched on or off.
    pub fn auto_compaction(&self, enabled: bool) -> Result<(), SaveError> {
        self.save(&[(&["compaction", "enabled"], Value::Bool(enabled))])
    }

    /// The theme picked in `/settings` (`dark` or `light`).
    pub fn theme(&self, theme: &str) -> Result<(), SaveError> {
        self.save(&[(&["theme"], Value::from(theme))])
    }

    /// Auto-retry switched on or off.
    pub fn auto_retry(&self, enabled: bool) -> Result<(), SaveError> {
        self.save(&[(&["retry", "enabled"], Value::Bool(enabled))])
    }

    fn save(&self, changes: &[(&[&str], Value)]) -> Result<(), SaveError> {
        match &self.file {
            Some(file) => save_settings(file, changes),
            None => Ok(()),
        }
    }
}

/// A level's or mode's name as the settings spell it (their serde names).
fn to_value(value: impl serde::Serialize) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn saved(home: &Path) -> Value {
        let text = std::fs::read_to_string(home.join(SETTINGS_FILE)).unwrap_or_default();
        serde_json::from_str(&text).unwrap_or(Value::Null)
    }

    #[test]
    fn each_choice_lands_under_pis_key_and_keeps_the_others() {
        let home = tempfile::tempdir().unwrap();
        std::fs::write(home.path().join(SETTINGS_FILE), r#"{"theme": "light"}"#).unwrap();
        let remember = Remember::in_home(Some(home.path()));
        remember.model("anthropic", "claude-sonnet-4-5").unwrap();
        remember.thinking_level(ThinkingLevel::High, true).unwrap();
        remember.steering_mode(QueueMode::All).unwrap();
        remember.follow_up_mode(QueueMode::OneAtATime).unwrap();
        remember.auto_compaction(false).unwrap();
        remember.auto_retry(false).unwrap();
        assert_eq!(
            saved(home.path()),
            serde_json::json!({
                "theme": "light",
                "defaultProvider": "anthropic",
                "defaultModel": "claude-sonnet-4-5",
                "defaultThinkingLevel": "high",
                "steeringMode": "all",
                "followUpMode": "one-at-a-time",
                "compaction": {"enabled": false},
                "retry": {"enabled": false},
            })
        );
    }

    #[test]
    fn off_on_a_model_without_reasoning_keeps_the_default_level() {
        let home = tempfile::tempdir().unwrap();
        let remember = Remember::in_home(Some(home.path()));
        remember.thinking_level(ThinkingLevel::Low, true).unwrap();
        remember.thinking_level(ThinkingLevel::Off, false).unwrap();
        assert_eq!(saved(home.path())["defaultThinkingLevel"], "low");
        remember.thinking_level(ThinkingLevel::Off, true).unwrap();
        assert_eq!(saved(home.path())["defaultThinkingLevel"], "off");
    }

    #[test]
    fn without_a_home_nothing_is_written() {
        assert!(Remember::in_home(None).model("p", "m").is_ok());
    }
}
