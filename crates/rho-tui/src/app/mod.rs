//! The interactive mode's state and its one reducer. Every change enters through
//! [`App::update`] as an [`Input`] (a key, a paste, a session event, the clock, the result of
//! work done beside the state) and comes out as the [`Effect`]s the event loop must carry out;
//! the view reads the state through the accessors below. So a whole run can be replayed in a
//! test without a terminal, and who may change what is written in one place per concern:
//!
//! - `Conversation`: the entries, the scroll, what is expanded;
//! - `RunState`: a prompt running, the prompts still to send, a switch in flight, the double
//!   presses;
//! - [`Status`]: the status line's facts;
//! - [`Editor`]: the prompt being typed;
//! - `AtPaths`: the `@` file list;
//! - `Overlays`: approvals, the host's questions, the sessions overlay, the model picker, panels and the `/` popup;
//! - [`Commands`]: the command registry, the keybindings and the theme;
//! - `UserShells`: the `!cmd` runs and their results not yet recorded.

mod at_paths;
mod conversation;
mod input;
mod keys;
mod overlay_keys;
mod overlays;
mod replies;
mod run_state;
mod session_events;
mod sessions;
mod slash;
mod user_shells;

use std::collections::VecDeque;
use std::time::Instant;

pub use input::{CommandsReply, Effect, Input, SessionsReply, ShellRun, SwitchedTo};
pub use keys::SWITCH_BUSY;
pub use run_state::DOUBLE_PRESS;

use crate::approval::ApprovalDialog;
use crate::completion::Completion;
use crate::editor::Editor;
use crate::sessions::SessionsOverlay;
use crate::slash::{Commands, ModelPicker, Panel, SlashPopup};
use crate::status::{SessionInfo, Status};
use crate::theme::Theme;
use crate::transcript::Entry;

/// The interactive mode's whole state; [`App::update`] changes it, the view renders it.
#[derive(Clone, Debug)]
pub struct App {
    conversation: conversation::Conversation,
    run: run_state::RunState,
    status: Status,
    editor: Editor,
    at_paths: at_paths::AtPaths,
    overlays: overlays::Overlays,
    ui: Commands,
    shells: user_shells::UserShells,
}

/// What the interactive mode starts with besides the session's facts.
#[derive(Clone, Debug, Default)]
pub struct Startup {
    /// The command registry (with skills and templates), the keybindings and the theme.
    pub commands: Commands,
    /// The git branch of the working directory (`None` outside a repository).
    pub git_branch: Option<String>,
    /// Start-up problems to show as the first lines (a bad `keybindings.json`).
    pub warnings: Vec<String>,
    /// What was typed before the screen was up: it goes into the editor.
    pub typed: String,
}

impl App {
    /// A fresh app for a session described by `info`, with the default commands and keys.
    pub fn new(info: SessionInfo) -> Self {
        Self::starting(info, Startup::default())
    }

    /// A fresh app for a session described by `info`, set up with `startup`.
    pub fn starting(info: SessionInfo, startup: Startup) -> Self {
        let mut conversation = conversation::Conversation::default();
        for warning in startup.warnings {
            conversation.error(warning);
        }
        let mut editor = Editor::new();
        editor.insert(&startup.typed);
        App {
            conversation,
            run: run_state::RunState::default(),
            status: Status::new(info).with_git_branch(startup.git_branch),
            editor,
            at_paths: at_paths::AtPaths::default(),
            overlays: overlays::Overlays::default(),
            ui: startup.commands,
            shells: user_shells::UserShells::default(),
        }
    }

    /// The one reducer: folds `input`, which happened at `now`, into the state, and returns
    /// what the event loop must do, in order.
    pub fn update(&mut self, input: Input, now: Instant) -> Vec<Effect> {
        let mut effects = match input {
            Input::Key(key) => self.on_key(key, now),
            Input::Paste(text) => self.on_paste(&text),
            Input::Session(event) => {
                self.on_session_event(*event, now);
                Vec::new()
            }
            Input::Tick => Vec::new(),
            Input::Started(prompts) => {
                self.run.queue_prompts(prompts);
                Vec::new()
            }
            Input::PromptRefused(message) => {
                self.run.stop();
                self.conversation.error(message);
                Vec::new()
            }
            Input::ApprovalAsked(dialog) => {
                self.overlays.ask(dialog);
                Vec::new()
            }
            Input::DialogAsked(dialog) => {
                self.overlays.ask_dialog(dialog);
                Vec::new()
            }
            Input::DialogClosed(id) => {
                self.overlays.close_dialog(id);
                Vec::new()
            }
            Input::DialogUpdated(id, kind) => {
                self.overlays.update_dialog(id, kind);
                Vec::new()
            }
            Input::Notice(text, level) => {
                match level {
                    rho_host::ui::NoticeLevel::Info => self.conversation.notice(text),
                    rho_host::ui::NoticeLevel::Warning | rho_host::ui::NoticeLevel::Error => {
                        self.conversation.error(text);
                    }
                }
                Vec::new()
            }
            Input::RulesWritten { rules_file, result } => {
                self.rules_written(&rules_file, result);
                Vec::new()
            }
            Input::FilesIndexed(files) => self.take_files(files),
            Input::ShellStarted(run) => {
                self.shell_started(run, now);
                Vec::new()
            }
            Input::ShellFinished(run, result) => {
                self.shell_finished(run, result, now);
                Vec::new()
            }
            Input::Sessions(reply) => {
                self.sessions_reply(reply);
                Vec::new()
            }
            Input::SwitchDone(result) => {
                self.switch_done(result, now);
                Vec::new()
            }
            Input::Commands(reply) => {
                self.commands_reply(reply);
                Vec::new()
            }
            Input::Failed(message) => {
                self.conversation.error(message);
                Vec::new()
            }
        };
        self.when_idle(now, &mut effects);
        effects
    }

