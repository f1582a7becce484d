//! A fuzzy-search list: items with a label and detail columns, a query typed by the user, a
//! highlighted row. The model picker and the session pickers share it, so every list in the UI
//! searches and moves the same way.

pub mod view;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};

/// One row of a picker.
#[derive(Clone, Debug, PartialEq)]
pub struct PickerItem {
    /// The main text, searched and shown first.
    pub label: String,
    /// Further columns (provider, size, date…), searched and shown after the label.
    pub details: Vec<String>,
    /// What the query is matched against instead of the label and details, when set.
    search: Option<String>,
}

impl PickerItem {
    /// An item with `label` and `details`.
    pub fn new(label: impl Into<String>, details: Vec<String>) -> Self {
        PickerItem {
            label: label.into(),
            details,
            search: None,
        }
    }

    /// The item searched by `text` rather than by what it shows (a session by its name, first
    /// message and directory, not its size and date).
    pub fn searched_by(mut self, text: impl Into<String>) -> Self {
        self.search = Some(text.into());
        self
    }

    fn haystack(&self) -> String {
        if let Some(search) = &self.search {
            return search.clone();
        }
        let mut text = self.label.clone();
        for detail in &self.details {
            text.push(' ');
            text.push_str(detail);
        }
        text
    }
}

/// What a key did to a picker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PickerOutcome {
    /// Still open.
    None,
    /// Enter on this item (its index in the items given to [`Picker::new`]).
    Picked(usize),
    /// Escape or Ctrl+C.
    Cancelled,
}

/// Rows PageUp/PageDown move.
const PAGE: usize = 10;

/// Where a row's details go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DetailLayout {
    /// In a column after the labels, which are padded to one width (the model picker).
    Column,
    /// Against the right edge, the label taking what is left (the session pickers).
    Right,
}

/// A picker's state.
#[derive(Clone, Debug, PartialEq)]
pub struct Picker {
    title: String,
    items: Vec<PickerItem>,
    query: String,
    /// Indices into `items` that match the query, best first.
    visible: Vec<usize>,
    /// Position in `visible`.
    selected: usize,
    /// Shown instead of rows when nothing matches.
    empty: String,
    layout: DetailLayout,
    /// Whether matches keep the items' order instead of going best first.
    keep_order: bool,
}

impl Picker {
    /// A picker titled `title` over `items`, all shown, the first highlighted.
    pub fn new(title: impl Into<String>, items: Vec<PickerItem>) -> Self {
        let visible = (0..items.len()).collect();
        Picker {
            title: title.into(),
            items,
            query: String::new(),
            visible,
            selected: 0,
            empty: "No matches".to_owned(),
            layout: DetailLayout::Column,
            keep_order: false,
        }
    }

    /// Shows `text` instead of rows when nothing matches.
    pub fn with_empty_text(mut self, text: impl Into<String>) -> Self {
        self.empty = text.into();
        self
    }

    /// Lays the details out as `layout` says.
    pub fn with_layout(mut self, layout: DetailLayout) -> Self {
        self.layout = layout;
        self
    }

    /// Replaces what is shown when nothing matches (it may depend on filters outside the
    /// picker, as the session picker's named-only filter).
    pub fn set_empty_text(&mut self, text: impl Into<String>) {
        self.empty = text.into();
    }

    /// Lists the matches in the items' order (`true`, Pi's "recent" session sort) or best first
    /// (`false`, the default); the best match is highlighted.
    pub fn set_keep_order(&mut self, keep_order: bool) {
        self.keep_order = keep_order;
        self.refilter();
    }

    /// Highlights the row at `position` among the visible ones (the last if there are fewer),
    /// so that a list rebuilt under the highlight keeps its place as Pi's session list does.
    pub fn select_row(&mut self, position: usize) {
        self.selected = position.min(self.visible.len().saturating_sub(1));
    }

    /// What is shown when nothing matches.
    pub fn empty_text(&self) -> &str {
        &self.empty
    }

    /// Where the details go.
    pub fn layout(&self) -> DetailLayout {
        self.layout
    }

    /// Replaces the items (another scope of the same list), keeping the query; the best match
    /// is highlighted.
    pub fn set_items(&mut self, items: Vec<PickerItem>) {
        self.items = items;
        self.refilter();
    }

