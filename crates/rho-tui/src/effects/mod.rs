//! The event loop's hands: carries out the [`Effect`]s the state asks for (with the session, the
//! gate's approval replies, the `!cmd` runner, the file walk, the session switcher and the
//! command host) and turns what comes back into [`Input`]s for [`App::update`]. It never changes
//! the state itself; it reads it only for `/copy`. Nothing here blocks the UI task: what reads or
//! writes files or runs commands goes to a [`lane::Lane`], and its answer comes back through
//! [`Effects::finished`].

mod commands;
mod finished;
mod lane;
mod sessions;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use rho_host::AgentSession;
use tokio::sync::{mpsc, oneshot};

use crate::app::{App, Effect, Input, ShellRun};
use crate::approval::{ApprovalChoice, ApprovalDialog, ApprovalRequest};
use crate::completion::FileIndex;
use crate::dialogs::{DialogAnswer, DialogEvent, OpenDialog};
use crate::hooks::ExtensionCommands;
use crate::hooks::{Hooks, ThinkingHook};
use crate::rules_file::{append_allow_rules, append_tool_rule};
use crate::sessions::SessionSwitcher;
use crate::slash::CommandHost;
use crate::user_shell::{ShellOutput, UserShell};

use self::finished::Finished;
use self::lane::Lane;

/// What the effects need and the channels their results come back on.
pub(crate) struct Effects {
    cwd: PathBuf,
    /// Approval requests from the gate's [`crate::approval::TuiApprover`].
    approvals: Option<mpsc::UnboundedReceiver<ApprovalRequest>>,
    /// Where each asked question's answer goes, by request id.
    replies: HashMap<u64, oneshot::Sender<ApprovalChoice>>,
    /// The host's questions and notices.
    dialogs: Option<mpsc::UnboundedReceiver<DialogEvent>>,
    /// Where each of the host's questions' answer goes, by id.
    dialog_replies: HashMap<u64, oneshot::Sender<DialogAnswer>>,
    /// Runs the host's commands.
    extensions: Option<Arc<dyn ExtensionCommands>>,
    /// What the host's commands failed with.
    extension_failed_tx: mpsc::UnboundedSender<String>,
    extension_failed: mpsc::UnboundedReceiver<String>,
    shell: Option<Arc<dyn UserShell>>,
    shell_tx: mpsc::UnboundedSender<(ShellRun, Result<ShellOutput, String>)>,
    shell_done: mpsc::UnboundedReceiver<(ShellRun, Result<ShellOutput, String>)>,
    /// The `@` walk was started (it runs once).
    indexing: bool,
    files_tx: mpsc::UnboundedSender<FileIndex>,
    files_done: mpsc::UnboundedReceiver<FileIndex>,
    thinking_changed: Option<ThinkingHook>,
    switcher: Option<Arc<dyn SessionSwitcher>>,
    host: Option<Arc<dyn CommandHost>>,
    /// The command host's and the switcher's calls and the thinking hook, in order.
    hosts: Lane,
    /// The "always" rules, written apart from `hosts`: a switch aborting a run waits for the
    /// run's tool, which may wait for this answer.
    rules: Lane,
    /// What the lanes answered.
    lanes_done: mpsc::UnboundedReceiver<Finished>,
    /// Prompts the session refused outright.
    refused_tx: mpsc::UnboundedSender<String>,
    refused: mpsc::UnboundedReceiver<String>,
    /// The user asked to leave.
    exit: bool,
}

impl Effects {
    /// The effects' side of `hooks` (what the binary plugged in). Starts the lanes' tasks on
    /// the current runtime.
    pub(crate) fn new(hooks: Hooks) -> Self {
        let (shell_tx, shell_done) = mpsc::unbounded_channel();
        let (files_tx, files_done) = mpsc::unbounded_channel();
        let (lanes_tx, lanes_done) = mpsc::unbounded_channel();
        let (refused_tx, refused) = mpsc::unbounded_channel();
        let (extension_failed_tx, extension_failed) = mpsc::unbounded_channel();
        Effects {
            cwd: hooks.cwd,
            approvals: hooks.approvals,
            replies: HashMap::new(),
            dialogs: hooks.dialogs,
            dialog_replies: HashMap::new(),
            extensions: hooks.extensions,
            extension_failed_tx,
            extension_failed,
            shell: hooks.shell,
            shell_tx,
            shell_done,
            indexing: false,
            files_tx,
            files_done,
            thinking_changed: hooks.thinking_changed,
            switcher: hooks.sessions,
            host: hooks.commands,
            hosts: Lane::start(lanes_tx.clone()),
            rules: Lane::start(lanes_tx),
            lanes_done,
            refused_tx,
            refused,
            exit: false,
        }
    }

    /// Whether an [`Effect::Exit`] was carried out.
    pub(crate) fn exiting(&self) -> bool {
        self.exit
    }

    /// Waits for the hosts' work already asked for (a setting, a session entry, a rule to be
    /// written), as rho leaves. A switch still running is not waited for.
    pub(crate) async fn finish(self) {
        let Effects { hosts, rules, .. } = self;
        hosts.finish().await;
        rules.finish().await;
    }

