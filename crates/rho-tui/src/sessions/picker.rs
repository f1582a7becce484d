//! The `/resume` picker, as Pi's session selector: this directory's sessions (Tab: every
//! directory's), narrowed by typing; Enter continues the highlighted one. Ctrl+S cycles the sort
//! (threaded, recent, fuzzy), Ctrl+N lists only named sessions, Ctrl+P shows the files' paths,
//! Ctrl+R renames the highlighted session and Ctrl+D (or Ctrl+Backspace with no query) deletes
//! it after a confirmation. The list, search and moves are the generic [`Picker`]'s; renaming and
//! deleting are the binary's ([`super::SessionSwitcher`]), asked for with
//! [`OverlayOutcome::ChangeSessionFile`].

use std::path::{Path, PathBuf};

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::rename::{RenameInput, RenameKey};
use super::resume_order::{NameFilter, SortMode, arrange};
use super::view::{one_line, session_details};
use super::{OverlayOutcome, SessionRow, SwitchRequest};
use crate::picker::{DetailLayout, Picker, PickerItem, PickerOutcome};

/// Pi's refusal to delete the session rho has open.
pub const CANNOT_DELETE_CURRENT: &str = "Cannot delete the currently active session";

/// A change to a listed session file, for the binary to make.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SessionFileChange {
    /// Delete the file (confirmed).
    Delete(PathBuf),
    /// Name the session: a `session_info` entry appended to its file.
    Rename {
        /// The file.
        path: PathBuf,
        /// The new name, trimmed and not empty.
        name: String,
    },
}

/// A line shown in place of the hints until the next key (Pi shows it for a few seconds).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PickerStatus {
    /// Whether it reports a failure (drawn in red).
    pub error: bool,
    /// The text.
    pub text: String,
}

/// The picker's state.
#[derive(Clone, Debug)]
pub struct SessionPicker {
    here: Vec<SessionRow>,
    everywhere: Vec<SessionRow>,
    all: bool,
    sort: SortMode,
    names: NameFilter,
    show_path: bool,
    /// The session rho has open, which cannot be deleted.
    current: Option<PathBuf>,
    /// The picker's item `i` is `rows()[order[i]]`.
    order: Vec<usize>,
    /// The session whose deletion waits for Enter.
    confirming: Option<PathBuf>,
    renaming: Option<RenameInput>,
    status: Option<PickerStatus>,
    picker: Picker,
}

impl SessionPicker {
    /// A picker over `here` (this directory) and `everywhere` (all directories), threaded.
    pub fn new(here: Vec<SessionRow>, everywhere: Vec<SessionRow>) -> Self {
        let picker = Picker::new("Resume Session", Vec::new()).with_layout(DetailLayout::Right);
        let mut picker = SessionPicker {
            here,
            everywhere,
            all: false,
            sort: SortMode::default(),
            names: NameFilter::default(),
            show_path: false,
            current: None,
            order: Vec::new(),
            confirming: None,
            renaming: None,
            status: None,
            picker,
        };
        picker.rebuild(false);
        picker
    }

    /// Marks `current` as the session rho has open: it cannot be deleted.
    pub fn with_current(mut self, current: Option<PathBuf>) -> Self {
        self.current = current;
        self
    }

    /// Whether every directory's sessions are listed.
    pub fn all(&self) -> bool {
        self.all
    }

    /// The sort in effect.
    pub fn sort(&self) -> SortMode {
        self.sort
    }

    /// The name filter in effect.
    pub fn name_filter(&self) -> NameFilter {
        self.names
    }

    /// Whether each session's file path is shown in its details.
    pub fn shows_path(&self) -> bool {
        self.show_path
    }

    /// The session whose deletion waits for Enter.
    pub fn confirming_delete(&self) -> Option<&Path> {
        self.confirming.as_deref()
    }

    /// The rename input, while one is open.
    pub fn rename_input(&self) -> Option<&RenameInput> {
        self.renaming.as_ref()
    }

    /// The line shown in place of the hints.
    pub fn status(&self) -> Option<&PickerStatus> {
        self.status.as_ref()
    }

    /// The list, its search and its highlight.
    pub fn picker(&self) -> &Picker {
        &self.picker
    }

    /// The sessions of the scope shown, in the order given.
    pub fn rows(&self) -> &[SessionRow] {
        if self.all {
            &self.everywhere
        } else {
            &self.here
        }
    }

    /// The rows listed, in the order shown.
    pub fn visible(&self) -> Vec<&SessionRow> {
        let rows = self.rows();
        self.picker
            .visible()
            .iter()
            .filter_map(|&i| self.order.get(i).and_then(|&r| rows.get(r)))
            .collect()
    }

    /// The highlighted session.
    pub fn highlighted(&self) -> Option<&SessionRow> {
        let row = self.order.get(self.picker.selected()?)?;
        self.rows().get(*row)
    }

    /// Shows `status` in place of the hints until the next key.
    pub fn set_status(&mut self, status: PickerStatus) {
        self.status = Some(status);
    }

    /// Lists `here` and `everywhere` anew (after a change to a file), keeping the search, the
    /// modes and the highlight's place.
    pub fn reload(&mut self, here: Vec<SessionRow>, everywhere: Vec<SessionRow>) {
        self.here = here;
        self.everywhere = everywhere;
        self.rebuild(true);
    }

