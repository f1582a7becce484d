//! The `/resume` and `/fork` pickers on the generic picker: they search, move and scroll as the
//! `/model` picker does, Tab keeps the search across the two scopes, and a session is found by
//! its name, first message and directory, not by its size or date.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::{Duration, UNIX_EPOCH};

use crate::keyboard::{ctrl, key};
use crossterm::event::KeyCode;
use rho_tui::sessions::{
    ForkPicker, ForkPoint, OverlayOutcome, SessionPicker, SessionRow, SwitchRequest,
};

fn session(name: &str, first: &str, cwd: &str) -> SessionRow {
    SessionRow {
        path: PathBuf::from(format!("/sessions/{name}.jsonl")),
        name: None,
        first_message: first.to_owned(),
        cwd: cwd.to_owned(),
        modified: UNIX_EPOCH + Duration::from_secs(1_796_292_000),
        message_count: 3,
        size: 2_048,
        parent: None,
    }
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

#[test]
fn tab_keeps_the_search_and_applies_it_to_the_other_scope() {
    let here = vec![session("a", "Fix the parser", "/src/rho")];
    let mut everywhere = here.clone();
    everywhere.push(session("b", "Write a poem", "/tmp/else"));
    let mut picker = SessionPicker::new(here, everywhere);
    typed(&mut picker, "poem");
    assert_eq!(firsts(&picker), Vec::<&str>::new());
    assert_eq!(picker.on_key(key(KeyCode::Tab)), OverlayOutcome::Open);
    assert_eq!((picker.all(), picker.picker().query()), (true, "poem"));
    assert_eq!(firsts(&picker), ["Write a poem"]);
    assert_eq!(
        picker.on_key(key(KeyCode::Enter)),
        OverlayOutcome::Chosen(SwitchRequest::Open(PathBuf::from("/sessions/b.jsonl")))
    );
}

#[test]
fn a_session_is_found_by_its_directory_and_name_but_not_by_its_size() {
    let mut named = session("n", "Write a poem", "/tmp/else");
    named.name = Some("Poetry".to_owned());
    let rows = vec![session("a", "Fix the parser", "/src/rho"), named];
    let mut picker = SessionPicker::new(rows.clone(), rows);
    typed(&mut picker, "else");
    assert_eq!(firsts(&picker), ["Write a poem"]);
    picker.on_key(ctrl('u'));
    typed(&mut picker, "poetry");
    assert_eq!(firsts(&picker), ["Write a poem"]);
    picker.on_key(ctrl('u'));
    typed(&mut picker, "2.0KB");
    assert_eq!(firsts(&picker), Vec::<&str>::new());
}

#[test]
fn the_fork_picker_moves_with_the_model_pickers_keys_and_clears_its_search_with_ctrl_u() {
    let points: Vec<ForkPoint> = (1..=15)
        .map(|n| ForkPoint {
            entry_id: format!("u{n}"),
            text: format!("question {n}"),
        })
        .collect();
    let mut picker = ForkPicker::new(points);
    // Newest first: PageDown moves ten rows, Ctrl+P one back, Up from the top wraps.
    picker.on_key(key(KeyCode::PageDown));
    picker.on_key(ctrl('p'));
    assert_eq!(picker.picker().selected_row(), 9);
    for c in "15".chars() {
        picker.on_key(key(KeyCode::Char(c)));
    }
    let texts: Vec<&str> = picker.visible().iter().map(|p| p.text.as_str()).collect();
    assert_eq!(texts, ["question 15"]);
    picker.on_key(ctrl('u'));
    assert_eq!((picker.picker().query(), picker.visible().len()), ("", 15));
    picker.on_key(key(KeyCode::Up));
    assert_eq!(
        picker.on_key(key(KeyCode::Enter)),
        OverlayOutcome::Chosen(SwitchRequest::Fork("u1".to_owned()))
    );
}

#[test]
fn a_long_session_list_scrolls_to_the_highlight_and_shows_its_position() {
    let rows: Vec<SessionRow> = (0..30)
        .map(|n| session(&format!("s{n}"), &format!("session number {n}"), "/src"))
        .collect();
    let mut picker = SessionPicker::new(rows.clone(), rows);
    for _ in 0..25 {
        picker.on_key(key(KeyCode::Down));
    }
    let lines: Vec<String> = rho_tui::picker::view::lines(picker.picker(), 60, 5)
        .iter()
        .map(|l| l.to_string().trim_end().to_owned())
        .collect();
    assert_eq!(
        lines,
        [
            "Search: █",
            "  session number 21        3 msgs · 2.0KB · 2026-12-03 10:00",
            "  session number 22        3 msgs · 2.0KB · 2026-12-03 10:00",
            "  session number 23        3 msgs · 2.0KB · 2026-12-03 10:00",
            "  session number 24        3 msgs · 2.0KB · 2026-12-03 10:00",
            "› session number 25        3 msgs · 2.0KB · 2026-12-03 10:00",
            "  (26/30)",
        ]
    );
}
