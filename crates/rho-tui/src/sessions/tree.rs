//! The `/tree` navigator: the entries of the session file that the filter shows, indented at
//! branch points, the current leaf (or its nearest shown ancestor) marked. Enter on another entry
//! asks Pi's "Summarize branch?" (no summary, or a summary of the branch left behind), then moves
//! the leaf; Escape in that question goes back to the tree. Pi's filter keys change which entries
//! are shown, and Shift+L edits the highlighted entry's label.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::tree_filter::{ShownRow, nearest_shown, shown_rows};
use super::tree_label::{LabelInput, LabelKey};
use super::{OverlayOutcome, SwitchRequest, TreeEntryKind, TreeFilter, TreeRow};
use crate::picker::wrap_step as step;

/// Rows one Left/Right moves (Pi: page up/down).
const PAGE: usize = 10;

/// The answers to "Summarize branch?", in Pi's order (Pi's third, a custom prompt, is not
/// offered).
pub const SUMMARY_CHOICES: [&str; 2] = ["No summary", "Summarize"];

/// The navigator's state.
#[derive(Clone, Debug)]
pub struct TreeView {
    /// Every entry, in display order.
    rows: Vec<TreeRow>,
    filter: TreeFilter,
    /// The rows the filter shows.
    shown: Vec<ShownRow>,
    /// The highlighted row, a position in `shown`.
    selected: usize,
    /// The highlighted entry, kept while a filter shows nothing so that the next one finds it.
    anchor: Option<String>,
    /// While "Summarize branch?" is asked: the highlighted answer.
    pub asking: Option<usize>,
    /// While a label is edited: the input.
    editing: Option<LabelInput>,
}

impl TreeView {
    /// A navigator over `rows` in the default view, starting on the current leaf as Pi does.
    pub fn new(rows: Vec<TreeRow>) -> Self {
        Self::with_filter(rows, TreeFilter::Default)
    }

    /// A navigator over `rows` showing what `filter` lets through, starting on the current leaf
    /// or its nearest shown ancestor.
    pub fn with_filter(rows: Vec<TreeRow>, filter: TreeFilter) -> Self {
        let anchor = rows
            .iter()
            .find(|row| row.current)
            .map(|row| row.entry_id.clone());
        let mut view = TreeView {
            rows,
            filter,
            shown: Vec::new(),
            selected: 0,
            anchor,
            asking: None,
            editing: None,
        };
        view.refilter();
        view
    }

    /// The filter in force.
    pub fn filter(&self) -> TreeFilter {
        self.filter
    }

    /// The shown rows with their indentation, in display order.
    pub fn shown(&self) -> impl Iterator<Item = (&TreeRow, usize)> {
        self.shown
            .iter()
            .filter_map(|shown| Some((self.rows.get(shown.index)?, shown.depth)))
    }

    /// How many rows are shown.
    pub fn shown_len(&self) -> usize {
        self.shown.len()
    }

    /// Whether the file has no entries at all (not merely none the filter shows).
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The highlighted row's position among the shown ones.
    pub fn selected(&self) -> usize {
        self.selected
    }

    /// The highlighted entry.
    pub fn selected_row(&self) -> Option<&TreeRow> {
        self.row_at(self.selected)
    }

    /// The position of the row marked active: the current leaf, or its nearest shown ancestor.
    pub fn active(&self) -> Option<usize> {
        let leaf = self.rows.iter().find(|row| row.current)?;
        nearest_shown(&self.rows, &self.shown, &leaf.entry_id)
    }

    /// The label input, while Shift+L has it open.
    pub fn label_input(&self) -> Option<&LabelInput> {
        self.editing.as_ref()
    }

    /// Replaces the rows (the file changed: a label was written), keeping the filter and the
    /// highlighted entry.
    pub fn reload(&mut self, rows: Vec<TreeRow>) {
        self.remember_selection();
        self.rows = rows;
        self.refilter();
    }

    fn row_at(&self, position: usize) -> Option<&TreeRow> {
        self.rows.get(self.shown.get(position)?.index)
    }

    fn remember_selection(&mut self) {
        if let Some(row) = self.selected_row() {
            self.anchor = Some(row.entry_id.clone());
        }
    }

    /// Shows what the filter lets through, the highlight on the remembered entry, else on its
    /// nearest shown ancestor, else on the last row (Pi's fallback).
    fn refilter(&mut self) {
        self.shown = shown_rows(&self.rows, self.filter);
        let found = self
            .anchor
            .as_deref()
            .and_then(|id| nearest_shown(&self.rows, &self.shown, id));
        self.selected = found.unwrap_or(self.shown.len().saturating_sub(1));
        self.remember_selection();
    }

