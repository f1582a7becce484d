//! The event loop's work beside the session: approval replies, `!cmd` runs and the `@` file
//! walk. Results come back on channels the loop selects on, so nothing here blocks a frame.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use rho_host::AgentSession;
use tokio::sync::{mpsc, oneshot};

use crate::app::App;
use crate::approval::{ApprovalChoice, ApprovalDialog, ApprovalRequest};
use crate::completion::FileIndex;
use crate::event_loop::Hooks;
use crate::keys::Command;
use crate::rules_file::append_allow_rules;
use crate::transcript::Entry;
use crate::user_shell::{ShellLine, ShellOutput, UserShell};

/// A finished `!cmd`: its block's id, the line, and what it produced.
pub(crate) struct ShellDone {
    id: String,
    line: ShellLine,
    result: Result<ShellOutput, String>,
}

/// State and channels of the side work.
pub(crate) struct Side {
    cwd: PathBuf,
    pub(crate) approvals: Option<mpsc::UnboundedReceiver<ApprovalRequest>>,
    pub(crate) replies: HashMap<u64, oneshot::Sender<ApprovalChoice>>,
    shell: Option<Arc<dyn UserShell>>,
    shell_tx: mpsc::UnboundedSender<ShellDone>,
    pub(crate) shell_done: mpsc::UnboundedReceiver<ShellDone>,
    /// Results that finished while a prompt ran: recorded once it settles.
    pending: Vec<(ShellLine, ShellOutput)>,
    indexing: bool,
    files_tx: mpsc::UnboundedSender<FileIndex>,
    pub(crate) files_done: mpsc::UnboundedReceiver<FileIndex>,
    pub(crate) exit_after_first_frame: bool,
    thinking_changed: Option<crate::event_loop::ThinkingHook>,
}

impl Side {
    pub(crate) fn new(hooks: Hooks) -> Self {
        let (shell_tx, shell_done) = mpsc::unbounded_channel();
        let (files_tx, files_done) = mpsc::unbounded_channel();
        Side {
            cwd: hooks.cwd,
            approvals: hooks.approvals,
            replies: HashMap::new(),
            shell: hooks.shell,
            shell_tx,
            shell_done,
            pending: Vec::new(),
            indexing: false,
            files_tx,
            files_done,
            exit_after_first_frame: hooks.exit_after_first_frame,
            thinking_changed: hooks.thinking_changed,
        }
    }

    /// Carries out one command: the side's own here, the session's in `execute`.
    pub(crate) fn execute(
        &mut self,
        session: &AgentSession,
        app: &mut App,
        command: Command,
        failed: &mpsc::UnboundedSender<String>,
    ) {
        match command {
            Command::Answer(dialog, choice) => self.answer(app, &dialog, choice),
            Command::Shell(line) => self.run_shell(app, line),
            Command::IndexFiles => self.index_files(),
            Command::CancelShell => {
                if let Some(shell) = &self.shell {
                    shell.cancel();
                }
            }
            Command::SetThinking(level) => {
                if let Some(Err(error)) =
                    self.thinking_changed.as_ref().map(|changed| changed(level))
                {
                    app.transcript.push(Entry::Error(error));
                }
                crate::event_loop::execute(session, Command::SetThinking(level), failed);
            }
            other => crate::event_loop::execute(session, other, failed),
        }
    }

    fn answer(&mut self, app: &mut App, dialog: &ApprovalDialog, choice: ApprovalChoice) {
        if choice == ApprovalChoice::Always {
            match append_allow_rules(&dialog.rules_file, &dialog.command) {
                Ok(prefixes) => app.transcript.push(Entry::Notice(format!(
                    "Always allowed: added {} to {}",
                    prefixes
                        .iter()
                        .map(|p| format!("allow \"{p}\""))
                        .collect::<Vec<_>>()
                        .join(", "),
                    dialog.rules_file.display()
                ))),
                Err(error) => app.transcript.push(Entry::Error(format!(
                    "Allowed for this session only: {error}"
                ))),
            }
        }
        if let Some(reply) = self.replies.remove(&dialog.id) {
            let _ = reply.send(choice);
        }
    }

    fn run_shell(&mut self, app: &mut App, line: ShellLine) {
        let Some(shell) = self.shell.clone() else {
            app.transcript.push(Entry::Error(
                "Shell commands are not available here".to_owned(),
            ));
            return;
        };
        let id = app.shell_started(&line, Instant::now());
        let done = self.shell_tx.clone();
        tokio::spawn(async move {
            let result = shell.run(&line.command).await;
            let _ = done.send(ShellDone { id, line, result });
        });
    }

    /// A `!cmd` ended: shown now, recorded now when idle, else once the prompt settles (Pi
    /// keeps a tool call and its result together).
    pub(crate) fn shell_finished(&mut self, app: &mut App, done: ShellDone) {
        app.shell_finished(&done.id, &done.result, Instant::now());
        if let Ok(output) = done.result {
            self.pending.push((done.line, output));
        }
        if !app.working {
            self.record_pending();
        }
    }

    /// Records every held-back result, in the order they finished.
    pub(crate) fn record_pending(&mut self) {
        let Some(shell) = &self.shell else {
            return;
        };
        for (line, output) in self.pending.drain(..) {
            shell.record(&line.command, &output, line.exclude_from_context);
        }
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
