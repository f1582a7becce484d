//! `/` commands, the model picker and the keybindings, driven through `App::update` as the
//! event loop drives them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use rho_ai::ThinkingLevel;
use rho_tui::keybindings::{KeySpec, Keybindings, KeybindingsError, Resolved};
use rho_tui::picker::{Picker, PickerItem, PickerOutcome};
use rho_tui::sessions::SwitchRequest;
use rho_tui::slash::{Commands, ModelOption, SettingChange, SlashAction, SlashRegistry, parse};
use rho_tui::transcript::Entry;
use rho_tui::{Effect, Input};

use crate::drive::{app_with, open_model_picker, paste, press, settle, submit, type_text};
use crate::events::app;
use crate::keyboard::{ctrl, key};

pub fn models() -> Vec<ModelOption> {
    let model = |provider: &str, id: &str, reasoning: bool| ModelOption {
        provider: provider.to_owned(),
        id: id.to_owned(),
        name: id.to_owned(),
        reasoning,
        context_window: 128_000,
    };
    vec![
        model("anthropic", "claude-sonnet-4-5", true),
        model("anthropic", "claude-haiku-4-5", false),
        model("openai", "gpt-5", true),
        model("openai", "gpt-4.1-mini", false),
    ]
}

#[test]
fn a_line_parses_into_the_name_and_the_trimmed_arguments() {
    assert_eq!(
        parse("/compact  keep the API notes "),
        Some(("compact", "keep the API notes"))
    );
    assert_eq!(parse("/model"), Some(("model", "")));
    assert_eq!(parse("/ model"), None);
    assert_eq!(parse("hello /model"), None);
}

#[test]
fn typing_a_slash_opens_the_popup_with_every_command_and_typing_narrows_it() {
    let mut app = app();
    type_text(&mut app, "/");
    let popup = app.slash_popup().cloned().unwrap();
    assert_eq!(popup.items.len(), app.commands().registry.commands().len());
    type_text(&mut app, "co");
    let names: Vec<&str> = app
        .slash_popup()
        .unwrap()
        .items
        .iter()
        .map(|&i| app.commands().registry.commands()[i].name.as_str())
        .collect();
    assert_eq!(&names[..2], ["copy", "compact"]);
}

#[test]
fn tab_completes_the_highlighted_command_and_closes_the_popup() {
    let mut app = app();
    type_text(&mut app, "/mod");
    assert_eq!(press(&mut app, key(KeyCode::Tab)), Vec::new());
    assert_eq!(app.editor().text(), "/model ");
    assert_eq!(app.slash_popup(), None);
}

#[test]
fn enter_in_the_popup_runs_the_highlighted_command() {
    let mut app = app();
    type_text(&mut app, "/hotk");
    assert_eq!(press(&mut app, key(KeyCode::Enter)), Vec::new());
    assert_eq!(app.panel().unwrap().title, "Keyboard shortcuts");
    assert_eq!(app.editor().text(), "");
}

#[test]
fn escape_closes_the_popup_until_the_text_changes() {
    let mut app = app();
    type_text(&mut app, "/m");
    press(&mut app, key(KeyCode::Esc));
    assert_eq!(app.slash_popup(), None);
    type_text(&mut app, "o");
    assert!(app.slash_popup().is_some());
}

#[test]
fn each_builtin_asks_for_its_work() {
    let mut app = app();
    assert_eq!(
        submit(&mut app, "/compact keep the API notes"),
        vec![Effect::Slash(SlashAction::Compact(Some(
            "keep the API notes".to_owned()
        )))]
    );
    assert_eq!(
        submit(&mut app, "/compact"),
        vec![Effect::Slash(SlashAction::Compact(None))]
    );
    assert_eq!(
        submit(&mut app, "/export out.html"),
        vec![Effect::Slash(SlashAction::Export(Some(
            "out.html".to_owned()
        )))]
    );
    assert_eq!(
        submit(&mut app, "/model gpt"),
        vec![Effect::Slash(SlashAction::OpenModelPicker(
            "gpt".to_owned()
        ))]
    );
    assert_eq!(
        submit(&mut app, "/session"),
        vec![Effect::Slash(SlashAction::Session)]
    );
    assert_eq!(
        submit(&mut app, "/settings"),
        vec![Effect::Slash(SlashAction::Settings)]
    );
    assert_eq!(
        submit(&mut app, "/copy"),
        vec![Effect::Slash(SlashAction::Copy)]
    );
    assert_eq!(
        submit(&mut app, "/new"),
        vec![Effect::SwitchSession(SwitchRequest::New)]
    );
    // The switch ends (here: fails) before the next command, which it would refuse.
    app.update(Input::SwitchDone(Err("no".to_owned())), Instant::now());
    assert_eq!(submit(&mut app, "/resume"), vec![Effect::OpenSessionPicker]);
    assert_eq!(submit(&mut app, "/fork"), vec![Effect::OpenForkPicker]);
    assert_eq!(submit(&mut app, "/tree"), vec![Effect::OpenTree]);
    assert_eq!(submit(&mut app, "/quit"), vec![Effect::Exit]);
}

