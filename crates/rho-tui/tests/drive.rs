//! Driving the app the way the event loop does: every change through `App::update`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent};
use rho_agent::AgentMessage;
use rho_host::SettledReason;
use rho_tui::app::{CommandsReply, SessionsReply, ShellRun, SwitchedTo};
use rho_tui::completion::FileIndex;
use rho_tui::slash::{Commands, ModelOption};
use rho_tui::{App, Effect, Input, Startup};

use crate::events::{info, settled};
use crate::keyboard::key;

/// An app set up with `commands` (the registry, keys and theme).
pub fn app_with(commands: Commands) -> App {
    App::starting(
        info(),
        Startup {
            commands,
            ..Startup::default()
        },
    )
}

/// One key at `now`.
pub fn press_at(app: &mut App, key: KeyEvent, now: Instant) -> Vec<Effect> {
    app.update(Input::Key(key), now)
}

/// One key, now.
pub fn press(app: &mut App, key: KeyEvent) -> Vec<Effect> {
    press_at(app, key, Instant::now())
}

/// A bracketed paste.
pub fn paste(app: &mut App, text: &str) -> Vec<Effect> {
    app.update(Input::Paste(text.to_owned()), Instant::now())
}

/// Each character of `text` typed, ignoring what they ask for.
pub fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        press(app, key(KeyCode::Char(c)));
    }
}

/// A prompt goes out at `now` as one from the command line does: the app works from then on.
pub fn start_prompt(app: &mut App, now: Instant) {
    assert_eq!(
        app.update(Input::Started(vec!["go".to_owned()]), now),
        vec![Effect::Prompt("go".to_owned())]
    );
    assert!(app.working());
}

/// The running prompt settles: the app is idle again.
pub fn settle(app: &mut App) {
    app.update(settled(SettledReason::Completed).into(), Instant::now());
    assert!(!app.working());
}

/// The switcher's answer.
pub fn sessions_reply(app: &mut App, reply: SessionsReply) -> Vec<Effect> {
    app.update(Input::Sessions(reply), Instant::now())
}

/// The command host's answer.
pub fn commands_reply(app: &mut App, reply: CommandsReply) -> Vec<Effect> {
    app.update(Input::Commands(reply), Instant::now())
}

/// The model picker opened over `models` with `query` typed, as the host lists them.
pub fn open_model_picker(app: &mut App, models: Vec<ModelOption>, query: &str) {
    let reply = CommandsReply::Models {
        models,
        query: query.to_owned(),
    };
    assert_eq!(commands_reply(app, reply), Vec::new());
}

/// Enter on `line` as the editor holds it, the popup (if typing opened it) closed first.
pub fn submit(app: &mut App, line: &str) -> Vec<Effect> {
    type_text(app, line);
    if app.slash_popup().is_some() {
        press(app, key(KeyCode::Esc));
    }
    assert_eq!(app.editor().text(), line);
    press(app, key(KeyCode::Enter))
}

/// A `!cmd` line typed and sent at `now`, then reported running: its run.
pub fn run_shell(app: &mut App, line: &str, now: Instant) -> ShellRun {
    type_text(app, line);
    let run = match press_at(app, key(KeyCode::Enter), now).as_slice() {
        [Effect::RunShell(run)] => run.clone(),
        other => panic!("expected a shell run, got {other:?}"),
    };
    assert_eq!(
        app.update(Input::ShellStarted(run.clone()), now),
        Vec::new()
    );
    run
}

/// The `@` file walk arrived.
pub fn files_indexed(app: &mut App, paths: &[&str]) -> Vec<Effect> {
    let files = FileIndex::from_paths(paths.iter().map(|p| (*p).to_owned()).collect());
    app.update(Input::FilesIndexed(files), Instant::now())
}

/// A switch ended showing the session of `messages`.
pub fn switched(
    app: &mut App,
    messages: Vec<AgentMessage>,
    editor_text: Option<&str>,
    notice: &str,
) {
    let to = SwitchedTo {
        info: info(),
        messages,
        editor_text: editor_text.map(str::to_owned),
        notice: notice.to_owned(),
        warnings: Vec::new(),
    };
    assert_eq!(
        app.update(Input::SwitchDone(Ok(to)), Instant::now()),
        Vec::new()
    );
}