    fn set_filter(&mut self, filter: TreeFilter) {
        self.remember_selection();
        self.filter = filter;
        self.refilter();
    }

    /// Handles one key.
    pub fn on_key(&mut self, key: KeyEvent) -> OverlayOutcome {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if let Some(input) = self.editing.as_mut() {
            let outcome = input.on_key(key);
            return self.label_key(outcome);
        }
        if let Some(answer) = self.asking {
            return self.answer_key(key.code, ctrl, answer);
        }
        if ctrl && let Some(filter) = self.filter_key(key) {
            self.set_filter(filter);
            return OverlayOutcome::Open;
        }
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        let shift = key.modifiers.contains(KeyModifiers::SHIFT);
        let len = self.shown.len();
        match key.code {
            KeyCode::Esc => return OverlayOutcome::Cancelled,
            KeyCode::Char('c') if ctrl => return OverlayOutcome::Cancelled,
            KeyCode::Char('L') if !ctrl && !alt => self.edit_label(),
            KeyCode::Char('l') if shift && !ctrl && !alt => self.edit_label(),
            KeyCode::Enter => return self.choose(),
            KeyCode::Up => self.selected = step(self.selected, len, -1),
            KeyCode::Down => self.selected = step(self.selected, len, 1),
            KeyCode::Left => self.selected = self.selected.saturating_sub(PAGE),
            KeyCode::Right => {
                self.selected = (self.selected + PAGE).min(len.saturating_sub(1));
            }
            _ => {}
        }
        self.remember_selection();
        OverlayOutcome::Open
    }

    /// Pi's filter keys (with Ctrl held): D the default view; T, U, L and A toggle no-tools,
    /// user-only, labeled-only and all; O cycles forward, with Shift backward.
    fn filter_key(&self, key: KeyEvent) -> Option<TreeFilter> {
        let shift = key.modifiers.contains(KeyModifiers::SHIFT);
        let current = self.filter;
        Some(match key.code {
            KeyCode::Char('d') => TreeFilter::Default,
            KeyCode::Char('t') => current.toggled(TreeFilter::NoTools),
            KeyCode::Char('u') => current.toggled(TreeFilter::UserOnly),
            KeyCode::Char('l') => current.toggled(TreeFilter::LabeledOnly),
            KeyCode::Char('a') => current.toggled(TreeFilter::All),
            KeyCode::Char('O') => current.previous(),
            KeyCode::Char('o') if shift => current.previous(),
            KeyCode::Char('o') => current.next(),
            _ => return None,
        })
    }

    fn edit_label(&mut self) {
        if let Some(row) = self.selected_row() {
            self.editing = Some(LabelInput::new(&row.entry_id, row.label.as_deref()));
        }
    }

    fn label_key(&mut self, outcome: LabelKey) -> OverlayOutcome {
        match outcome {
            LabelKey::Editing => OverlayOutcome::Open,
            LabelKey::Cancelled => {
                self.editing = None;
                OverlayOutcome::Open
            }
            LabelKey::Submitted(change) => {
                self.editing = None;
                // Shown at once, as Pi does; the reload after saving confirms it.
                if let Some(row) = self
                    .rows
                    .iter_mut()
                    .find(|row| row.entry_id == change.entry_id)
                {
                    row.label.clone_from(&change.label);
                }
                OverlayOutcome::SaveLabel(change)
            }
        }
    }

    /// Enter on a row: Pi's "Already at this point" on the current leaf (or on the active row
    /// standing for it, unless that is a user message, which picking puts back in the editor);
    /// otherwise the summary question.
    fn choose(&mut self) -> OverlayOutcome {
        let active = self.active() == Some(self.selected);
        match self.selected_row() {
            Some(row) if row.current || (active && row.kind != TreeEntryKind::UserMessage) => {
                OverlayOutcome::Remark("Already at this point".to_owned())
            }
            Some(_) => {
                self.asking = Some(0);
                OverlayOutcome::Open
            }
            None => OverlayOutcome::Open,
        }
    }

    fn answer_key(&mut self, code: KeyCode, ctrl: bool, answer: usize) -> OverlayOutcome {
        match code {
            KeyCode::Esc => self.asking = None,
            KeyCode::Char('c') if ctrl => self.asking = None,
            KeyCode::Up => self.asking = Some(step(answer, SUMMARY_CHOICES.len(), -1)),
            KeyCode::Down => self.asking = Some(step(answer, SUMMARY_CHOICES.len(), 1)),
            KeyCode::Enter => {
                if let Some(row) = self.selected_row() {
                    return OverlayOutcome::Chosen(SwitchRequest::Branch {
                        entry_id: row.entry_id.clone(),
                        summarize: answer == 1,
                    });
                }
            }
            _ => {}
        }
        OverlayOutcome::Open
    }
}
