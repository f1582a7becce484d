//! `@` completion of paths with spaces: inserted quoted as Pi does (`@"my notes.md" `), and a
//! quoted word keeps completing across its spaces.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crossterm::event::KeyCode;
use rho_tui::App;
use rho_tui::completion::{accepted_text, at_word};

use crate::drive::files_indexed;
use crate::events::app;
use crate::keyboard::key;

fn press(app: &mut App, code: KeyCode) {
    crate::drive::press(app, key(code));
}

fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        press(app, KeyCode::Char(c));
    }
}

fn app_with(paths: &[&str]) -> App {
    let mut app = app();
    files_indexed(&mut app, paths);
    app
}

#[test]
fn a_file_with_a_space_is_inserted_quoted_and_ends_the_word() {
    let mut app = app_with(&["my notes.md", "main.rs"]);
    type_text(&mut app, "read @notes");
    assert_eq!(app.completion().unwrap().current(), Some("my notes.md"));
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.editor().text(), "read @\"my notes.md\" ");
    assert_eq!(app.editor().cursor(), app.editor().text().len());
    assert_eq!(app.completion(), None);
}

#[test]
fn a_directory_with_a_space_keeps_the_cursor_inside_the_quotes_and_lists_its_contents() {
    let mut app = app_with(&["old docs/", "old docs/plan a.md", "src/"]);
    type_text(&mut app, "@docs");
    assert_eq!(app.completion().unwrap().current(), Some("old docs/"));
    press(&mut app, KeyCode::Enter);
    assert_eq!(app.editor().text(), "@\"old docs/\"");
    assert_eq!(app.editor().cursor(), "@\"old docs/".len());
    let open = app.completion().unwrap();
    assert_eq!((open.start, open.query.as_str()), (0, "old docs/"));
    type_text(&mut app, "plan");
    assert_eq!(
        app.completion().unwrap().current(),
        Some("old docs/plan a.md")
    );
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.editor().text(), "@\"old docs/plan a.md\" ");
}

#[test]
fn paths_without_spaces_stay_unquoted() {
    assert_eq!(
        accepted_text("src/main.rs", false),
        ("@src/main.rs ".to_owned(), 0)
    );
    assert_eq!(accepted_text("src/", false), ("@src/".to_owned(), 0));
    assert_eq!(accepted_text("src/", true), ("@\"src/\"".to_owned(), 1));
    assert_eq!(
        accepted_text("a b.rs", false),
        ("@\"a b.rs\" ".to_owned(), 0)
    );
}

#[test]
fn an_open_quoted_at_word_runs_across_spaces_until_its_closing_quote() {
    assert_eq!(at_word("see @\"my no", 11), Some((4, "my no")));
    assert_eq!(at_word("@\"", 2), Some((0, "")));
    assert_eq!(at_word("@\"a b\" c", 8), None);
    assert_eq!(at_word("x@\"a b", 6), None);
}
