//! The command popup, the model picker, the panels and the themes, drawn into ratatui's
//! `TestBackend` and compared with `insta` snapshots.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Instant;

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::Color;
use rho_tui::app::CommandsReply;
use rho_tui::keybindings::Keybindings;
use rho_tui::slash::Commands;
use rho_tui::theme::{Theme, ThemeChoice};
use rho_tui::{App, view};

use crate::drive::{
    app_with, commands_reply, open_model_picker, settle, start_prompt, submit, type_text,
};
use crate::events::{answer, app, apply_all, streamed, text, user};
use crate::slash_commands::models;

fn draw(app: &App, width: u16, height: u16) -> Buffer {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal
        .draw(|frame| view::draw(frame, app, Instant::now()))
        .unwrap();
    terminal.backend().buffer().clone()
}

fn screen(app: &App) -> String {
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
    terminal
        .draw(|frame| view::draw(frame, app, Instant::now()))
        .unwrap();
    format!("{}", terminal.backend())
}

/// The rows as text with each colour change written inline: `{fg/bg}`.
fn coloured(buffer: &Buffer) -> String {
    let mut out = String::new();
    let area = buffer.area;
    for y in 0..area.height {
        let mut last = None;
        for x in 0..area.width {
            let cell = &buffer[(x, y)];
            let colours = (cell.fg, cell.bg);
            if last != Some(colours) {
                write!(out, "{{{:?}/{:?}}}", cell.fg, cell.bg).unwrap();
                last = Some(colours);
            }
            out.push_str(cell.symbol());
        }
        out.push('\n');
    }
    out
}

fn conversation(theme: Theme) -> App {
    let mut app = app_with(Commands {
        theme,
        ..Commands::default()
    });
    let now = Instant::now();
    start_prompt(&mut app, now);
    let mut events = user("Say hi");
    events.extend(streamed(
        &["Hi there!"],
        answer(vec![text("Hi there!")], 10, 5, 0.0),
    ));
    apply_all(&mut app, &events, now);
    settle(&mut app);
    app
}

#[test]
fn typing_a_slash_lists_the_commands_with_their_descriptions() {
    let mut app = app();
    type_text(&mut app, "/");
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn a_partial_name_narrows_the_list_to_the_matches() {
    let mut app = app();
    type_text(&mut app, "/se");
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn the_model_picker_lists_the_models_with_their_providers_and_the_search() {
    let mut app = app();
    open_model_picker(&mut app, models(), "");
    type_text(&mut app, "4-5");
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn hotkeys_lists_every_action_with_its_keys_including_a_rebinding() {
    let keybindings = Keybindings::from_json(r#"{"app.model.select": ["ctrl+p", "f2"]}"#).unwrap();
    let mut app = app_with(Commands {
        keybindings: Arc::new(keybindings),
        ..Commands::default()
    });
    assert_eq!(submit(&mut app, "/hotkeys"), Vec::new());
    assert_eq!(app.panel().unwrap().title, "Keyboard shortcuts");
    let mut terminal = Terminal::new(TestBackend::new(80, 40)).unwrap();
    terminal
        .draw(|frame| view::draw(frame, &app, Instant::now()))
        .unwrap();
    insta::assert_snapshot!(format!("{}", terminal.backend()));
}

#[test]
fn session_shows_its_statistics_in_a_panel() {
    let mut app = conversation(Theme::default());
    let rows = [
        ("File", "/home/u/.rho/sessions/--src--/2026-12-03_abc.jsonl"),
        ("ID", "abc"),
        ("User messages", "1"),
        ("Assistant messages", "1"),
        ("Input tokens", "10"),
        ("Output tokens", "5"),
        ("Cost", "$0.0000"),
    ];
    let rows = rows
        .iter()
        .map(|(l, v)| ((*l).to_owned(), (*v).to_owned()))
        .collect();
    commands_reply(&mut app, CommandsReply::SessionStats(rows));
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn the_light_theme_darkens_the_text_colours() {
    let mut app = conversation(Theme::Light);
    type_text(&mut app, "/ex");
    insta::assert_snapshot!(coloured(&draw(&app, 60, 12)));
}

#[test]
fn no_color_leaves_no_colour_anywhere_on_screen() {
    let mut app = conversation(Theme::NoColor);
    type_text(&mut app, "/ex");
    let buffer = draw(&app, 60, 12);
    let colours: std::collections::BTreeSet<String> = buffer
        .content
        .iter()
        .flat_map(|c| [format!("{:?}", c.fg), format!("{:?}", c.bg)])
        .collect();
    assert_eq!(colours, ["Reset".to_owned()].into());
    insta::assert_snapshot!(coloured(&buffer));
}

#[test]
fn the_theme_follows_the_setting_no_color_and_colorfgbg() {
    assert_eq!(Theme::resolve(ThemeChoice::Light, None, None), Theme::Light);
    assert_eq!(
        Theme::resolve(ThemeChoice::Light, Some("1"), None),
        Theme::NoColor
    );
    assert_eq!(
        Theme::resolve(ThemeChoice::Dark, Some(""), Some("0;15")),
        Theme::Dark
    );
    assert_eq!(
        Theme::resolve(ThemeChoice::Auto, None, Some("0;15")),
        Theme::Light
    );
    assert_eq!(
        Theme::resolve(ThemeChoice::Auto, None, Some("15;default;0")),
        Theme::Dark
    );
    assert_eq!(Theme::resolve(ThemeChoice::Auto, None, None), Theme::Dark);
    assert_eq!(ThemeChoice::parse(Some("light")), ThemeChoice::Light);
    assert_eq!(ThemeChoice::parse(Some("solarized")), ThemeChoice::Auto);
    assert_eq!(
        Theme::Light.map(Color::White, rho_tui::theme::Layer::Fg),
        Color::Black
    );
}

#[test]
fn copy_writes_the_text_as_an_osc_52_sequence() {
    assert_eq!(
        rho_tui::slash::host::osc52("hi!\n"),
        "\x1b]52;c;aGkhCg==\x07"
    );
    assert_eq!(rho_tui::slash::host::osc52("ab"), "\x1b]52;c;YWI=\x07");
    assert_eq!(rho_tui::slash::host::osc52("abc"), "\x1b]52;c;YWJj\x07");
}
