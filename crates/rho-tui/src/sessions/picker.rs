//! The `/resume` picker: this directory's sessions (Tab: every directory's), newest first,
//! narrowed by typing; Enter continues the highlighted one. The list, search and keys are the
//! generic [`Picker`]'s; this adds the two scopes.

use crossterm::event::{KeyCode, KeyEvent};

use super::view::{one_line, session_details};
use super::{OverlayOutcome, SessionRow, SwitchRequest};
use crate::picker::{DetailLayout, Picker, PickerItem, PickerOutcome};

/// The picker's state.
#[derive(Clone, Debug)]
pub struct SessionPicker {
    here: Vec<SessionRow>,
    everywhere: Vec<SessionRow>,
    all: bool,
    picker: Picker,
}

impl SessionPicker {
    /// A picker over `here` (this directory) and `everywhere` (all directories).
    pub fn new(here: Vec<SessionRow>, everywhere: Vec<SessionRow>) -> Self {
        let picker = Picker::new("Resume Session", items(&here, false))
            .with_empty_text("No sessions found")
            .with_layout(DetailLayout::Right);
        SessionPicker {
            here,
            everywhere,
            all: false,
            picker,
        }
    }

    /// Whether every directory's sessions are listed.
    pub fn all(&self) -> bool {
        self.all
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

    /// The rows the search lets through, best match first.
    pub fn visible(&self) -> Vec<&SessionRow> {
        let rows = self.rows();
        self.picker
            .visible()
            .iter()
            .filter_map(|&i| rows.get(i))
            .collect()
    }

    /// Handles one key: Tab switches the scope, the rest is the picker's.
    pub fn on_key(&mut self, key: KeyEvent) -> OverlayOutcome {
        if key.code == KeyCode::Tab {
            self.all = !self.all;
            let items = items(self.rows(), self.all);
            self.picker.set_items(items);
            return OverlayOutcome::Open;
        }
        match self.picker.handle_key(key) {
            PickerOutcome::None => OverlayOutcome::Open,
            PickerOutcome::Cancelled => OverlayOutcome::Cancelled,
            PickerOutcome::Picked(i) => match self.rows().get(i) {
                Some(row) => OverlayOutcome::Chosen(SwitchRequest::Open(row.path.clone())),
                None => OverlayOutcome::Open,
            },
        }
    }
}

/// The rows as picker items: the name (or first message) and the details, searched by name,
/// first message and directory.
fn items(rows: &[SessionRow], with_cwd: bool) -> Vec<PickerItem> {
    rows.iter()
        .map(|row| {
            let name = row.name.as_deref().unwrap_or_default();
            let label = one_line(if name.is_empty() {
                &row.first_message
            } else {
                name
            });
            PickerItem::new(label, vec![session_details(row, with_cwd)])
                .searched_by(format!("{name} {} {}", row.first_message, row.cwd))
        })
        .collect()
}
