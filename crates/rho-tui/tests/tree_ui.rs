//! The `/tree` navigator's filters and labels: what each filter leaves on screen (snapshots at
//! 80×24), Pi's keys for them, where the highlight goes, and the Shift+L label input handing the
//! label over to be saved.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use rho_tui::app::SessionsReply;
use rho_tui::sessions::{LabelChange, SessionsOverlay, TreeFilter, TreeRow, TreeView};
use rho_tui::{App, Effect};

use crate::drive::sessions_reply;
use crate::sessions_ui::{press, screen, tree_row, type_text, with_tree};

/// ```text
/// [model] ─ Hello ─ Hi there ─┬─ Try approach A (plan-a) ─ [read] ─ [read result] ─ A done ─ [label]
///                             └─ Try approach B ─ B done
/// ```
/// The leaf is the `label` entry written after "A done".
fn rows() -> Vec<TreeRow> {
    let mut rows = vec![
        tree_row("m", None, "[model: mock/a]", false, true),
        tree_row("e1", Some("m"), "user: \"Hello\"", false, true),
        tree_row("e2", Some("e1"), "assistant: \"Hi there\"", false, true),
        tree_row("e3", Some("e2"), "user: \"Try approach A\"", false, true),
        tree_row("c3", Some("e3"), "assistant: [read]", false, true),
        tree_row("r3", Some("c3"), "[read result]", false, true),
        tree_row("e4", Some("r3"), "assistant: \"A done\"", false, true),
        tree_row("l4", Some("e4"), "[label: plan-a]", true, true),
        tree_row("e5", Some("e2"), "user: \"Try approach B\"", false, false),
        tree_row("e6", Some("e5"), "assistant: \"B done\"", false, false),
    ];
    rows[3].label = Some("plan-a".to_owned());
    rows
}

fn tree_app() -> App {
    with_tree(rows())
}

fn ctrl(app: &mut App, c: char) -> Vec<Effect> {
    ctrl_with(app, c, KeyModifiers::CONTROL)
}

fn ctrl_with(app: &mut App, c: char, modifiers: KeyModifiers) -> Vec<Effect> {
    crate::drive::press(app, KeyEvent::new(KeyCode::Char(c), modifiers))
}

fn shift_l(app: &mut App) -> Vec<Effect> {
    ctrl_with(app, 'L', KeyModifiers::SHIFT)
}

fn open(app: &App) -> &TreeView {
    match app.sessions_overlay() {
        Some(SessionsOverlay::Tree(tree)) => tree,
        _ => panic!("the tree closed"),
    }
}

/// The ids of the shown rows.
fn shown(app: &mut App) -> Vec<String> {
    open(app)
        .shown()
        .map(|(row, _)| row.entry_id.clone())
        .collect()
}

fn selected(app: &mut App) -> String {
    open(app).selected_row().unwrap().entry_id.clone()
}

