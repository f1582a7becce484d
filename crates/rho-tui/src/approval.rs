//! The approval prompt: a `bash` command an `ask` rule holds back waits here until the user
//! answers. The gate's [`Approver`] sends a request to the UI task and waits on a oneshot; the
//! UI shows [`ApprovalDialog`] and answers with an [`ApprovalChoice`].

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use async_trait::async_trait;
use rho_host::gate::Approver;
use tokio::sync::{mpsc, oneshot};

/// The user's answer to one approval request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ApprovalChoice {
    /// Run it this time.
    Once,
    /// Run it, and from now on: an allow rule in the project's rules file, and no more
    /// questions about this exact command in this process.
    Always,
    /// Do not run it; the model sees the gate's "not approved" refusal.
    Deny,
}

impl ApprovalChoice {
    /// The choices in the order the dialog lists them.
    pub const ALL: [ApprovalChoice; 3] = [
        ApprovalChoice::Once,
        ApprovalChoice::Always,
        ApprovalChoice::Deny,
    ];

    /// The dialog's label, with the key that picks it.
    pub fn label(self) -> &'static str {
        match self {
            ApprovalChoice::Once => "Allow once (y)",
            ApprovalChoice::Always => "Always allow (a)",
            ApprovalChoice::Deny => "Deny (n)",
        }
    }
}

/// One command waiting for the user, as the gate sent it.
#[derive(Debug)]
pub struct ApprovalRequest {
    /// Ties the answer to the request.
    pub id: u64,
    /// The exact command the model asked to run (a tool call: the tool and its arguments).
    pub command: String,
    /// The tool, when a tool call (not a command) asks: "always" allows the tool.
    pub tool: Option<String>,
    /// Which rule asked, or why the command could not be checked.
    pub why: String,
    /// Where "always" writes its allow rule (the project's `.rho/rules.toml`).
    pub rules_file: PathBuf,
    /// Where the answer goes; the tool waits on the other end.
    pub reply: oneshot::Sender<ApprovalChoice>,
}

/// The dialog on screen: what is asked and which choice is highlighted. Plain data, so the
/// state stays cloneable and testable; the reply channel stays with the event loop.
#[derive(Clone, Debug, PartialEq)]
pub struct ApprovalDialog {
    /// The request's id.
    pub id: u64,
    /// The exact command.
    pub command: String,
    /// The tool, when a tool call asks.
    pub tool: Option<String>,
    /// The rule that asked.
    pub why: String,
    /// Where "always" writes.
    pub rules_file: PathBuf,
    /// Index into [`ApprovalChoice::ALL`].
    pub selected: usize,
}

impl ApprovalDialog {
    /// The dialog for `request`, with "allow once" highlighted.
    pub fn for_request(request: &ApprovalRequest) -> Self {
        ApprovalDialog {
            id: request.id,
            command: request.command.clone(),
            tool: request.tool.clone(),
            why: request.why.clone(),
            rules_file: request.rules_file.clone(),
            selected: 0,
        }
    }

    /// The highlighted choice.
    pub fn choice(&self) -> ApprovalChoice {
        ApprovalChoice::ALL[self.selected.min(ApprovalChoice::ALL.len() - 1)]
    }
}

/// The interactive mode's [`Approver`]: asks the UI task and waits for the answer. A UI that
/// is gone (the screen closed) counts as a denial, never as a hang.
pub struct TuiApprover {
    requests: mpsc::UnboundedSender<ApprovalRequest>,
    /// The project's rules file as it is when a question is asked (a resumed session of another
    /// directory has that directory's).
    rules_file: Box<dyn Fn() -> PathBuf + Send + Sync>,
    next_id: AtomicU64,
    /// Commands answered "always" in this process.
    always: Mutex<HashSet<String>>,
}

impl TuiApprover {
    /// An approver writing "always" rules to `rules_file`, and the receiver the UI reads.
    pub fn new(rules_file: PathBuf) -> (Self, mpsc::UnboundedReceiver<ApprovalRequest>) {
        Self::following(move || rules_file.clone())
    }

    /// An approver writing "always" rules to the file `rules_file` names at each question.
    pub fn following(
        rules_file: impl Fn() -> PathBuf + Send + Sync + 'static,
    ) -> (Self, mpsc::UnboundedReceiver<ApprovalRequest>) {
        let (requests, receiver) = mpsc::unbounded_channel();
        let approver = TuiApprover {
            requests,
            rules_file: Box::new(rules_file),
            next_id: AtomicU64::new(1),
            always: Mutex::new(HashSet::new()),
        };
        (approver, receiver)
    }

    fn always(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        rho_stdx::sync::lock(&self.always)
    }
}

#[async_trait]
impl Approver for TuiApprover {
    async fn approve(&self, command: &str, why: &str) -> bool {
        self.ask(command.to_owned(), None, why).await
    }

    async fn approve_tool(&self, tool: &str, arguments: &serde_json::Value, why: &str) -> bool {
        self.ask(format!("{tool} {arguments}"), Some(tool.to_owned()), why)
            .await
    }
}

impl TuiApprover {
    /// Asks about `shown` (a command, or a tool call when `tool` names the tool) unless it was
    /// answered "always" before in this process.
    async fn ask(&self, shown: String, tool: Option<String>, why: &str) -> bool {
        let key = match &tool {
            Some(tool) => format!("tool:{tool}"),
            None => shown.clone(),
        };
        if self.always().contains(&key) {
            return true;
        }
        let (reply, answer) = oneshot::channel();
        let request = ApprovalRequest {
            id: self.next_id.fetch_add(1, Ordering::Relaxed),
            command: shown,
            tool,
            why: why.to_owned(),
            rules_file: (self.rules_file)(),
            reply,
        };
        if self.requests.send(request).is_err() {
            return false;
        }
        match answer.await {
            Ok(ApprovalChoice::Once) => true,
            Ok(ApprovalChoice::Always) => {
                self.always().insert(key);
                true
            }
            Ok(ApprovalChoice::Deny) | Err(_) => false,
        }
    }
}
