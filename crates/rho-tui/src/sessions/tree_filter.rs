//! Which entries the `/tree` navigator shows (Pi's `treeFilterMode`) and how the rows it lets
//! through are indented: an entry whose parent is hidden hangs under its nearest shown ancestor,
//! and a level of indentation is added where that filtered tree branches.

use std::collections::HashMap;

use super::{TreeEntryKind, TreeRow};

/// A filter of the tree, as Pi names and cycles them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TreeFilter {
    /// Everything but bookkeeping (labels, extension state, model and thinking level changes,
    /// the session name).
    #[default]
    Default,
    /// The default view without tool results.
    NoTools,
    /// Only the user's messages.
    UserOnly,
    /// Only entries that carry a label.
    LabeledOnly,
    /// Every entry.
    All,
}

/// The filters in the order Ctrl+O cycles through them.
const CYCLE: [TreeFilter; 5] = [
    TreeFilter::Default,
    TreeFilter::NoTools,
    TreeFilter::UserOnly,
    TreeFilter::LabeledOnly,
    TreeFilter::All,
];

impl TreeFilter {
    /// The filter a `treeFilterMode` setting names (`default`, `no-tools`, `user-only`,
    /// `labeled-only`, `all`).
    pub fn from_name(name: &str) -> Option<TreeFilter> {
        CYCLE.into_iter().find(|filter| filter.name() == name)
    }

    /// The setting's spelling.
    pub fn name(self) -> &'static str {
        match self {
            TreeFilter::Default => "default",
            TreeFilter::NoTools => "no-tools",
            TreeFilter::UserOnly => "user-only",
            TreeFilter::LabeledOnly => "labeled-only",
            TreeFilter::All => "all",
        }
    }

    /// What the title shows after "Session Tree" (nothing for the default view), as Pi does.
    pub fn tag(self) -> &'static str {
        match self {
            TreeFilter::Default => "",
            TreeFilter::NoTools => " [no-tools]",
            TreeFilter::UserOnly => " [user]",
            TreeFilter::LabeledOnly => " [labeled]",
            TreeFilter::All => " [all]",
        }
    }

    /// The next filter of Ctrl+O's cycle.
    pub fn next(self) -> TreeFilter {
        self.step(1)
    }

    /// The previous filter (Shift+Ctrl+O).
    pub fn previous(self) -> TreeFilter {
        self.step(CYCLE.len() - 1)
    }

    fn step(self, by: usize) -> TreeFilter {
        let at = CYCLE.iter().position(|&f| f == self).unwrap_or(0);
        CYCLE[(at + by) % CYCLE.len()]
    }

    /// `other`, or the default view when `other` is already on (Pi's toggling keys).
    pub fn toggled(self, other: TreeFilter) -> TreeFilter {
        if self == other {
            TreeFilter::Default
        } else {
            other
        }
    }

    /// Whether `row` is shown under this filter.
    pub fn admits(self, row: &TreeRow) -> bool {
        match self {
            TreeFilter::Default => row.kind != TreeEntryKind::Bookkeeping,
            TreeFilter::NoTools => !matches!(
                row.kind,
                TreeEntryKind::Bookkeeping | TreeEntryKind::ToolResult
            ),
            TreeFilter::UserOnly => row.kind == TreeEntryKind::UserMessage,
            TreeFilter::LabeledOnly => row.label.is_some(),
            TreeFilter::All => true,
        }
    }
}

/// A row a filter lets through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShownRow {
    /// Its index in the rows given to [`shown_rows`].
    pub index: usize,
    /// How many branch points of the filtered tree lie above it (its indentation).
    pub depth: usize,
}

/// The rows of `rows` (in display order: depth first, siblings in file order) that `filter`
/// shows, in the same order, indented for the tree they form: roots at 0 (at 1 when there are
/// several), a child one deeper than its shown parent when that parent has several shown
/// children, else level with it.
pub fn shown_rows(rows: &[TreeRow], filter: TreeFilter) -> Vec<ShownRow> {
    let by_id = index_by_id(rows);
    let admitted: Vec<bool> = rows.iter().map(|row| filter.admits(row)).collect();
    let parents: Vec<Option<usize>> = (0..rows.len())
        .map(|i| shown_ancestor(rows, &by_id, &admitted, i))
        .collect();
    let mut children: HashMap<Option<usize>, usize> = HashMap::new();
    for i in (0..rows.len()).filter(|&i| admitted[i]) {
        *children.entry(parents[i]).or_default() += 1;
    }
    let several = |parent: Option<usize>| children.get(&parent).is_some_and(|&n| n > 1);
    let mut depths: Vec<Option<usize>> = vec![None; rows.len()];
    let mut shown = Vec::new();
    for index in (0..rows.len()).filter(|&i| admitted[i]) {
        let parent = parents[index];
        let above = parent.and_then(|p| depths[p]).unwrap_or(0);
        let depth = above + usize::from(several(parent));
        depths[index] = Some(depth);
        shown.push(ShownRow { index, depth });
    }
    shown
}

/// The position in `shown` of the row for `entry_id`, or of its nearest shown ancestor; `None`
/// when neither is shown.
pub fn nearest_shown(rows: &[TreeRow], shown: &[ShownRow], entry_id: &str) -> Option<usize> {
    let by_id = index_by_id(rows);
    let position: HashMap<usize, usize> = shown
        .iter()
        .enumerate()
        .map(|(position, row)| (row.index, position))
        .collect();
    let mut at = by_id.get(entry_id).copied();
    // Bounded: a malformed parent chain must not loop forever.
    for _ in 0..=rows.len() {
        let index = at?;
        if let Some(&found) = position.get(&index) {
            return Some(found);
        }
        at = parent_of(rows, &by_id, index);
    }
    None
}

fn index_by_id(rows: &[TreeRow]) -> HashMap<&str, usize> {
    rows.iter()
        .enumerate()
        .map(|(i, row)| (row.entry_id.as_str(), i))
        .collect()
}

fn parent_of(rows: &[TreeRow], by_id: &HashMap<&str, usize>, index: usize) -> Option<usize> {
    let parent = rows.get(index)?.parent_id.as_deref()?;
    by_id.get(parent).copied()
}

/// The nearest ancestor of `rows[index]` that is shown.
fn shown_ancestor(
    rows: &[TreeRow],
    by_id: &HashMap<&str, usize>,
    admitted: &[bool],
    index: usize,
) -> Option<usize> {
    let mut at = parent_of(rows, by_id, index);
    for _ in 0..rows.len() {
        let parent = at?;
        if admitted[parent] {
            return Some(parent);
        }
        at = parent_of(rows, by_id, parent);
    }
    None
}

#[cfg(test)]
#[path = "tree_filter_tests.rs"]
mod tests;