#[test]
fn ctrl_u_leaves_the_user_messages_and_names_the_filter_in_the_title() {
    let mut app = tree_app();
    assert_eq!(selected(&mut app), "e4");
    assert_eq!(ctrl(&mut app, 'u'), Vec::new());
    assert_eq!(shown(&mut app), ["e1", "e3", "e5"]);
    // The highlight moved from "A done" to the user message above it.
    assert_eq!(selected(&mut app), "e3");
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn the_all_filter_shows_the_bookkeeping_entries_and_labels_before_the_text() {
    let mut app = tree_app();
    ctrl(&mut app, 'a');
    assert_eq!(shown(&mut app).len(), 10);
    // The highlight stays on "A done"; the leaf itself is shown now, and marked.
    assert_eq!(selected(&mut app), "e4");
    let tree = open(&app);
    let active = tree.active().unwrap();
    assert_eq!(tree.shown().nth(active).unwrap().0.entry_id, "l4");
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn the_filter_keys_toggle_and_cycle_as_pi_binds_them() {
    let mut app = tree_app();
    let mut seen = Vec::new();
    let mut record = |app: &mut App| seen.push(open(app).filter());
    ctrl(&mut app, 't');
    record(&mut app);
    assert!(!shown(&mut app).contains(&"r3".to_owned()));
    ctrl(&mut app, 't');
    record(&mut app);
    for _ in 0..5 {
        ctrl(&mut app, 'o');
        record(&mut app);
    }
    ctrl_with(&mut app, 'o', KeyModifiers::CONTROL | KeyModifiers::SHIFT);
    record(&mut app);
    ctrl_with(&mut app, 'O', KeyModifiers::CONTROL | KeyModifiers::SHIFT);
    record(&mut app);
    ctrl(&mut app, 'd');
    record(&mut app);
    ctrl(&mut app, 'l');
    record(&mut app);
    assert_eq!(shown(&mut app), ["e3"]);
    ctrl(&mut app, 'l');
    record(&mut app);
    use TreeFilter::{All, Default, LabeledOnly, NoTools, UserOnly};
    assert_eq!(
        seen,
        [
            NoTools,
            Default,
            NoTools,
            UserOnly,
            LabeledOnly,
            All,
            Default,
            All,
            LabeledOnly,
            Default,
            LabeledOnly,
            Default
        ]
    );
}

#[test]
fn a_filter_that_shows_nothing_says_so_and_the_highlight_comes_back_after_it() {
    let mut rows = rows();
    rows[3].label = None;
    let mut app = with_tree(rows);
    press(&mut app, KeyCode::Down);
    assert_eq!(selected(&mut app), "e5");
    ctrl(&mut app, 'l');
    let empty = screen(&app);
    assert!(empty.contains("Session Tree [labeled]"), "{empty}");
    assert!(empty.contains("No entries found"), "{empty}");
    for code in [KeyCode::Down, KeyCode::Up, KeyCode::Right, KeyCode::Enter] {
        assert_eq!(press(&mut app, code), Vec::new());
    }
    assert_eq!(shift_l(&mut app), Vec::new());
    assert!(open(&app).label_input().is_none());
    ctrl(&mut app, 'l');
    assert_eq!(selected(&mut app), "e5");
}

#[test]
fn the_settings_filter_opens_the_tree_on_the_leafs_nearest_shown_entry() {
    let tree = TreeView::with_filter(rows(), TreeFilter::UserOnly);
    assert_eq!(tree.filter(), TreeFilter::UserOnly);
    assert_eq!(tree.selected_row().unwrap().entry_id, "e3");
    assert_eq!(tree.active(), Some(tree.selected()));
}

#[test]
fn enter_on_the_user_message_standing_for_the_leaf_asks_to_branch_there() {
    let mut app = tree_app();
    ctrl(&mut app, 'u');
    assert_eq!(press(&mut app, KeyCode::Enter), Vec::new());
    assert_eq!(open(&app).asking, Some(0));
    // In the default view the leaf's stand-in is an assistant message: nothing to move.
    let mut app = tree_app();
    press(&mut app, KeyCode::Enter);
    assert!(app.sessions_overlay().is_none());
}

#[test]
fn shift_l_edits_the_label_and_enter_hands_it_over_to_be_saved() {
    let mut app = tree_app();
    for _ in 0..3 {
        press(&mut app, KeyCode::Up);
    }
    assert_eq!(selected(&mut app), "e3");
    assert_eq!(shift_l(&mut app), Vec::new());
    assert_eq!(open(&app).label_input().unwrap().text(), "plan-a");
    insta::assert_snapshot!("the_label_input_under_the_tree", screen(&app));
    ctrl(&mut app, 'u');
    type_text(&mut app, "  checkpoint ");
    assert_eq!(
        press(&mut app, KeyCode::Enter),
        [Effect::SaveTreeLabel(LabelChange {
            entry_id: "e3".to_owned(),
            label: Some("checkpoint".to_owned()),
        })]
    );
    assert!(open(&app).label_input().is_none());
    let after = screen(&app);
    assert!(
        after.contains("›   [checkpoint] user: \"Try approach A\""),
        "{after}"
    );
}

#[test]
fn escape_keeps_the_label_and_an_empty_one_removes_it() {
    let mut app = tree_app();
    for _ in 0..3 {
        press(&mut app, KeyCode::Up);
    }
    shift_l(&mut app);
    type_text(&mut app, "-changed");
    assert_eq!(press(&mut app, KeyCode::Esc), Vec::new());
    let tree = open(&app);
    assert!(tree.label_input().is_none());
    assert_eq!(
        tree.selected_row().unwrap().label.as_deref(),
        Some("plan-a")
    );

    shift_l(&mut app);
    ctrl(&mut app, 'u');
    assert_eq!(
        press(&mut app, KeyCode::Enter),
        [Effect::SaveTreeLabel(LabelChange {
            entry_id: "e3".to_owned(),
            label: None,
        })]
    );
    assert_eq!(open(&app).selected_row().unwrap().label, None);
}

#[test]
fn a_reload_keeps_the_filter_and_the_highlighted_entry() {
    let mut app = tree_app();
    ctrl(&mut app, 'u');
    press(&mut app, KeyCode::Down);
    assert_eq!(selected(&mut app), "e5");
    let mut reloaded = rows();
    reloaded[7].current = false;
    reloaded[8].label = Some("plan-b".to_owned());
    reloaded.push(tree_row("l5", Some("l4"), "[label: plan-b]", true, true));
    let saved = sessions_reply(&mut app, SessionsReply::LabelSaved(Ok(reloaded)));
    assert_eq!(saved, Vec::new());
    let tree = open(&app);
    assert_eq!(tree.filter(), TreeFilter::UserOnly);
    assert_eq!(tree.selected_row().unwrap().entry_id, "e5");
    assert_eq!(
        tree.selected_row().unwrap().label.as_deref(),
        Some("plan-b")
    );
}
