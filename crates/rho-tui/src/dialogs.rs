//! Questions the host asks the user beside a run (Pi's `ctx.ui`: a menu, yes or no, a line of
//! text) and its notices: an MCP server's elicitation, the `/mcp` manager. The host side,
//! [`TuiDialogs`], sends a [`DialogEvent`] to the UI task and waits on a oneshot; the UI shows
//! an [`OpenDialog`] where the editor is, one at a time, and sends back a [`DialogAnswer`]. A
//! UI that is gone answers as a dismissal, never a hang.

use std::sync::atomic::{AtomicU64, Ordering};

use async_trait::async_trait;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use rho_host::ui::{HostUi, Menu, MenuItem, NoticeLevel};
use tokio::sync::{mpsc, oneshot, watch};

use crate::editor::Editor;

/// What is asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DialogKind {
    /// Pick a row.
    Menu(Menu),
    /// Yes or no.
    Confirm {
        /// The question.
        title: String,
        /// What it is about.
        message: String,
    },
    /// A line of text.
    Input {
        /// The question.
        title: String,
        /// What is expected, shown while nothing is typed.
        placeholder: String,
    },
}

/// The user's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DialogAnswer {
    /// This row of a menu.
    Picked(usize),
    /// Yes or no.
    Confirmed(bool),
    /// The text typed.
    Typed(String),
    /// Escape (or the UI went away).
    Dismissed,
}

/// What the host sends the UI.
#[derive(Debug)]
pub enum DialogEvent {
    /// A question; the answer goes to `reply`.
    Ask {
        /// Ties the answer to the question.
        id: u64,
        /// What is asked.
        kind: DialogKind,
        /// Where the answer goes.
        reply: oneshot::Sender<DialogAnswer>,
    },
    /// Nobody waits for question `id` any more (a sign-in finished in the browser while its
    /// paste field was open): it goes from the screen.
    Close(u64),
    /// The question `id` changed while it is open (a live menu made again).
    Update {
        /// The question.
        id: u64,
        /// What it asks now.
        kind: DialogKind,
    },
    /// A line for the conversation.
    Notify(String, NoticeLevel),
}

/// The host's side: asks the UI task, waits for the answer.
pub struct TuiDialogs {
    events: mpsc::UnboundedSender<DialogEvent>,
    next_id: AtomicU64,
}

impl TuiDialogs {
    /// The dialogs, and the receiver the UI reads (`Hooks::dialogs`).
    pub fn new() -> (TuiDialogs, mpsc::UnboundedReceiver<DialogEvent>) {
        let (events, receiver) = mpsc::unbounded_channel();
        let dialogs = TuiDialogs {
            events,
            next_id: AtomicU64::new(1),
        };
        (dialogs, receiver)
    }

    /// Asks `kind`; a UI that is gone dismisses.
    pub async fn ask(&self, kind: DialogKind) -> DialogAnswer {
        let Some((id, answer)) = self.send(kind) else {
            return DialogAnswer::Dismissed;
        };
        let waiting = Waiting {
            events: &self.events,
            id,
            answered: false,
        };
        let answer = answer.await.unwrap_or(DialogAnswer::Dismissed);
        waiting.answered();
        answer
    }

    /// Puts question `kind` to the UI: its id and where the answer comes.
    fn send(&self, kind: DialogKind) -> Option<(u64, oneshot::Receiver<DialogAnswer>)> {
        let (reply, answer) = oneshot::channel();
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.events
            .send(DialogEvent::Ask { id, kind, reply })
            .ok()?;
        Some((id, answer))
    }
}

#[async_trait]
impl HostUi for TuiDialogs {
    fn notify(&self, message: &str, level: NoticeLevel) {
        let _ = self
            .events
            .send(DialogEvent::Notify(message.to_owned(), level));
    }

    async fn select(&self, title: &str, options: &[String]) -> Option<String> {
        let menu = Menu {
            title: title.to_owned(),
            items: options
                .iter()
                .map(|option| MenuItem::new(option.clone(), ""))
                .collect(),
            ..Menu::default()
        };
        let index = self.menu(menu).await?;
        options.get(index).cloned()
    }

    async fn confirm(&self, title: &str, message: &str) -> Option<bool> {
        let kind = DialogKind::Confirm {
            title: title.to_owned(),
            message: message.to_owned(),
        };
        match self.ask(kind).await {
            DialogAnswer::Confirmed(yes) => Some(yes),
            _ => None,
        }
    }

    async fn input(&self, title: &str, placeholder: &str) -> Option<String> {
        let kind = DialogKind::Input {
            title: title.to_owned(),
            placeholder: placeholder.to_owned(),
        };
        match self.ask(kind).await {
            DialogAnswer::Typed(text) => Some(text),
            _ => None,
        }
    }

    async fn menu(&self, menu: Menu) -> Option<usize> {
        match self.ask(DialogKind::Menu(menu)).await {
            DialogAnswer::Picked(index) => Some(index),
            _ => None,
        }
    }

