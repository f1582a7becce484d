//! The `/fork` picker: the session's user messages, newest first as Pi lists them; Enter starts
//! a new session file branched before the highlighted one, with its text in the editor. The
//! list, search and keys are the generic [`Picker`]'s.

use crossterm::event::KeyEvent;

use super::view::one_line;
use super::{ForkPoint, OverlayOutcome, SwitchRequest};
use crate::picker::{DetailLayout, Picker, PickerItem, PickerOutcome};

/// The picker's state.
#[derive(Clone, Debug)]
pub struct ForkPicker {
    /// The user messages, newest first.
    newest_first: Vec<ForkPoint>,
    picker: Picker,
}

impl ForkPicker {
    /// A picker over `points` (oldest first, as the session file holds them).
    pub fn new(mut points: Vec<ForkPoint>) -> Self {
        points.reverse();
        let items = points
            .iter()
            .map(|point| PickerItem::new(one_line(&point.text), Vec::new()))
            .collect();
        ForkPicker {
            newest_first: points,
            picker: Picker::new("Fork from a message", items)
                .with_empty_text("No messages to fork from")
                .with_layout(DetailLayout::Right),
        }
    }

    /// The list, its search and its highlight.
    pub fn picker(&self) -> &Picker {
        &self.picker
    }

    /// The rows the search lets through, best match first (newest first without a search).
    pub fn visible(&self) -> Vec<&ForkPoint> {
        self.picker
            .visible()
            .iter()
            .filter_map(|&i| self.newest_first.get(i))
            .collect()
    }

    /// Handles one key (the picker's keys).
    pub fn on_key(&mut self, key: KeyEvent) -> OverlayOutcome {
        match self.picker.handle_key(key) {
            PickerOutcome::None => OverlayOutcome::Open,
            PickerOutcome::Cancelled => OverlayOutcome::Cancelled,
            PickerOutcome::Picked(i) => match self.newest_first.get(i) {
                Some(point) => OverlayOutcome::Chosen(SwitchRequest::Fork(point.entry_id.clone())),
                None => OverlayOutcome::Open,
            },
        }
    }
}
