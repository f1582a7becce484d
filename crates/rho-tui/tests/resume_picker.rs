//! The `/resume` picker's keys beyond the list, as Pi's session selector has them: Ctrl+N lists
//! only named sessions, Ctrl+S cycles the sorts (threaded forks under their parents, recent,
//! fuzzy), Ctrl+P shows the paths, Ctrl+R renames and Ctrl+D deletes (confirmed, never the
//! open session). The file changes themselves are the binary's: the picker hands them over.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use crate::keyboard::{ctrl, key};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use rho_tui::sessions::{
    NameFilter, OverlayOutcome, SessionFileChange, SessionPicker, SessionRow, SortMode,
};

/// Session `id`, `minutes` after a fixed time, forked from `parent`.
fn session(id: &str, first: &str, minutes: u64, parent: Option<&str>) -> SessionRow {
    SessionRow {
        path: path(id),
        name: None,
        first_message: first.to_owned(),
        cwd: "/src/rho".to_owned(),
        modified: UNIX_EPOCH + Duration::from_secs(1_796_292_000 + minutes * 60),
        message_count: 2,
        size: 100,
        parent: parent.map(path),
    }
}

fn path(id: &str) -> PathBuf {
    PathBuf::from(format!("/sessions/{id}.jsonl"))
}

fn named(mut row: SessionRow, name: &str) -> SessionRow {
    row.name = Some(name.to_owned());
    row
}

fn picker(rows: Vec<SessionRow>) -> SessionPicker {
    SessionPicker::new(rows.clone(), rows)
}

fn typed(picker: &mut SessionPicker, text: &str) {
    for c in text.chars() {
        assert_eq!(picker.on_key(key(KeyCode::Char(c))), OverlayOutcome::Open);
    }
}

fn firsts(picker: &SessionPicker) -> Vec<&str> {
    picker
        .visible()
        .iter()
        .map(|r| r.first_message.as_str())
        .collect()
}

/// The labels as listed, tree drawing included.
fn labels(picker: &SessionPicker) -> Vec<String> {
    let inner = picker.picker();
    inner
        .visible()
        .iter()
        .map(|&i| inner.items()[i].label.clone())
        .collect()
}

#[test]
fn ctrl_n_lists_only_the_named_sessions_and_says_how_to_show_all_when_there_are_none() {
    let rows = vec![
        session("a", "unnamed one", 30, None),
        named(session("b", "named one", 20, None), "Poetry"),
        named(session("c", "blank name", 10, None), "  "),
    ];
    let mut picker = picker(rows);
    assert_eq!(picker.on_key(ctrl('n')), OverlayOutcome::Open);
    assert_eq!(picker.name_filter(), NameFilter::Named);
    assert_eq!(firsts(&picker), ["named one"]);
    typed(&mut picker, "unnamed");
    assert_eq!(firsts(&picker), Vec::<&str>::new());
    assert_eq!(
        picker.picker().empty_text(),
        "No named sessions in current folder. Press ctrl+n to show all, or Tab to view all."
    );
    picker.on_key(ctrl('n'));
    assert_eq!(firsts(&picker), ["unnamed one"]);
}

#[test]
fn ctrl_s_cycles_the_sorts_and_only_recent_keeps_the_newest_first_while_searching() {
    // The newer session matches "parser" only letter by letter, the older one as a word.
    let rows = vec![
        session("new", "please add rust setup everywhere right", 60, None),
        session("old", "the parser", 10, None),
    ];
    let mut picker = picker(rows);
    assert_eq!(picker.sort(), SortMode::Threaded);
    typed(&mut picker, "parser");
    assert_eq!(
        firsts(&picker),
        ["the parser", "please add rust setup everywhere right"]
    );
    picker.on_key(ctrl('s'));
    assert_eq!(picker.sort(), SortMode::Recent);
    assert_eq!(
        firsts(&picker),
        ["please add rust setup everywhere right", "the parser"]
    );
    picker.on_key(ctrl('s'));
    assert_eq!(
        (picker.sort(), picker.sort().label()),
        (SortMode::Relevance, "Fuzzy")
    );
    assert_eq!(
        firsts(&picker),
        ["the parser", "please add rust setup everywhere right"]
    );
    picker.on_key(ctrl('s'));
    assert_eq!(picker.sort(), SortMode::Threaded);
}

