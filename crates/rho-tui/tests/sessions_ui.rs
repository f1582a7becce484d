//! The sessions overlays (`/resume`, `/fork`, `/tree`): what they show (snapshots at 80×24),
//! which keys move, search and choose, and the transcript a switch puts on screen.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Color;
use rho_agent::AgentMessage;
use rho_ai::UserMessage;
use rho_ai::faux::{faux_message, faux_text};
use rho_tui::app::{SessionsReply, SwitchedTo};
use rho_tui::sessions::{
    ForkPoint, SessionFileChange, SessionRow, SessionsOverlay, SwitchRequest, TreeEntryKind,
    TreeFilter, TreeRow,
};
use rho_tui::transcript::{AssistantBlock, AssistantEntry, Entry};
use rho_tui::{App, Effect, Input, view};

use crate::drive::sessions_reply;
use crate::events::{app, apply_all, info, user};

pub(crate) fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

pub(crate) fn press(app: &mut App, code: KeyCode) -> Vec<Effect> {
    crate::drive::press(app, key(code))
}

pub(crate) fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        assert_eq!(press(app, KeyCode::Char(c)), Vec::new());
    }
}

pub(crate) fn screen(app: &App) -> String {
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
    terminal
        .draw(|frame| view::draw(frame, app, Instant::now()))
        .unwrap();
    format!("{}", terminal.backend())
}

/// 2026-12-03 10:00 UTC plus `minutes`.
fn at(minutes: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_796_292_000 + minutes * 60)
}

fn row(name: &str, first: &str, cwd: &str, minutes: u64, count: usize, size: u64) -> SessionRow {
    SessionRow {
        path: PathBuf::from(format!("/sessions/{name}.jsonl")),
        name: None,
        first_message: first.to_owned(),
        cwd: cwd.to_owned(),
        modified: at(minutes),
        message_count: count,
        size,
        parent: None,
    }
}

/// The `/resume` picker over this folder's two sessions and a named one elsewhere.
fn picker() -> App {
    let here = vec![
        row(
            "b",
            "Fix the flaky test in the parser",
            "/src/rho",
            90,
            12,
            48_211,
        ),
        row("a", "Explain the session format", "/src/rho", 30, 4, 900),
    ];
    let mut named = row("c", "Write a poem", "/tmp/else", 10, 2, 2_500_000);
    named.name = Some("Poetry".to_owned());
    let mut everywhere = here.clone();
    everywhere.push(named);
    with_sessions(SessionsReply::Listed {
        here,
        everywhere,
        current: None,
    })
}

/// An app with the overlay the switcher's `reply` opens.
pub(crate) fn with_sessions(reply: SessionsReply) -> App {
    let mut app = app();
    assert_eq!(sessions_reply(&mut app, reply), Vec::new());
    assert!(app.sessions_overlay().is_some());
    app
}

/// An app with the `/tree` navigator open over `rows` in the default view.
pub(crate) fn with_tree(rows: Vec<TreeRow>) -> App {
    with_sessions(SessionsReply::Tree {
        rows,
        filter: TreeFilter::Default,
    })
}