    /// Once no prompt runs: the next prompt of the command line goes out, and the `!cmd`
    /// results held back meanwhile are recorded.
    fn when_idle(&mut self, now: Instant, effects: &mut Vec<Effect>) {
        if let Some(prompt) = self.run.next_prompt() {
            self.start_prompt(now);
            effects.push(Effect::Prompt(prompt));
        }
        if !self.run.working() {
            let held = self.shells.take_held();
            effects.extend(
                held.into_iter()
                    .map(|(line, output)| Effect::RecordShell(line, output)),
            );
        }
    }

    /// A prompt goes out at `now` (its events follow); the conversation goes to the bottom.
    fn start_prompt(&mut self, now: Instant) {
        self.run.start(now);
        self.conversation.scroll_to_bottom();
    }

    /// The conversation, oldest first.
    pub fn transcript(&self) -> &[Entry] {
        self.conversation.entries()
    }

    /// Lines the conversation is scrolled up from the bottom.
    pub fn scroll(&self) -> usize {
        self.conversation.scroll()
    }

    /// Whether thinking blocks are expanded (Ctrl+T).
    pub fn show_thinking(&self) -> bool {
        self.conversation.show_thinking()
    }

    /// Whether tool output is shown in full (Ctrl+O).
    pub fn expand_tools(&self) -> bool {
        self.conversation.expand_tools()
    }

    /// The status line's facts.
    pub fn status(&self) -> &Status {
        &self.status
    }

    /// The prompt editor.
    pub fn editor(&self) -> &Editor {
        &self.editor
    }

    /// Whether a prompt is running: Enter steers, Alt+Enter queues a follow-up, Escape aborts.
    pub fn working(&self) -> bool {
        self.run.working()
    }

    /// When the running prompt was sent.
    pub fn working_since(&self) -> Option<Instant> {
        self.run.working_since()
    }

    /// Whether a session switch is in flight.
    pub fn switching(&self) -> bool {
        self.run.switching()
    }

    /// Commands waiting for approval; the first is on screen.
    pub fn approvals(&self) -> &VecDeque<ApprovalDialog> {
        self.overlays.approvals()
    }

    /// The host's questions waiting; the first is on screen once no approval waits.
    pub fn dialogs(&self) -> &VecDeque<crate::dialogs::OpenDialog> {
        self.overlays.dialogs()
    }

    /// The `@` file list under the editor, while open.
    pub fn completion(&self) -> Option<&Completion> {
        self.at_paths.list()
    }

    /// Whether the files `@` completes were walked.
    pub fn files_indexed(&self) -> bool {
        self.at_paths.indexed()
    }

    /// The `/resume`, `/fork` or `/tree` overlay, while open.
    pub fn sessions_overlay(&self) -> Option<&SessionsOverlay> {
        self.overlays.sessions()
    }

    /// The `/` popup, while a command name is typed.
    pub fn slash_popup(&self) -> Option<&SlashPopup> {
        self.overlays.popup()
    }

    /// The model picker, while open.
    pub fn model_picker(&self) -> Option<&ModelPicker> {
        self.overlays.model_picker()
    }

    /// The text panel, while open.
    pub fn panel(&self) -> Option<&Panel> {
        self.overlays.panel()
    }

    /// The command registry, the keybindings and the theme.
    pub fn commands(&self) -> &Commands {
        &self.ui
    }

    /// The colour theme in effect.
    pub fn theme(&self) -> Theme {
        self.ui.theme
    }

    /// Whether a `!cmd` is still running.
    pub fn shell_running(&self) -> bool {
        self.conversation.user_shell_running()
    }

    /// The newest assistant reply's text (`/copy`).
    pub fn last_reply(&self) -> Option<String> {
        self.conversation.last_reply()
    }

    /// Whether something on screen moves with time (spinner, elapsed time, countdown).
    pub fn animating(&self) -> bool {
        self.run.working() || self.status.retry().is_some() || self.status.compacting().is_some()
    }
}
