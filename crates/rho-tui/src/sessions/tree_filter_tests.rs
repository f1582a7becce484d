#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::{TreeFilter, nearest_shown, shown_rows};
use crate::sessions::{TreeEntryKind, TreeRow};

fn row(id: &str, parent: Option<&str>, kind: TreeEntryKind) -> TreeRow {
    TreeRow {
        entry_id: id.to_owned(),
        parent_id: parent.map(str::to_owned),
        kind,
        text: id.to_owned(),
        label: None,
        current: false,
        on_branch: false,
    }
}

/// ```text
/// m (model_change) ─ u1 ─ a1 ─┬─ u2 ─ a2 (tool call) ─ t2 (tool result) ─ a3 ─ l (label on u2)
///                             └─ u3 ─ a4
/// ```
fn rows() -> Vec<TreeRow> {
    use TreeEntryKind::{Bookkeeping, Conversation, ToolResult, UserMessage};
    let mut rows = vec![
        row("m", None, Bookkeeping),
        row("u1", Some("m"), UserMessage),
        row("a1", Some("u1"), Conversation),
        row("u2", Some("a1"), UserMessage),
        row("a2", Some("u2"), Conversation),
        row("t2", Some("a2"), ToolResult),
        row("a3", Some("t2"), Conversation),
        row("l", Some("a3"), Bookkeeping),
        row("u3", Some("a1"), UserMessage),
        row("a4", Some("u3"), Conversation),
    ];
    rows[3].label = Some("plan".to_owned());
    rows
}

/// `id:depth` for every shown row.
fn shown(filter: TreeFilter) -> Vec<String> {
    let rows = rows();
    shown_rows(&rows, filter)
        .into_iter()
        .map(|s| format!("{}:{}", rows[s.index].entry_id, s.depth))
        .collect()
}

#[test]
fn the_default_view_hides_bookkeeping_and_indents_below_the_branch_point() {
    assert_eq!(
        shown(TreeFilter::Default),
        [
            "u1:0", "a1:0", "u2:1", "a2:1", "t2:1", "a3:1", "u3:1", "a4:1"
        ]
    );
}

#[test]
fn no_tools_also_hides_tool_results() {
    assert_eq!(
        shown(TreeFilter::NoTools),
        ["u1:0", "a1:0", "u2:1", "a2:1", "a3:1", "u3:1", "a4:1"]
    );
}

#[test]
fn user_only_keeps_the_user_messages_and_the_branch_they_form() {
    assert_eq!(shown(TreeFilter::UserOnly), ["u1:0", "u2:1", "u3:1"]);
}

#[test]
fn labeled_only_keeps_the_labelled_entries() {
    assert_eq!(shown(TreeFilter::LabeledOnly), ["u2:0"]);
}

#[test]
fn all_shows_every_entry() {
    assert_eq!(
        shown(TreeFilter::All),
        [
            "m:0", "u1:0", "a1:0", "u2:1", "a2:1", "t2:1", "a3:1", "l:1", "u3:1", "a4:1"
        ]
    );
}

#[test]
fn the_nearest_shown_entry_is_the_entry_itself_or_its_closest_shown_ancestor() {
    let rows = rows();
    let user_only = shown_rows(&rows, TreeFilter::UserOnly);
    let id_at =
        |position: Option<usize>| position.map(|p| rows[user_only[p].index].entry_id.clone());
    assert_eq!(
        id_at(nearest_shown(&rows, &user_only, "u3")),
        Some("u3".to_owned())
    );
    assert_eq!(
        id_at(nearest_shown(&rows, &user_only, "l")),
        Some("u2".to_owned())
    );
    assert_eq!(id_at(nearest_shown(&rows, &user_only, "m")), None);
    assert_eq!(id_at(nearest_shown(&rows, &user_only, "nope")), None);
}

#[test]
fn several_shown_roots_are_indented_one_level() {
    let rows = vec![
        row("r1", None, TreeEntryKind::UserMessage),
        row("x", Some("r1"), TreeEntryKind::Bookkeeping),
        row("r2", None, TreeEntryKind::UserMessage),
    ];
    let depths: Vec<usize> = shown_rows(&rows, TreeFilter::Default)
        .iter()
        .map(|s| s.depth)
        .collect();
    assert_eq!(depths, [1, 1]);
}

#[test]
fn a_parent_chain_that_loops_does_not_hang() {
    let rows = vec![
        row("a", Some("b"), TreeEntryKind::Bookkeeping),
        row("b", Some("a"), TreeEntryKind::Bookkeeping),
        row("c", Some("a"), TreeEntryKind::UserMessage),
    ];
    let shown = shown_rows(&rows, TreeFilter::Default);
    assert_eq!(shown.len(), 1);
    assert_eq!(nearest_shown(&rows, &shown, "b"), None);
}

#[test]
fn the_filters_cycle_toggle_and_parse_as_pi_names_them() {
    let mut filter = TreeFilter::Default;
    let mut names = Vec::new();
    for _ in 0..5 {
        filter = filter.next();
        names.push(filter.name());
    }
    assert_eq!(
        names,
        ["no-tools", "user-only", "labeled-only", "all", "default"]
    );
    assert_eq!(TreeFilter::Default.previous(), TreeFilter::All);
    assert_eq!(
        TreeFilter::UserOnly.toggled(TreeFilter::UserOnly),
        TreeFilter::Default
    );
    assert_eq!(
        TreeFilter::NoTools.toggled(TreeFilter::UserOnly),
        TreeFilter::UserOnly
    );
    assert_eq!(
        TreeFilter::from_name("labeled-only"),
        Some(TreeFilter::LabeledOnly)
    );
    assert_eq!(TreeFilter::from_name("bogus"), None);
    assert_eq!(TreeFilter::UserOnly.tag(), " [user]");
}