#[test]
fn the_session_picker_lists_this_folders_sessions_with_their_size_count_and_date() {
    let app = picker();
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn tab_lists_every_folders_sessions_with_their_directory_and_name() {
    let mut app = picker();
    press(&mut app, KeyCode::Tab);
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn typing_narrows_the_list_and_enter_opens_the_highlighted_session() {
    let mut app = picker();
    type_text(&mut app, "session");
    let Some(SessionsOverlay::Resume(open)) = app.sessions_overlay() else {
        panic!("the picker closed");
    };
    let visible: Vec<&str> = open
        .visible()
        .iter()
        .map(|r| r.first_message.as_str())
        .collect();
    assert_eq!(visible, ["Explain the session format"]);
    assert_eq!(
        press(&mut app, KeyCode::Enter),
        [Effect::SwitchSession(SwitchRequest::Open(PathBuf::from(
            "/sessions/a.jsonl"
        )))]
    );
    assert!(app.sessions_overlay().is_none());
}

#[test]
fn down_moves_the_highlight_and_escape_closes_without_a_choice() {
    let mut app = picker();
    press(&mut app, KeyCode::Down);
    let Some(SessionsOverlay::Resume(open)) = app.sessions_overlay() else {
        panic!("the picker closed");
    };
    assert_eq!(open.picker().selected_row(), 1);
    assert_eq!(press(&mut app, KeyCode::Esc), Vec::new());
    assert!(app.sessions_overlay().is_none());
    assert_eq!(app.editor().text(), "");
}

fn ctrl(app: &mut App, c: char) -> Vec<Effect> {
    crate::drive::press(app, KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
}

#[test]
fn ctrl_d_asks_to_confirm_the_deletion_in_the_hint_line_and_marks_the_row() {
    let mut app = picker();
    press(&mut app, KeyCode::Down);
    assert_eq!(ctrl(&mut app, 'd'), Vec::new());
    insta::assert_snapshot!(screen(&app));
    // The row to delete is red, as in Pi; the other one is not.
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
    terminal
        .draw(|frame| view::draw(frame, &app, Instant::now()))
        .unwrap();
    let buffer = terminal.backend().buffer();
    assert_eq!(buffer[(2, 6)].symbol(), "E");
    assert_eq!(buffer[(2, 6)].fg, Color::Red);
    assert_ne!(buffer[(2, 5)].fg, Color::Red);
    // Enter asks the binary to delete the file; the picker stays open for the new list.
    assert_eq!(
        press(&mut app, KeyCode::Enter),
        [Effect::ChangeSessionFile(SessionFileChange::Delete(
            PathBuf::from("/sessions/a.jsonl")
        ))]
    );
    assert!(app.sessions_overlay().is_some());
}

#[test]
fn ctrl_r_opens_the_rename_input_prefilled_with_the_sessions_name() {
    let mut app = picker();
    press(&mut app, KeyCode::Tab);
    press(&mut app, KeyCode::Up);
    ctrl(&mut app, 'r');
    type_text(&mut app, " & prose");
    insta::assert_snapshot!(screen(&app));
    assert_eq!(
        press(&mut app, KeyCode::Enter),
        [Effect::ChangeSessionFile(SessionFileChange::Rename {
            path: PathBuf::from("/sessions/c.jsonl"),
            name: "Poetry & prose".to_owned(),
        })]
    );
}

#[test]
fn the_header_follows_the_named_filter_the_sort_and_the_path_toggle() {
    let mut app = picker();
    press(&mut app, KeyCode::Tab);
    ctrl(&mut app, 'n');
    ctrl(&mut app, 's');
    ctrl(&mut app, 'p');
    insta::assert_snapshot!(screen(&app));
}

fn fork_picker() -> App {
    with_sessions(SessionsReply::ForkPoints(vec![
        ForkPoint {
            entry_id: "u1".to_owned(),
            text: "First question".to_owned(),
        },
        ForkPoint {
            entry_id: "u2".to_owned(),
            text: "Second question\nwith two lines".to_owned(),
        },
    ]))
}

#[test]
fn the_fork_picker_lists_the_user_messages_newest_first() {
    let app = fork_picker();
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn enter_in_the_fork_picker_forks_before_the_highlighted_message() {
    let mut app = fork_picker();
    press(&mut app, KeyCode::Down);
    assert_eq!(
        press(&mut app, KeyCode::Enter),
        [Effect::SwitchSession(SwitchRequest::Fork("u1".to_owned()))]
    );
}

/// A row of entry `id` under `parent`, its kind told by its text (`user: …`, `[… result]`,
/// `[model: …]`/`[label: …]`, anything else).
pub(crate) fn tree_row(
    id: &str,
    parent: Option<&str>,
    text: &str,
    current: bool,
    on_branch: bool,
) -> TreeRow {
    let kind = if text.starts_with("user:") {
        TreeEntryKind::UserMessage
    } else if text.ends_with(" result]") {
        TreeEntryKind::ToolResult
    } else if text.starts_with("[model:") || text.starts_with("[label:") {
        TreeEntryKind::Bookkeeping
    } else {
        TreeEntryKind::Conversation
    };
    TreeRow {
        entry_id: id.to_owned(),
        parent_id: parent.map(str::to_owned),
        kind,
        text: text.to_owned(),
        label: None,
        current,
        on_branch,
    }
}

fn tree() -> App {
    let mut rows = vec![
        tree_row("e1", None, "user: \"Hello\"", false, true),
        tree_row("e2", Some("e1"), "assistant: \"Hi there\"", false, true),
        tree_row("e3", Some("e2"), "user: \"Try approach A\"", false, true),
        tree_row("e4", Some("e3"), "assistant: \"A done\"", true, true),
        tree_row("e5", Some("e2"), "user: \"Try approach B\"", false, false),
        tree_row("e6", Some("e5"), "assistant: \"B done\"", false, false),
    ];
    rows[2].label = Some("plan-a".to_owned());
    with_tree(rows)
}

#[test]
fn the_tree_shows_the_branches_indented_with_labels_and_the_active_leaf_marked() {
    let app = tree();
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn enter_in_the_tree_asks_about_a_summary_and_then_switches_to_the_highlighted_entry() {
    let mut app = tree();
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Down);
    assert_eq!(press(&mut app, KeyCode::Enter), Vec::new());
    insta::assert_snapshot!(screen(&app));
    press(&mut app, KeyCode::Down);
    assert_eq!(
        press(&mut app, KeyCode::Enter),
        [Effect::SwitchSession(SwitchRequest::Branch {
            entry_id: "e6".to_owned(),
            summarize: true
        })]
    );
}

#[test]
fn escape_in_the_summary_question_goes_back_to_the_tree_and_no_summary_is_the_default() {
    let mut app = tree();
    press(&mut app, KeyCode::Up);
    press(&mut app, KeyCode::Enter);
    press(&mut app, KeyCode::Esc);
    let Some(SessionsOverlay::Tree(open)) = app.sessions_overlay() else {
        panic!("the tree closed");
    };
    assert_eq!((open.selected(), open.asking), (2, None));
    press(&mut app, KeyCode::Enter);
    assert_eq!(
        press(&mut app, KeyCode::Enter),
        [Effect::SwitchSession(SwitchRequest::Branch {
            entry_id: "e3".to_owned(),
            summarize: false
        })]
    );
}

#[test]
fn enter_on_the_active_leaf_closes_the_tree_with_pis_remark() {
    let mut app = tree();
    assert_eq!(press(&mut app, KeyCode::Enter), Vec::new());
    assert!(app.sessions_overlay().is_none());
    assert_eq!(
        app.transcript(),
        [Entry::Notice("Already at this point".to_owned())]
    );
}

#[test]
fn the_session_commands_typed_in_the_editor_become_their_commands() {
    let mut app = app();
    let mut sent = Vec::new();
    for text in ["/resume", "/new", "/fork", "/tree"] {
        type_text(&mut app, text);
        sent.extend(press(&mut app, KeyCode::Enter));
        if app.switching() {
            // The switch ends (here: fails) before the next command, which it would refuse.
            app.update(Input::SwitchDone(Err("no".to_owned())), Instant::now());
        }
    }
    assert_eq!(
        sent,
        [
            Effect::OpenSessionPicker,
            Effect::SwitchSession(SwitchRequest::New),
            Effect::OpenForkPicker,
            Effect::OpenTree,
        ]
    );
    assert!(!app.working());
}

#[test]
fn a_switch_shows_the_resumed_transcript_its_usage_and_the_editor_text() {
    let mut app = app();
    apply_all(&mut app, &user("old session"), Instant::now());
    let messages: Vec<AgentMessage> = vec![
        UserMessage::text("earlier question").into(),
        faux_message(vec![faux_text("earlier answer")]).into(),
    ];
    let switched = SwitchedTo {
        info: info(),
        messages,
        editor_text: Some("draft".to_owned()),
        notice: "Resumed session".to_owned(),
        warnings: Vec::new(),
    };
    let done = app.update(Input::SwitchDone(Ok(switched)), Instant::now());
    assert_eq!(done, Vec::new());
    assert_eq!(
        app.transcript(),
        [
            Entry::User("earlier question".to_owned()),
            Entry::Assistant(AssistantEntry {
                blocks: vec![AssistantBlock::Text("earlier answer".to_owned())],
                streaming: false,
            }),
            Entry::Notice("Resumed session".to_owned()),
        ]
    );
    assert_eq!(app.editor().text(), "draft");
}