#[test]
fn thinking_sets_a_level_and_refuses_an_unknown_one() {
    let mut app = app();
    assert_eq!(
        submit(&mut app, "/thinking high"),
        vec![Effect::SetThinking(ThinkingLevel::High)]
    );
    assert_eq!(app.status().info().thinking, ThinkingLevel::High);
    assert_eq!(submit(&mut app, "/thinking lots"), Vec::new());
    assert_eq!(
        app.transcript().last(),
        Some(&Entry::Error(
            "Unknown thinking level \"lots\" (one of: off, minimal, low, medium, high, xhigh, max)"
                .to_owned()
        ))
    );
}

#[test]
fn skills_templates_and_unknown_commands_go_to_the_session_as_prompts() {
    let mut app = app_with(Commands {
        registry: SlashRegistry::new(
            vec![("review".to_owned(), "Review the diff".to_owned())],
            vec![("pdf".to_owned(), "Read PDFs".to_owned())],
        ),
        ..Commands::default()
    });
    assert_eq!(
        submit(&mut app, "/review src/"),
        vec![Effect::Prompt("/review src/".to_owned())]
    );
    settle(&mut app);
    assert_eq!(
        submit(&mut app, "/skill:pdf a.pdf"),
        vec![Effect::Prompt("/skill:pdf a.pdf".to_owned())]
    );
    settle(&mut app);
    assert_eq!(
        submit(&mut app, "/nope"),
        vec![Effect::Prompt("/nope".to_owned())]
    );
}

#[test]
fn a_template_named_like_a_builtin_is_left_out() {
    let registry = SlashRegistry::new(vec![("model".to_owned(), "mine".to_owned())], Vec::new());
    let models: Vec<_> = registry
        .commands()
        .iter()
        .filter(|c| c.name == "model")
        .collect();
    assert_eq!(models.len(), 1);
    assert_eq!(models[0].description, "Select model (opens selector UI)");
}

#[test]
fn ctrl_l_opens_the_model_picker() {
    let mut app = app();
    assert_eq!(
        press(&mut app, ctrl('l')),
        vec![Effect::Slash(SlashAction::OpenModelPicker(String::new()))]
    );
}

#[test]
fn the_model_picker_starts_on_the_current_model_and_enter_switches_to_the_match() {
    let mut app = app();
    open_model_picker(&mut app, models(), "");
    let open = app.model_picker().unwrap();
    assert_eq!(open.picker.selected(), Some(0));
    type_text(&mut app, "gpt5");
    assert_eq!(
        press(&mut app, key(KeyCode::Enter)),
        vec![Effect::Slash(SlashAction::SetModel(models()[2].clone()))]
    );
    assert_eq!(app.model_picker(), None);
    assert_eq!(app.editor().text(), "");
}

#[test]
fn escape_closes_the_model_picker_without_a_switch() {
    let mut app = app();
    open_model_picker(&mut app, models(), "haiku");
    assert_eq!(press(&mut app, key(KeyCode::Esc)), Vec::new());
    assert_eq!(app.model_picker(), None);
}

#[test]
fn the_picker_filters_fuzzily_wraps_and_reports_the_item_index() {
    let items = ["alpha", "beta", "gamma"]
        .iter()
        .map(|l| PickerItem::new(*l, vec![format!("{l}-detail")]))
        .collect();
    let mut picker = Picker::new("Pick", items);
    assert_eq!(picker.handle_key(key(KeyCode::Up)), PickerOutcome::None);
    assert_eq!(picker.selected(), Some(2));
    picker.set_query("bt");
    assert_eq!(picker.visible(), &[1]);
    assert_eq!(
        picker.handle_key(key(KeyCode::Enter)),
        PickerOutcome::Picked(1)
    );
    picker.set_query("zzz");
    assert_eq!(picker.handle_key(key(KeyCode::Enter)), PickerOutcome::None);
    assert_eq!(picker.handle_key(ctrl('c')), PickerOutcome::Cancelled);
}

#[test]
fn keys_parse_in_pis_syntax_and_print_back() {
    for text in [
        "ctrl+l",
        "shift+tab",
        "alt+enter",
        "ctrl+shift+p",
        "pageUp",
        "f5",
        "escape",
        "ctrl+]",
    ] {
        assert_eq!(KeySpec::parse(text).unwrap().to_string(), text);
    }
    assert_eq!(KeySpec::parse("esc"), KeySpec::parse("escape"));
    assert_eq!(KeySpec::parse("hyper+x"), None);
    assert_eq!(KeySpec::parse("f13"), None);
}

