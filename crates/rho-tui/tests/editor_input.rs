//! The editor's input beyond typing: large pastes behind markers, `@` file completion, `!cmd`
//! lines and the double Escape.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use rho_tui::app::ShellRun;
use rho_tui::completion::{Completion, FileIndex, at_word};
use rho_tui::editor::Editor;
use rho_tui::user_shell::{ShellLine, ShellOutput, parse_shell_line};
use rho_tui::{App, Effect, Input, view};

use crate::drive::{files_indexed, paste, press, press_at, run_shell, start_prompt};
use crate::events::app;
use crate::keyboard::key;

fn type_text(app: &mut App, text: &str) -> Vec<Effect> {
    let mut out = Vec::new();
    for c in text.chars() {
        out.extend(press(app, key(KeyCode::Char(c))));
    }
    out
}

fn numbered(lines: usize) -> String {
    (1..=lines)
        .map(|i| format!("line {i}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn a_paste_of_more_than_ten_lines_shows_a_marker_and_is_sent_whole() {
    let mut app = app();
    type_text(&mut app, "look: ");
    paste(&mut app, &numbered(11));
    type_text(&mut app, " thanks");
    assert_eq!(app.editor().text(), "look: [paste #1 +11 lines] thanks");
    assert_eq!(
        press(&mut app, key(KeyCode::Enter)),
        vec![Effect::Prompt(format!("look: {} thanks", numbered(11)))]
    );
}

#[test]
fn a_long_single_line_paste_is_counted_in_chars_and_markers_are_numbered() {
    let mut editor = Editor::new();
    editor.paste(&"x".repeat(1001));
    editor.insert(" ");
    editor.paste(&numbered(12));
    assert_eq!(editor.text(), "[paste #1 1001 chars] [paste #2 +12 lines]");
    assert_eq!(
        editor.take_submission(),
        Some(format!("{} {}", "x".repeat(1001), numbered(12)))
    );
    // Numbering starts again after a send, as in Pi.
    editor.paste(&numbered(11));
    assert_eq!(editor.text(), "[paste #1 +11 lines]");
}

#[test]
fn a_small_paste_is_inserted_cleaned_as_typed_text() {
    let mut editor = Editor::new();
    editor.paste("a\tb\r\nc\x07d");
    assert_eq!(editor.text(), "a    b\ncd");
    editor.paste(&numbered(10));
    assert_eq!(editor.text(), format!("a    b\ncd{}", numbered(10)));
}

#[test]
fn the_at_word_starts_at_whitespace_or_the_start_of_the_text() {
    assert_eq!(at_word("see @src/ma", 11), Some((4, "src/ma")));
    assert_eq!(at_word("@", 1), Some((0, "")));
    assert_eq!(at_word("mail a@b.c", 10), None);
    assert_eq!(at_word("@x done", 7), None);
}

#[test]
fn the_file_walk_respects_gitignore_and_lists_directories_with_a_slash() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("src/view")).unwrap();
    std::fs::create_dir_all(root.join("target/debug")).unwrap();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(root.join(".gitignore"), "target/\n*.log\n").unwrap();
    for file in [
        "src/main.rs",
        "src/view/editor.rs",
        "target/debug/rho",
        "run.log",
        "README.md",
    ] {
        std::fs::write(root.join(file), "").unwrap();
    }
    let index = FileIndex::walk(root);
    assert_eq!(
        index.matches(""),
        [
            ".gitignore",
            "README.md",
            "src/",
            "src/main.rs",
            "src/view/",
            "src/view/editor.rs"
        ]
    );
    assert_eq!(index.matches("vedit"), ["src/view/editor.rs"]);
    assert_eq!(index.matches("rho"), Vec::<String>::new());
}

fn indexed_app() -> App {
    let mut app = app();
    files_indexed(
        &mut app,
        &["Cargo.toml", "src/", "src/main.rs", "src/editor.rs"],
    );
    app
}

#[test]
fn typing_at_asks_for_the_file_list_once_and_shows_it_when_it_arrives() {
    let mut app = app();
    assert_eq!(
        type_text(&mut app, "fix @ed"),
        vec![Effect::IndexFiles, Effect::IndexFiles, Effect::IndexFiles]
    );
    assert_eq!(files_indexed(&mut app, &["src/editor.rs"]), Vec::new());
    assert_eq!(
        app.completion(),
        Some(&Completion {
            start: 4,
            query: "ed".to_owned(),
            items: vec!["src/editor.rs".to_owned()],
            selected: 0
        })
    );
}

#[test]
fn tab_accepts_the_highlighted_path_and_closes_the_list() {
    let mut app = indexed_app();
    type_text(&mut app, "read @rs");
    let items = app.completion().unwrap().items.clone();
    assert_eq!(items, ["src/main.rs", "src/editor.rs"]);
    press(&mut app, key(KeyCode::Down));
    press(&mut app, key(KeyCode::Tab));
    assert_eq!(app.editor().text(), "read @src/editor.rs ");
    assert_eq!(app.completion(), None);
}