    async fn live_menu(
        &self,
        build: &(dyn Fn() -> Menu + Send + Sync),
        mut changes: watch::Receiver<u64>,
    ) -> Option<usize> {
        let (id, mut answer) = self.send(DialogKind::Menu(build()))?;
        let _waiting = Waiting {
            events: &self.events,
            id,
            answered: false,
        };
        let mut live = true;
        loop {
            tokio::select! {
                answered = &mut answer => {
                    return match answered {
                        Ok(DialogAnswer::Picked(index)) => Some(index),
                        _ => None,
                    };
                }
                changed = changes.changed(), if live => {
                    if changed.is_err() {
                        live = false;
                        continue;
                    }
                    let kind = DialogKind::Menu(build());
                    if self.events.send(DialogEvent::Update { id, kind }).is_err() {
                        return None;
                    }
                }
            }
        }
    }
}

/// A question being waited for: given up on (its future dropped), it is taken off the screen.
struct Waiting<'a> {
    events: &'a mpsc::UnboundedSender<DialogEvent>,
    id: u64,
    answered: bool,
}

impl Waiting<'_> {
    fn answered(mut self) {
        self.answered = true;
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        if !self.answered {
            let _ = self.events.send(DialogEvent::Close(self.id));
        }
    }
}

/// A question on screen, with what the user did to it so far.
#[derive(Clone, Debug, PartialEq)]
pub struct OpenDialog {
    /// The question's id.
    pub id: u64,
    /// What is asked.
    pub kind: DialogKind,
    /// The highlighted row (a menu) or answer (0 yes, 1 no).
    pub selected: usize,
    /// The text typed (an input).
    pub text: Editor,
}

/// Rows of a menu PageUp and PageDown move.
const PAGE: usize = 10;

impl OpenDialog {
    /// The dialog for question `id`.
    pub fn new(id: u64, kind: DialogKind) -> Self {
        let selected = match &kind {
            DialogKind::Menu(menu) => menu.selected.min(menu.items.len().saturating_sub(1)),
            _ => 0,
        };
        OpenDialog {
            id,
            kind,
            selected,
            text: Editor::new(),
        }
    }

    /// A key; the answer once the dialog is done. Keys it has no use for are swallowed.
    pub fn on_key(&mut self, key: KeyEvent) -> Option<DialogAnswer> {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if key.code == KeyCode::Esc || (ctrl && key.code == KeyCode::Char('c')) {
            return Some(DialogAnswer::Dismissed);
        }
        match &self.kind {
            DialogKind::Menu(menu) => self.menu_key(key, menu.items.len()),
            DialogKind::Confirm { .. } => self.confirm_key(key),
            DialogKind::Input { .. } => self.input_key(key),
        }
    }

    /// The question asks `kind` now; the highlight stays on its row, within the new rows.
    pub fn update(&mut self, kind: DialogKind) {
        if let DialogKind::Menu(menu) = &kind {
            self.selected = self.selected.min(menu.items.len().saturating_sub(1));
        }
        self.kind = kind;
    }

    /// A paste into an input dialog (ignored by the others).
    pub fn paste(&mut self, text: &str) {
        if matches!(self.kind, DialogKind::Input { .. }) {
            self.text.insert(&text.replace(['\n', '\r'], " "));
        }
    }

    fn menu_key(&mut self, key: KeyEvent, rows: usize) -> Option<DialogAnswer> {
        let last = rows.saturating_sub(1);
        match key.code {
            KeyCode::Enter if rows == 0 => return Some(DialogAnswer::Dismissed),
            KeyCode::Enter => return Some(DialogAnswer::Picked(self.selected)),
            KeyCode::Up => self.selected = self.selected.checked_sub(1).unwrap_or(last),
            KeyCode::Down => {
                self.selected = if self.selected >= last {
                    0
                } else {
                    self.selected + 1
                }
            }
            KeyCode::PageUp => self.selected = self.selected.saturating_sub(PAGE),
            KeyCode::PageDown => self.selected = (self.selected + PAGE).min(last),
            KeyCode::Home => self.selected = 0,
            KeyCode::End => self.selected = last,
            _ => {}
        }
        None
    }

    fn confirm_key(&mut self, key: KeyEvent) -> Option<DialogAnswer> {
        match key.code {
            KeyCode::Char('y' | 'Y') => Some(DialogAnswer::Confirmed(true)),
            KeyCode::Char('n' | 'N') => Some(DialogAnswer::Confirmed(false)),
            KeyCode::Enter => Some(DialogAnswer::Confirmed(self.selected == 0)),
            KeyCode::Left | KeyCode::Right | KeyCode::Up | KeyCode::Down | KeyCode::Tab => {
                self.selected = 1 - self.selected.min(1);
                None
            }
            _ => None,
        }
    }

    fn input_key(&mut self, key: KeyEvent) -> Option<DialogAnswer> {
        match key.code {
            KeyCode::Enter => return Some(DialogAnswer::Typed(self.text.text().to_owned())),
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                self.text.insert(&c.to_string());
            }
            KeyCode::Backspace => self.text.backspace(),
            KeyCode::Delete => self.text.delete(),
            KeyCode::Left => self.text.left(),
            KeyCode::Right => self.text.right(),
            KeyCode::Home => self.text.home(),
            KeyCode::End => self.text.end(),
            _ => {}
        }
        None
    }
}