    /// Highlights the item at `index` (e.g. the model in use), if it is shown.
    pub fn with_selected(mut self, index: usize) -> Self {
        if let Some(position) = self.visible.iter().position(|&i| i == index) {
            self.selected = position;
        }
        self
    }

    /// The title shown above the list.
    pub fn title(&self) -> &str {
        &self.title
    }

    /// Every item, in the order given.
    pub fn items(&self) -> &[PickerItem] {
        &self.items
    }

    /// The search text.
    pub fn query(&self) -> &str {
        &self.query
    }

    /// Replaces the search text; the best match is highlighted.
    pub fn set_query(&mut self, query: impl Into<String>) {
        self.query = query.into();
        self.refilter();
    }

    /// The indices of the items the query lets through, best first.
    pub fn visible(&self) -> &[usize] {
        &self.visible
    }

    /// The highlighted row's position among the visible ones.
    pub fn selected_row(&self) -> usize {
        self.selected
    }

    /// The highlighted item's index, if anything matches.
    pub fn selected(&self) -> Option<usize> {
        self.visible.get(self.selected).copied()
    }

    /// Handles one key: typing edits the query, Up/Down (wrapping) and PageUp/PageDown move,
    /// Enter picks, Escape or Ctrl+C cancels.
    pub fn handle_key(&mut self, key: KeyEvent) -> PickerOutcome {
        if key.kind == KeyEventKind::Release {
            return PickerOutcome::None;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Esc => return PickerOutcome::Cancelled,
            KeyCode::Char('c') if ctrl => return PickerOutcome::Cancelled,
            KeyCode::Enter => {
                return self
                    .selected()
                    .map_or(PickerOutcome::None, PickerOutcome::Picked);
            }
            KeyCode::Up => self.step(-1),
            KeyCode::Down => self.step(1),
            KeyCode::Char('p') if ctrl => self.step(-1),
            KeyCode::Char('n') if ctrl => self.step(1),
            KeyCode::PageUp => self.selected = self.selected.saturating_sub(PAGE),
            KeyCode::PageDown => {
                self.selected = (self.selected + PAGE).min(self.visible.len().saturating_sub(1));
            }
            KeyCode::Backspace if self.query.pop().is_some() => self.refilter(),
            KeyCode::Char('u') if ctrl => {
                self.query.clear();
                self.refilter();
            }
            KeyCode::Char(c) if !ctrl => {
                self.query.push(c);
                self.refilter();
            }
            _ => {}
        }
        PickerOutcome::None
    }

    fn step(&mut self, delta: isize) {
        self.selected = wrap_step(self.selected, self.visible.len(), delta);
    }

    fn refilter(&mut self) {
        self.selected = 0;
        self.visible = fuzzy_order(&self.query, self.items.iter().map(PickerItem::haystack));
        if self.keep_order {
            self.visible.sort_unstable();
        }
    }
}

/// A selection moved by `delta` rows in a list of `len`, wrapping around as Pi's lists do.
pub(crate) fn wrap_step(selected: usize, len: usize, delta: isize) -> usize {
    if len == 0 {
        return 0;
    }
    let len = len as isize;
    (selected as isize + delta).rem_euclid(len) as usize
}

/// The indices of `candidates` matching `query` fuzzily, best first (ties keep their order); all
/// of them in order for a blank query.
pub fn fuzzy_order(query: &str, candidates: impl Iterator<Item = String>) -> Vec<usize> {
    let candidates: Vec<String> = candidates.collect();
    if query.trim().is_empty() {
        return (0..candidates.len()).collect();
    }
    let mut matcher = Matcher::new(Config::DEFAULT);
    let pattern = Pattern::parse(query, CaseMatching::Ignore, Normalization::Smart);
    let mut buffer = Vec::new();
    let mut scored: Vec<(u32, usize)> = candidates
        .iter()
        .enumerate()
        .filter_map(|(i, text)| {
            let score = pattern.score(Utf32Str::new(text, &mut buffer), &mut matcher)?;
            Some((score, i))
        })
        .collect();
    // Stable: equal scores keep the caller's order (the catalog's, the newest session first).
    scored.sort_by_key(|&(score, _)| std::cmp::Reverse(score));
    scored.into_iter().map(|(_, i)| i).collect()
}