#[test]
fn enter_on_a_directory_keeps_the_list_open_for_its_contents() {
    let mut app = indexed_app();
    type_text(&mut app, "@src");
    assert_eq!(app.completion().unwrap().current(), Some("src/"));
    assert_eq!(press(&mut app, key(KeyCode::Enter)), vec![]);
    assert_eq!(app.editor().text(), "@src/");
    assert_eq!(
        app.completion().unwrap().items,
        ["src/", "src/main.rs", "src/editor.rs"]
    );
}

#[test]
fn escape_closes_the_list_and_keeps_the_text() {
    let mut app = indexed_app();
    type_text(&mut app, "@car");
    press(&mut app, key(KeyCode::Esc));
    assert_eq!(app.completion(), None);
    assert_eq!(app.editor().text(), "@car");
}

#[test]
fn the_list_is_drawn_above_the_editor_with_the_highlight() {
    let mut app = indexed_app();
    type_text(&mut app, "open @s");
    let mut terminal = Terminal::new(TestBackend::new(60, 12)).unwrap();
    terminal
        .draw(|frame| view::draw(frame, &app, Instant::now()))
        .unwrap();
    insta::assert_snapshot!(format!("{}", terminal.backend()));
}

#[test]
fn bang_lines_are_shell_commands_and_double_bang_stays_out_of_the_context() {
    assert_eq!(
        parse_shell_line(" !ls -la "),
        Some(ShellLine {
            command: "ls -la".to_owned(),
            exclude_from_context: false
        })
    );
    assert_eq!(
        parse_shell_line("!!git status"),
        Some(ShellLine {
            command: "git status".to_owned(),
            exclude_from_context: true
        })
    );
    assert_eq!(parse_shell_line("!"), None);
    assert_eq!(parse_shell_line("hi !ls"), None);
}

#[test]
fn enter_on_a_bang_line_runs_it_instead_of_prompting() {
    let mut app = app();
    type_text(&mut app, "!echo hi");
    assert_eq!(
        press(&mut app, key(KeyCode::Enter)),
        vec![Effect::RunShell(ShellRun {
            id: 1,
            line: ShellLine {
                command: "echo hi".to_owned(),
                exclude_from_context: false
            }
        })]
    );
    assert!(!app.working(), "a shell command is not a prompt");
}

#[test]
fn a_shell_run_is_shown_as_a_bash_block_with_its_output_and_exit_code() {
    let mut app = app();
    let t0 = Instant::now();
    let run = run_shell(&mut app, "!make", t0);
    let output = ShellOutput {
        output: "boom\n".to_owned(),
        exit_code: Some(2),
        ..ShellOutput::default()
    };
    let finished = Input::ShellFinished(run, Ok(output));
    app.update(finished, t0 + Duration::from_millis(1500));
    let mut terminal = Terminal::new(TestBackend::new(50, 10)).unwrap();
    terminal
        .draw(|frame| view::draw(frame, &app, t0 + Duration::from_secs(2)))
        .unwrap();
    insta::assert_snapshot!(format!("{}", terminal.backend()));
}

#[test]
fn a_second_escape_within_half_a_second_clears_the_queue_again() {
    let mut app = app();
    let t0 = Instant::now();
    start_prompt(&mut app, t0);
    assert_eq!(
        press_at(&mut app, key(KeyCode::Esc), t0),
        vec![Effect::Abort]
    );
    assert_eq!(
        press_at(&mut app, key(KeyCode::Esc), t0 + Duration::from_millis(300)),
        vec![Effect::ClearQueue, Effect::Abort]
    );
    // Too late for a double press: an ordinary Escape again.
    assert_eq!(
        press_at(&mut app, key(KeyCode::Esc), t0 + Duration::from_millis(900)),
        vec![Effect::Abort]
    );
}

#[test]
fn escape_while_a_shell_command_runs_cancels_it() {
    let mut app = app();
    let t0 = Instant::now();
    run_shell(&mut app, "!sleep 9", t0);
    assert_eq!(
        press_at(&mut app, key(KeyCode::Esc), t0),
        vec![Effect::CancelShell]
    );
}

#[test]
fn a_second_bang_line_while_one_runs_is_kept_in_the_editor_with_pis_warning() {
    let mut app = app();
    let t0 = Instant::now();
    run_shell(&mut app, "!sleep 9", t0);
    type_text(&mut app, "!ls");
    assert_eq!(press_at(&mut app, key(KeyCode::Enter), t0), vec![]);
    assert_eq!(app.editor().text(), "!ls");
    assert_eq!(
        app.transcript().last(),
        Some(&rho_tui::transcript::Entry::Notice(
            "A bash command is already running. Press Esc to cancel it first.".to_owned()
        ))
    );
}

#[test]
fn a_paste_marker_is_one_char_for_backspace_and_the_arrows() {
    let mut editor = Editor::new();
    editor.insert("a");
    editor.paste(&numbered(11));
    editor.insert("b");
    editor.left();
    editor.left();
    assert_eq!(editor.cursor(), 1, "one Left steps over the whole marker");
    editor.right();
    editor.backspace();
    assert_eq!(editor.text(), "ab");
    assert_eq!(editor.take_submission(), Some("ab".to_owned()));
}
