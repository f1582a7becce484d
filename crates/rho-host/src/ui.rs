//! What the host asks the user and tells them, whatever the mode (Pi's `ctx.ui`): notices,
//! a choice, yes or no, a line of text, and menus with details. The interactive mode shows
//! dialogs, RPC sends Pi's `extension_ui_request`s, `-p` prints notices and answers nothing.

use async_trait::async_trait;
use tokio::sync::watch;

/// How a notice reads (Pi's notify types).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoticeLevel {
    /// Information.
    Info,
    /// Something is off.
    Warning,
    /// Something failed.
    Error,
}

impl NoticeLevel {
    /// `info`, `warning` or `error`.
    pub fn as_str(self) -> &'static str {
        match self {
            NoticeLevel::Info => "info",
            NoticeLevel::Warning => "warning",
            NoticeLevel::Error => "error",
        }
    }
}

/// One row of a menu.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MenuItem {
    /// What the row says.
    pub label: String,
    /// What it means, shown after the label (may be empty).
    pub description: String,
}

impl MenuItem {
    /// A row.
    pub fn new(label: impl Into<String>, description: impl Into<String>) -> Self {
        MenuItem {
            label: label.into(),
            description: description.into(),
        }
    }
}

/// A menu: a title, lines of details, an error line, and the rows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Menu {
    /// What is asked.
    pub title: String,
    /// Facts shown under the title.
    pub details: Vec<String>,
    /// A problem to show (in the error colour).
    pub error: Option<String>,
    /// The rows.
    pub items: Vec<MenuItem>,
    /// What is shown when there are no rows.
    pub empty: String,
    /// The row highlighted first.
    pub selected: usize,
}

/// Where notices go and who answers questions. `None` is a question dismissed, or nobody
/// there to answer it.
#[async_trait]
pub trait HostUi: Send + Sync {
    /// Shows a notice.
    fn notify(&self, message: &str, level: NoticeLevel);
    /// Asks for one of `options`.
    async fn select(&self, title: &str, options: &[String]) -> Option<String>;
    /// Asks yes or no.
    async fn confirm(&self, title: &str, message: &str) -> Option<bool>;
    /// Asks for a line of text; `placeholder` shows what is expected.
    async fn input(&self, title: &str, placeholder: &str) -> Option<String>;

    /// Whether someone is there to answer (the interactive mode, an RPC client); `-p` answers
    /// nothing.
    fn interactive(&self) -> bool {
        true
    }

    /// Shows `menu`; the row picked. Without a richer view, a choice among the labels.
    async fn menu(&self, menu: Menu) -> Option<usize> {
        let labels: Vec<String> = menu.items.iter().map(|item| item.label.clone()).collect();
        let choice = self.select(&menu.title, &labels).await?;
        labels.iter().position(|label| *label == choice)
    }

    /// Shows the menu `build` makes, made again whenever `changes` moves while it is open
    /// (a server connecting); the row picked. Without a live view, the menu as it is now.
    async fn live_menu(
        &self,
        build: &(dyn Fn() -> Menu + Send + Sync),
        changes: watch::Receiver<u64>,
    ) -> Option<usize> {
        drop(changes);
        self.menu(build()).await
    }
}

/// The gate's [`crate::gate::Approver`] over a mode's UI: a yes/no question per call (RPC:
/// Pi's `confirm` extension UI request). No answer is no.
pub struct UiApprover {
    ui: std::sync::Arc<dyn HostUi>,
}

impl UiApprover {
    /// Asks through `ui`.
    pub fn new(ui: std::sync::Arc<dyn HostUi>) -> UiApprover {
        UiApprover { ui }
    }
}

#[async_trait]
impl crate::gate::Approver for UiApprover {
    async fn approve(&self, command: &str, why: &str) -> bool {
        let message = format!("{command}\n\n{why}");
        self.ui.confirm("Allow this bash command?", &message).await == Some(true)
    }

    async fn approve_tool(&self, tool: &str, arguments: &serde_json::Value, why: &str) -> bool {
        let message = format!("{tool} {arguments}\n\n{why}");
        self.ui
            .confirm(&format!("Allow this {tool} call?"), &message)
            .await
            == Some(true)
    }
}