    /// Carries out one effect; what it answered at once comes back as inputs, in order. Work
    /// that takes time runs on its own task and comes back through [`Effects::finished`].
    pub(crate) fn carry_out(
        &mut self,
        session: &AgentSession,
        app: &App,
        effect: Effect,
    ) -> Vec<Input> {
        match effect {
            Effect::Prompt(text) => {
                // On its own task so the loop keeps drawing; the run's events arrive through
                // the subscription, and only a refusal comes back here.
                let session = session.clone();
                let refused = self.refused_tx.clone();
                tokio::spawn(async move {
                    if let Err(error) = session.prompt(&text).await {
                        let _ = refused.send(error.to_string());
                    }
                });
            }
            Effect::Steer(text) => session.steer(&text),
            Effect::FollowUp(text) => session.follow_up(&text),
            Effect::ClearQueue => drop(session.clear_queue()),
            Effect::Abort => session.abort_now(),
            Effect::SetThinking(level) => {
                // In effect at once, for the next prompt; the host records it beside the UI.
                let previous = session
                    .agent()
                    .update_state(|state| std::mem::replace(&mut state.thinking_level, level));
                if let Some(changed) = self.thinking_changed.clone().filter(|_| previous != level) {
                    self.hosts
                        .call(move || changed(previous, level).err().map(Input::Failed));
                }
            }
            Effect::Answer(dialog, choice) => return self.answer(&dialog, choice),
            Effect::AnswerDialog(id, answer) => {
                if let Some(reply) = self.dialog_replies.remove(&id) {
                    let _ = reply.send(answer);
                }
            }
            Effect::Extension { name, args } => {
                let Some(extensions) = self.extensions.clone() else {
                    return vec![Input::Failed(format!("/{name} is not available here"))];
                };
                let failed = self.extension_failed_tx.clone();
                // On its own task: the command asks its questions through the dialogs.
                tokio::spawn(async move {
                    if let Err(error) = extensions.run(&name, &args).await {
                        let _ = failed.send(error);
                    }
                });
            }
            Effect::RunShell(run) => return self.run_shell(run),
            Effect::RecordShell(line, output) => {
                if let Some(shell) = &self.shell {
                    shell.record(&line.command, &output, line.exclude_from_context);
                }
            }
            Effect::CancelShell => {
                if let Some(shell) = &self.shell {
                    shell.cancel();
                }
            }
            Effect::IndexFiles => self.index_files(),
            Effect::OpenSessionPicker
            | Effect::OpenForkPicker
            | Effect::OpenTree
            | Effect::SaveTreeLabel(_)
            | Effect::ChangeSessionFile(_)
            | Effect::SwitchSession(_) => {
                return sessions::carry_out(self.switcher.as_ref(), &self.hosts, effect);
            }
            Effect::Slash(action) => {
                return commands::carry_out(self.host.as_ref(), &self.hosts, session, app, action);
            }
            Effect::Exit => self.exit = true,
        }
        Vec::new()
    }

    /// The next piece of work that finished beside the state (a question of the gate's counts:
    /// its reply channel is kept here, the dialog goes to the state).
    pub(crate) async fn finished(&mut self) -> Finished {
        let input = tokio::select! {
            Some(message) = self.refused.recv() => Input::PromptRefused(message),
            Some(message) = self.extension_failed.recv() => Input::Failed(message),
            Some(request) = recv_some(&mut self.approvals) => {
                let dialog = ApprovalDialog::for_request(&request);
                self.replies.insert(request.id, request.reply);
                Input::ApprovalAsked(dialog)
            }
            Some(event) = recv_some(&mut self.dialogs) => match event {
                DialogEvent::Ask { id, kind, reply } => {
                    self.dialog_replies.insert(id, reply);
                    Input::DialogAsked(OpenDialog::new(id, kind))
                }
                DialogEvent::Update { id, kind } => Input::DialogUpdated(id, kind),
                DialogEvent::Close(id) => {
                    self.dialog_replies.remove(&id);
                    Input::DialogClosed(id)
                }
                DialogEvent::Notify(text, level) => Input::Notice(text, level),
            },
            Some((run, result)) = self.shell_done.recv() => Input::ShellFinished(run, result),
            Some(files) = self.files_done.recv() => Input::FilesIndexed(files),
            Some(finished) = self.lanes_done.recv() => return finished,
        };
        Finished {
            input,
            session: None,
        }
    }

    /// An answer goes to the waiting tool; "always" first writes the allow rules (beside the
    /// UI task; the tool waits for them).
    fn answer(&mut self, dialog: &ApprovalDialog, choice: ApprovalChoice) -> Vec<Input> {
        let reply = self.replies.remove(&dialog.id);
        if choice != ApprovalChoice::Always {
            if let Some(reply) = reply {
                let _ = reply.send(choice);
            }
            return Vec::new();
        }
        let rules_file = dialog.rules_file.clone();
        let command = dialog.command.clone();
        let tool = dialog.tool.clone();
        self.rules.call(move || {
            let result = match &tool {
                Some(tool) => append_tool_rule(&rules_file, tool),
                None => append_allow_rules(&rules_file, &command),
            }
            .map_err(|error| error.to_string());
            if let Some(reply) = reply {
                let _ = reply.send(choice);
            }
            Some(Input::RulesWritten { rules_file, result })
        });
        Vec::new()
    }

    fn run_shell(&mut self, run: ShellRun) -> Vec<Input> {
        let Some(shell) = self.shell.clone() else {
            return vec![Input::Failed(
                "Shell commands are not available here".to_owned(),
            )];
        };
        let done = self.shell_tx.clone();
        let started = run.clone();
        tokio::spawn(async move {
            let result = shell.run(&run.line.command).await;
            let _ = done.send((run, result));
        });
        vec![Input::ShellStarted(started)]
    }

    fn index_files(&mut self) {
        if self.indexing {
            return;
        }
        self.indexing = true;
        let root = self.cwd.clone();
        let done = self.files_tx.clone();
        tokio::task::spawn_blocking(move || {
            let _ = done.send(FileIndex::walk(&root));
        });
    }
}

/// The next item of an optional channel; never, without one.
async fn recv_some<T>(receiver: &mut Option<mpsc::UnboundedReceiver<T>>) -> Option<T> {
    match receiver {
        Some(receiver) => receiver.recv().await,
        None => std::future::pending().await,
    }
}
