//! The `@` file list under the editor: open while an `@` word is typed, filled from the files
//! walked once (the walk is an effect; the list waits empty until it is done).

use crate::completion::{Completion, FileIndex, at_word};

/// The list and the files it completes from.
#[derive(Clone, Debug, Default)]
pub(crate) struct AtPaths {
    /// The list, while open.
    open: Option<Completion>,
    /// The files, once walked (`None` until the first `@`).
    files: Option<FileIndex>,
}

impl AtPaths {
    pub(crate) fn list(&self) -> Option<&Completion> {
        self.open.as_ref()
    }

    /// Whether the files were walked.
    pub(crate) fn indexed(&self) -> bool {
        self.files.is_some()
    }

    pub(crate) fn close(&mut self) {
        self.open = None;
    }

    /// Up in the open list, wrapping; `false` when there is nothing to move in.
    pub(crate) fn up(&mut self) -> bool {
        match &mut self.open {
            Some(open) if !open.items.is_empty() => {
                open.selected = open.selected.checked_sub(1).unwrap_or(open.items.len() - 1);
                true
            }
            _ => false,
        }
    }

    /// Down in the open list, wrapping; `false` when there is nothing to move in.
    pub(crate) fn down(&mut self) -> bool {
        match &mut self.open {
            Some(open) if !open.items.is_empty() => {
                open.selected = (open.selected + 1) % open.items.len();
                true
            }
            _ => false,
        }
    }

    /// Opens, updates or closes the list for the editor's `text` and `cursor`. Returns `true`
    /// the first time an `@` word needs the files walked.
    pub(crate) fn refresh(&mut self, text: &str, cursor: usize) -> bool {
        let Some((start, query)) = at_word(text, cursor) else {
            self.open = None;
            return false;
        };
        let query = query.to_owned();
        let Some(files) = &self.files else {
            self.open = Some(Completion {
                start,
                query,
                items: Vec::new(),
                selected: 0,
            });
            return true;
        };
        let items = files.matches(&query);
        let selected = match &self.open {
            Some(open) if open.start == start && open.query == query => {
                open.selected.min(items.len().saturating_sub(1))
            }
            _ => 0,
        };
        self.open = Some(Completion {
            start,
            query,
            items,
            selected,
        });
        false
    }

    /// The walked files arrived; whether a list is open to fill from them.
    pub(crate) fn set_files(&mut self, files: FileIndex) -> bool {
        self.files = Some(files);
        self.open.is_some()
    }
}