#[test]
fn a_rebound_action_answers_to_its_new_key_and_not_its_old_one() {
    let bindings =
        Keybindings::from_json(r#"{"app.model.select": "ctrl+p", "app.session.new": ["alt+n"]}"#)
            .unwrap();
    assert_eq!(bindings.resolve(ctrl('p')), Resolved::Key(ctrl('l')));
    assert_eq!(bindings.resolve(ctrl('l')), Resolved::Unbound);
    assert_eq!(
        bindings.resolve(KeyEvent::new(KeyCode::Char('n'), KeyModifiers::ALT)),
        Resolved::Action("app.session.new")
    );
    assert_eq!(
        bindings.resolve(key(KeyCode::Char('x'))),
        Resolved::Key(key(KeyCode::Char('x')))
    );
}

#[test]
fn a_key_the_user_gave_an_action_wins_over_its_default_owner() {
    // Ctrl+L opens the model picker by default; bound to "expand tools" it expands tools.
    let bindings = Keybindings::from_json(r#"{"app.tools.expand": "ctrl+l"}"#).unwrap();
    assert_eq!(bindings.resolve(ctrl('l')), Resolved::Key(ctrl('o')));
    assert_eq!(bindings.resolve(ctrl('o')), Resolved::Unbound);
}

#[test]
fn the_app_uses_the_loaded_bindings() {
    let mut app = app_with(Commands {
        keybindings: Arc::new(
            Keybindings::from_json(r#"{"app.model.select": ["ctrl+p"]}"#).unwrap(),
        ),
        ..Commands::default()
    });
    assert_eq!(press(&mut app, ctrl('l')), Vec::new());
    assert_eq!(
        press(&mut app, ctrl('p')),
        vec![Effect::Slash(SlashAction::OpenModelPicker(String::new()))]
    );
}

#[test]
fn a_bad_keybindings_file_keeps_the_defaults_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("keybindings.json");
    std::fs::write(&path, r#"{"app.model.select": "ctrl+banana"}"#).unwrap();
    let (bindings, problem) = Keybindings::load(&path);
    assert_eq!(bindings, Keybindings::defaults());
    assert_eq!(
        problem.map(|p| p.to_string()),
        Some("\"app.model.select\": unknown key \"ctrl+banana\"".to_owned())
    );
    std::fs::write(&path, "{not json").unwrap();
    assert!(matches!(
        Keybindings::load(&path).1,
        Some(KeybindingsError::Json(_))
    ));
    let (bindings, problem) = Keybindings::load(&dir.path().join("missing.json"));
    assert_eq!(
        (bindings, problem.is_none()),
        (Keybindings::defaults(), true)
    );
}

#[test]
fn settings_changes_a_setting_now_and_keeps_it_or_says_what_it_knows() {
    let mut app = app();
    let save = |change| Effect::Slash(SlashAction::SaveSetting(change));
    assert_eq!(
        submit(&mut app, "/settings"),
        vec![Effect::Slash(SlashAction::Settings)]
    );
    assert_eq!(
        submit(&mut app, "/settings auto-compaction off"),
        vec![
            Effect::Slash(SlashAction::SetAutoCompaction(false)),
            save(SettingChange::AutoCompaction(false)),
        ]
    );
    assert_eq!(
        submit(&mut app, "/settings thinking low"),
        vec![Effect::SetThinking(ThinkingLevel::Low)]
    );
    assert_eq!(
        submit(&mut app, "/settings theme light"),
        vec![save(SettingChange::Theme("light".to_owned()))]
    );
    assert_eq!(app.theme(), rho_tui::theme::Theme::Light);
    // A level refused is neither applied nor kept.
    assert_eq!(submit(&mut app, "/settings thinking loud"), Vec::new());
    assert_eq!(submit(&mut app, "/settings colour pink"), Vec::new());
    assert_eq!(
        app.transcript().last(),
        Some(&Entry::Error(
            "Unknown setting \"colour pink\" (try: thinking <level>, auto-compaction on|off, theme dark|light)".to_owned()
        ))
    );
}

#[test]
fn a_paste_into_the_open_model_picker_becomes_its_search() {
    let mut app = app();
    open_model_picker(&mut app, models(), "");
    assert_eq!(paste(&mut app, "gpt-4.1\n"), Vec::new());
    let open = app.model_picker().unwrap();
    assert_eq!(
        (open.picker.query(), open.picker.selected()),
        ("gpt-4.1", Some(3))
    );
    assert_eq!(app.editor().text(), "");
}
