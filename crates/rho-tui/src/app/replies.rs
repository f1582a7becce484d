//! What the work beside the state answered: the command host's results, the `!cmd` runs, the
//! allow rules of an "always" answer.

use std::path::Path;
use std::time::Instant;

use super::App;
use super::input::{CommandsReply, ShellRun};
use crate::picker::{Picker, PickerItem};
use crate::slash::{ModelOption, ModelPicker, Panel};
use crate::transcript::{ToolOrigin, ToolStatus};
use crate::user_shell::{ShellOutput, shown_output};

impl App {
    /// The command host answered a `/` command's work.
    pub(super) fn commands_reply(&mut self, reply: CommandsReply) {
        match reply {
            CommandsReply::Models { models, query } => self.open_model_picker(models, &query),
            CommandsReply::ModelSet { model, result } => match result {
                Ok(thinking) => {
                    self.status.set_model(&model, thinking);
                    self.conversation
                        .notice(format!("Model: {}/{}", model.provider, model.id));
                }
                Err(error) => self.conversation.error(error),
            },
            CommandsReply::SessionStats(rows) => {
                self.overlays.open_panel(Panel::table("Session", rows));
            }
            CommandsReply::Settings(mut rows) => {
                rows.push((
                    "theme (in effect)".to_owned(),
                    self.ui.theme.name().to_owned(),
                ));
                self.overlays.open_panel(Panel::table("Settings", rows));
            }
            CommandsReply::AutoCompaction(enabled) => {
                self.status.set_auto_compact(enabled);
                let state = if enabled { "on" } else { "off" };
                self.conversation
                    .notice(format!("Auto-compaction: {state}"));
            }
            CommandsReply::Exported(Ok(written)) => {
                self.conversation
                    .notice(format!("Session exported to: {written}"));
            }
            CommandsReply::Copied(Ok(())) => {
                self.conversation
                    .notice("Copied last agent message to clipboard");
            }
            CommandsReply::Exported(Err(error)) => self.conversation.error(error),
            CommandsReply::Copied(Err(error)) => {
                self.conversation.error(format!("Cannot copy: {error}"));
            }
        }
    }

    /// Opens the picker over `models`, the one in use highlighted, `query` typed in.
    fn open_model_picker(&mut self, models: Vec<ModelOption>, query: &str) {
        if models.is_empty() {
            self.conversation
                .error("No models available. Set an API key or add models to models.json.");
            return;
        }
        let items = models
            .iter()
            .map(|m| PickerItem::new(m.id.clone(), vec![format!("[{}]", m.provider)]))
            .collect();
        let info = self.status.info();
        let current = models
            .iter()
            .position(|m| m.provider == info.provider && m.id == info.model_id);
        let mut picker = Picker::new("Select model", items);
        if let Some(current) = current {
            picker = picker.with_selected(current);
        }
        if !query.is_empty() {
            picker.set_query(query);
        }
        self.overlays
            .open_model_picker(ModelPicker { picker, models });
    }

    /// "Always" wrote its allow rules (or could not: the command runs this once anyway).
    pub(super) fn rules_written(&mut self, rules_file: &Path, result: Result<Vec<String>, String>) {
        match result {
            Ok(prefixes) => self.conversation.notice(format!(
                "Always allowed: added {} to {}",
                prefixes
                    .iter()
                    .map(|p| format!("allow \"{p}\""))
                    .collect::<Vec<_>>()
                    .join(", "),
                rules_file.display()
            )),
            Err(error) => self
                .conversation
                .error(format!("Allowed for this session only: {error}")),
        }
    }

    /// A `!cmd` runs: shown as a running `bash` block, the conversation back at the bottom.
    pub(super) fn shell_started(&mut self, run: ShellRun, now: Instant) {
        let mut args = serde_json::Map::new();
        args.insert("command".into(), run.line.command.into());
        self.conversation.tool_started(
            ToolOrigin::UserShell,
            run.id.to_string(),
            "bash".to_owned(),
            serde_json::Value::Object(args),
            now,
        );
        self.conversation.scroll_to_bottom();
    }

    /// A `!cmd` ended: its output (or why it could not run) is shown, and a result is held to
    /// be recorded once no prompt runs.
    pub(super) fn shell_finished(
        &mut self,
        run: ShellRun,
        result: Result<ShellOutput, String>,
        now: Instant,
    ) {
        if let Some(tool) = self
            .conversation
            .tool_mut(ToolOrigin::UserShell, &run.id.to_string())
        {
            tool.elapsed = Some(now.saturating_duration_since(tool.started));
            match &result {
                Ok(output) => {
                    tool.status = match (output.cancelled, output.exit_code) {
                        (true, _) => ToolStatus::Cancelled,
                        (false, Some(0)) => ToolStatus::Done,
                        _ => ToolStatus::Failed,
                    };
                    tool.output = shown_output(output);
                }
                Err(error) => {
                    tool.status = ToolStatus::Failed;
                    tool.output = error.clone();
                }
            }
        }
        if let Ok(output) = result {
            self.shells.hold(run.line, output);
        }
    }
}