#[test]
fn threaded_lists_forks_under_their_parent_newest_first_and_flat_while_searching() {
    let rows = vec![
        session("b2", "fork of b again", 50, Some("b")),
        session("a", "root a", 40, None),
        session("b1", "fork of b", 30, Some("b")),
        session("b", "root b", 20, None),
        session("b11", "fork of the fork", 10, Some("b1")),
    ];
    let mut picker = picker(rows);
    assert_eq!(
        labels(&picker),
        [
            "root a",
            "root b",
            "   ├─ fork of b again",
            "   └─ fork of b",
            "      └─ fork of the fork",
        ]
    );
    typed(&mut picker, "fork");
    assert_eq!(
        labels(&picker),
        ["fork of b again", "fork of b", "fork of the fork"]
    );
    // Recent: newest first, no tree.
    picker.on_key(ctrl('u'));
    picker.on_key(ctrl('s'));
    assert_eq!(
        labels(&picker),
        [
            "fork of b again",
            "root a",
            "fork of b",
            "root b",
            "fork of the fork"
        ]
    );
}

#[test]
fn ctrl_p_adds_each_sessions_path_to_its_details() {
    let mut picker = picker(vec![session("a", "root a", 40, None)]);
    assert!(!picker.picker().items()[0].details[0].contains("a.jsonl"));
    picker.on_key(ctrl('p'));
    assert!(picker.shows_path());
    assert_eq!(
        picker.picker().items()[0].details[0],
        "/sessions/a.jsonl · 2 msgs · 100B · 2026-12-03 10:40"
    );
}

#[test]
fn ctrl_r_asks_for_a_rename_with_the_trimmed_name_and_escape_leaves_it() {
    let rows = vec![
        named(session("a", "root a", 40, None), "Old"),
        session("b", "root b", 20, None),
    ];
    let mut picker = picker(rows);
    picker.on_key(ctrl('r'));
    assert_eq!(picker.rename_input().unwrap().text(), "Old");
    picker.on_key(key(KeyCode::Esc));
    assert!(picker.rename_input().is_none());

    picker.on_key(key(KeyCode::Down));
    picker.on_key(ctrl('r'));
    assert_eq!(picker.rename_input().unwrap().path(), path("b"));
    // An empty name is not saved (Pi's rename ignores it).
    typed(&mut picker, "  ");
    assert_eq!(picker.on_key(key(KeyCode::Enter)), OverlayOutcome::Open);
    typed(&mut picker, "New name ");
    assert_eq!(
        picker.on_key(key(KeyCode::Enter)),
        OverlayOutcome::ChangeSessionFile(SessionFileChange::Rename {
            path: path("b"),
            name: "New name".to_owned()
        })
    );
    assert!(picker.rename_input().is_none());
}

#[test]
fn ctrl_d_asks_to_confirm_takes_every_key_and_enter_asks_for_the_deletion() {
    let rows = vec![
        session("a", "root a", 40, None),
        session("b", "root b", 20, None),
    ];
    let mut picker = picker(rows);
    picker.on_key(ctrl('d'));
    assert_eq!(picker.confirming_delete(), Some(path("a").as_path()));
    // Typing and moving do nothing while confirming; Escape cancels.
    typed(&mut picker, "b");
    picker.on_key(key(KeyCode::Down));
    assert_eq!(
        (picker.picker().query(), picker.picker().selected_row()),
        ("", 0)
    );
    picker.on_key(key(KeyCode::Esc));
    assert_eq!(picker.confirming_delete(), None);

    // Ctrl+Backspace with no query is the same as Ctrl+D.
    picker.on_key(key(KeyCode::Down));
    picker.on_key(KeyEvent::new(KeyCode::Backspace, KeyModifiers::CONTROL));
    assert_eq!(picker.confirming_delete(), Some(path("b").as_path()));
    assert_eq!(
        picker.on_key(key(KeyCode::Enter)),
        OverlayOutcome::ChangeSessionFile(SessionFileChange::Delete(path("b")))
    );
    // The list comes back without it and the highlight stays in its place.
    picker.reload(
        vec![session("a", "root a", 40, None)],
        vec![session("a", "root a", 40, None)],
    );
    assert_eq!(firsts(&picker), ["root a"]);
    assert_eq!(picker.picker().selected_row(), 0);
}

#[test]
fn the_open_session_cannot_be_deleted() {
    let rows = vec![session("a", "root a", 40, None)];
    let mut picker = picker(rows).with_current(Some(path("a")));
    assert_eq!(picker.on_key(ctrl('d')), OverlayOutcome::Open);
    assert_eq!(picker.confirming_delete(), None::<&Path>);
    let status = picker.status().unwrap();
    assert!(status.error);
    assert_eq!(status.text, "Cannot delete the currently active session");
    // The next key clears it.
    picker.on_key(key(KeyCode::Down));
    assert!(picker.status().is_none());
}
