//! The host's questions in the interactive mode (an MCP server's elicitation, `/mcp`'s menus):
//! drawn where the editor is, answered with the keys, a live menu made again while open, the
//! host's commands run from the `/` line, and `TuiDialogs` waiting for the UI's answer.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use crossterm::event::KeyCode;
use rho_host::ui::{HostUi, Menu, MenuItem, NoticeLevel};
use rho_tui::dialogs::{DialogAnswer, DialogEvent, DialogKind, OpenDialog, TuiDialogs};
use rho_tui::slash::{Commands, SlashRegistry};
use rho_tui::{Effect, Input};

use crate::drive::{app_with, paste, press, submit};
use crate::events::app;
use crate::keyboard::key;
use crate::sessions_ui::screen;

fn menu() -> Menu {
    Menu {
        title: "MCP servers".into(),
        details: vec!["two of them".into()],
        error: Some("config: bad entry".into()),
        items: vec![
            MenuItem::new("alpha", "connected · 3 tools"),
            MenuItem::new("beta", "failed: boom"),
        ],
        empty: "none".into(),
        selected: 0,
    }
}

#[test]
fn a_menu_takes_the_keys_until_a_row_is_picked_and_follows_updates() {
    let mut app = app();
    app.update(
        Input::DialogAsked(OpenDialog::new(3, DialogKind::Menu(menu()))),
        Instant::now(),
    );
    let shown = screen(&app);
    for text in [
        "MCP servers",
        "two of them",
        "config: bad entry",
        "› alpha",
        "failed: boom",
    ] {
        assert!(shown.contains(text), "{text}:\n{shown}");
    }
    // Typed letters do not reach the editor while the question is open.
    assert_eq!(
        press(&mut app, key(KeyCode::Char('x'))),
        Vec::<Effect>::new()
    );
    assert_eq!(press(&mut app, key(KeyCode::Down)), Vec::<Effect>::new());
    // The menu is made again (a server connected): the highlight stays on its row.
    let mut updated = menu();
    updated.items[1].description = "connected · 1 tool".into();
    app.update(
        Input::DialogUpdated(3, DialogKind::Menu(updated)),
        Instant::now(),
    );
    assert!(screen(&app).contains("› beta"));
    assert!(screen(&app).contains("connected · 1 tool"));
    assert_eq!(
        press(&mut app, key(KeyCode::Enter)),
        [Effect::AnswerDialog(3, DialogAnswer::Picked(1))]
    );
    assert!(!screen(&app).contains("MCP servers"));
    assert_eq!(app.editor().text(), "");
}

#[test]
fn yes_no_and_a_line_of_text_are_answered_with_the_keys_and_escape_dismisses() {
    let mut app = app();
    let confirm = DialogKind::Confirm {
        title: "MCP server \"demo\" asks for information".into(),
        message: "Your name?".into(),
    };
    app.update(
        Input::DialogAsked(OpenDialog::new(1, confirm)),
        Instant::now(),
    );
    assert!(screen(&app).contains("Your name?"));
    assert_eq!(
        press(&mut app, key(KeyCode::Char('y'))),
        [Effect::AnswerDialog(1, DialogAnswer::Confirmed(true))]
    );

    let input = DialogKind::Input {
        title: "name (optional)".into(),
        placeholder: "Ada".into(),
    };
    app.update(
        Input::DialogAsked(OpenDialog::new(2, input.clone())),
        Instant::now(),
    );
    assert!(screen(&app).contains("› Ada"));
    for c in "Gr".chars() {
        press(&mut app, key(KeyCode::Char(c)));
    }
    paste(&mut app, "ace\n");
    press(&mut app, key(KeyCode::Backspace));
    assert_eq!(
        press(&mut app, key(KeyCode::Enter)),
        [Effect::AnswerDialog(2, DialogAnswer::Typed("Grace".into()))]
    );

    app.update(
        Input::DialogAsked(OpenDialog::new(4, input)),
        Instant::now(),
    );
    assert_eq!(
        press(&mut app, key(KeyCode::Esc)),
        [Effect::AnswerDialog(4, DialogAnswer::Dismissed)]
    );
}

#[test]
fn a_host_command_in_the_registry_runs_from_the_slash_line_and_notices_are_lines() {
    let registry = SlashRegistry::new(Vec::new(), Vec::new())
        .with_extensions(vec![("mcp".into(), "Manage MCP servers".into())]);
    let mut app = app_with(Commands {
        registry,
        ..Commands::default()
    });
    assert_eq!(
        submit(&mut app, "/mcp reconnect demo"),
        [Effect::Extension {
            name: "mcp".into(),
            args: "reconnect demo".into(),
        }]
    );
    app.update(
        Input::Notice(
            "Reconnected to MCP server \"demo\".".into(),
            NoticeLevel::Info,
        ),
        Instant::now(),
    );
    assert!(screen(&app).contains("Reconnected to MCP server \"demo\"."));
}

#[tokio::test]
async fn tui_dialogs_wait_for_the_answer_and_a_gone_ui_dismisses() {
    let (dialogs, mut events) = TuiDialogs::new();
    let asking = tokio::spawn(async move {
        let answer = dialogs.confirm("t", "m").await;
        (dialogs, answer)
    });
    let Some(DialogEvent::Ask { id, kind, reply }) = events.recv().await else {
        panic!("no question");
    };
    assert_eq!(id, 1);
    assert!(matches!(kind, DialogKind::Confirm { .. }));
    reply.send(DialogAnswer::Confirmed(false)).unwrap();
    let (dialogs, answer) = asking.await.unwrap();
    assert_eq!(answer, Some(false));
    drop(events);
    assert_eq!(dialogs.input("t", "p").await, None);
}