    /// Handles one key. While a deletion waits for its confirmation every key goes to it, and
    /// while the rename input is open every key goes there.
    pub fn on_key(&mut self, key: KeyEvent) -> OverlayOutcome {
        if key.kind == KeyEventKind::Release {
            return OverlayOutcome::Open;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if let Some(input) = self.renaming.as_mut() {
            match input.on_key(key) {
                RenameKey::Editing => {}
                RenameKey::Cancelled => self.renaming = None,
                RenameKey::Submitted(name) => {
                    let path = input.path().to_path_buf();
                    self.renaming = None;
                    return self.ask(SessionFileChange::Rename { path, name });
                }
            }
            return OverlayOutcome::Open;
        }
        if let Some(path) = self.confirming.take() {
            match key.code {
                KeyCode::Enter => return self.ask(SessionFileChange::Delete(path)),
                KeyCode::Esc => {}
                KeyCode::Char('c') if ctrl => {}
                _ => self.confirming = Some(path),
            }
            return OverlayOutcome::Open;
        }
        self.status = None;
        match key.code {
            KeyCode::Tab => {
                self.all = !self.all;
                self.rebuild(true);
            }
            KeyCode::Char('s') if ctrl => {
                self.sort = self.sort.next();
                self.rebuild(true);
            }
            KeyCode::Char('n') if ctrl => {
                self.names = self.names.toggled();
                self.rebuild(true);
            }
            KeyCode::Char('p') if ctrl => {
                self.show_path = !self.show_path;
                self.rebuild(true);
            }
            KeyCode::Char('d') if ctrl => self.ask_delete(),
            KeyCode::Backspace if ctrl && self.picker.query().is_empty() => self.ask_delete(),
            KeyCode::Char('r') if ctrl => {
                if let Some(row) = self.highlighted() {
                    self.renaming = Some(RenameInput::new(&row.path, row.name.as_deref()));
                }
            }
            _ => return self.list_key(key),
        }
        OverlayOutcome::Open
    }

    fn ask(&mut self, change: SessionFileChange) -> OverlayOutcome {
        OverlayOutcome::ChangeSessionFile(change)
    }

    /// Ctrl+D: asks to confirm deleting the highlighted session, which must not be rho's own.
    fn ask_delete(&mut self) {
        let Some(path) = self.highlighted().map(|row| row.path.clone()) else {
            return;
        };
        if self.current.as_deref() == Some(path.as_path()) {
            self.status = Some(PickerStatus {
                error: true,
                text: CANNOT_DELETE_CURRENT.to_owned(),
            });
        } else {
            self.confirming = Some(path);
        }
    }

    /// A key for the list and its search.
    fn list_key(&mut self, key: KeyEvent) -> OverlayOutcome {
        let searching = self.searching();
        let outcome = self.picker.handle_key(key);
        // The threaded tree is flat while a query is typed.
        if self.sort == SortMode::Threaded && self.searching() != searching {
            self.rebuild(false);
        }
        match outcome {
            PickerOutcome::None => OverlayOutcome::Open,
            PickerOutcome::Cancelled => OverlayOutcome::Cancelled,
            PickerOutcome::Picked(i) => {
                let row = self.order.get(i).and_then(|&r| self.rows().get(r));
                match row {
                    Some(row) => OverlayOutcome::Chosen(SwitchRequest::Open(row.path.clone())),
                    None => OverlayOutcome::Open,
                }
            }
        }
    }

    fn searching(&self) -> bool {
        !self.picker.query().trim().is_empty()
    }

    /// Lays the list out again for the scope, filter and sort in effect; the highlight keeps
    /// its place (`keep`) or goes to the top.
    fn rebuild(&mut self, keep: bool) {
        let position = self.picker.selected_row();
        let arranged = arrange(self.rows(), self.sort, self.names, self.searching());
        let rows = self.rows();
        let items = arranged
            .iter()
            .filter_map(|a| {
                let row = rows.get(a.row)?;
                Some(item(row, &a.prefix, self.all, self.show_path))
            })
            .collect();
        self.order = arranged.iter().map(|a| a.row).collect();
        self.picker.set_keep_order(!self.sort.ranks_matches());
        self.picker.set_items(items);
        self.picker.set_empty_text(self.empty_text());
        if keep {
            self.picker.select_row(position);
        }
    }

    /// Pi's line for an empty list, which says how to see more.
    fn empty_text(&self) -> &'static str {
        match (self.names, self.all) {
            (NameFilter::Named, true) => "No named sessions found. Press ctrl+n to show all.",
            (NameFilter::Named, false) => {
                "No named sessions in current folder. Press ctrl+n to show all, or Tab to view all."
            }
            (NameFilter::All, true) => "No sessions found",
            (NameFilter::All, false) => "No sessions in current folder. Press Tab to view all.",
        }
    }
}

/// A row as a picker item: the tree drawing and the name (or first message), the details,
/// searched by name, first message and directory.
fn item(row: &SessionRow, prefix: &str, with_cwd: bool, with_path: bool) -> PickerItem {
    let name = row.name.as_deref().unwrap_or_default();
    let text = one_line(if name.is_empty() {
        &row.first_message
    } else {
        name
    });
    let details = session_details(row, with_cwd, with_path);
    PickerItem::new(format!("{prefix}{text}"), vec![details])
        .searched_by(format!("{name} {} {}", row.first_message, row.cwd))
}
