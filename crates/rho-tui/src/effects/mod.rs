//! The event loop's hands: carries out the [`Effect`]s the state asks for (with the session, the
//! gate's approval replies, the `!cmd` runner, the file walk, the session switcher and the
//! command host) and turns what comes back into [`Input`]s for [`App::update`]. It never changes
//! the state itself; it reads it only for `/copy`.

mod commands;
mod sessions;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use rho_host::AgentSession;
use tokio::sync::{mpsc, oneshot};

use crate::app::{App, Effect, Input, ShellRun};
use crate::approval::{ApprovalChoice, ApprovalDialog, ApprovalRequest};
use crate::completion::FileIndex;
use crate::event_loop::{Hooks, ThinkingHook};
use crate::rules_file::append_allow_rules;
use crate::sessions::{SessionSwitcher, Switched};
use crate::slash::CommandHost;
use crate::user_shell::{ShellOutput, UserShell};

/// Work finished beside the state: the input to feed, and the session to talk to from now on
/// when a switch replaced it.
pub(crate) struct Finished {
    /// What happened.
    pub(crate) input: Input,
    /// The new session (`None`: the same one).
    pub(crate) session: Option<AgentSession>,
}

/// What the effects need and the channels their results come back on.
pub(crate) struct Effects {
    cwd: PathBuf,
    /// Approval requests from the gate's [`crate::approval::TuiApprover`].
    approvals: Option<mpsc::UnboundedReceiver<ApprovalRequest>>,
    /// Where each asked question's answer goes, by request id.
    replies: HashMap<u64, oneshot::Sender<ApprovalChoice>>,
    shell: Option<Arc<dyn UserShell>>,
    shell_tx: mpsc::UnboundedSender<(ShellRun, Result<ShellOutput, String>)>,
    shell_done: mpsc::UnboundedReceiver<(ShellRun, Result<ShellOutput, String>)>,
    /// The `@` walk was started (it runs once).
    indexing: bool,
    files_tx: mpsc::UnboundedSender<FileIndex>,
    files_done: mpsc::UnboundedReceiver<FileIndex>,
    thinking_changed: Option<ThinkingHook>,
    switcher: Option<Arc<dyn SessionSwitcher>>,
    switch_tx: mpsc::UnboundedSender<Result<Switched, String>>,
    switch_done: mpsc::UnboundedReceiver<Result<Switched, String>>,
    host: Option<Arc<dyn CommandHost>>,
    /// Prompts the session refused outright.
    refused_tx: mpsc::UnboundedSender<String>,
    refused: mpsc::UnboundedReceiver<String>,
    /// The user asked to leave.
    exit: bool,
}

impl Effects {
    /// The effects' side of `hooks` (what the binary plugged in).
    pub(crate) fn new(hooks: Hooks) -> Self {
        let (shell_tx, shell_done) = mpsc::unbounded_channel();
        let (files_tx, files_done) = mpsc::unbounded_channel();
        let (switch_tx, switch_done) = mpsc::unbounded_channel();
        let (refused_tx, refused) = mpsc::unbounded_channel();
        Effects {
            cwd: hooks.cwd,
            approvals: hooks.approvals,
            replies: HashMap::new(),
            shell: hooks.shell,
            shell_tx,
            shell_done,
            indexing: false,
            files_tx,
            files_done,
            thinking_changed: hooks.thinking_changed,
            switcher: hooks.sessions,
            switch_tx,
            switch_done,
            host: hooks.commands,
            refused_tx,
            refused,
            exit: false,
        }
    }

    /// Whether an [`Effect::Exit`] was carried out.
    pub(crate) fn exiting(&self) -> bool {
        self.exit
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
                let kept = self.thinking_changed.as_ref().map(|changed| changed(level));
                session
                    .agent()
                    .update_state(|state| state.thinking_level = level);
                if let Some(Err(error)) = kept {
                    return vec![Input::Failed(error)];
                }
            }
            Effect::Answer(dialog, choice) => return self.answer(&dialog, choice),
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
                return sessions::carry_out(self.switcher.as_ref(), &self.switch_tx, effect);
            }
            Effect::Slash(action) => {
                return commands::carry_out(self.host.as_ref(), session, app, action);
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
            Some(request) = recv_some(&mut self.approvals) => {
                let dialog = ApprovalDialog::for_request(&request);
                self.replies.insert(request.id, request.reply);
                Input::ApprovalAsked(dialog)
            }
            Some((run, result)) = self.shell_done.recv() => Input::ShellFinished(run, result),
            Some(files) = self.files_done.recv() => Input::FilesIndexed(files),
            Some(result) = self.switch_done.recv() => {
                let (session, input) = sessions::finished(result);
                return Finished { input, session };
            }
        };
        Finished {
            input,
            session: None,
        }
    }

    /// An answer goes to the waiting tool; "always" first writes the allow rules.
    fn answer(&mut self, dialog: &ApprovalDialog, choice: ApprovalChoice) -> Vec<Input> {
        let mut inputs = Vec::new();
        if choice == ApprovalChoice::Always {
            let result = append_allow_rules(&dialog.rules_file, &dialog.command)
                .map_err(|error| error.to_string());
            inputs.push(Input::RulesWritten {
                rules_file: dialog.rules_file.clone(),
                result,
            });
        }
        if let Some(reply) = self.replies.remove(&dialog.id) {
            let _ = reply.send(choice);
        }
        inputs
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
