//! The approval prompt: the dialog's keys, its look, the approver's round trip to the UI, and
//! "always" written to the project's rules file.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::time::Instant;

use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use rho_gate::{CommandDecision, CommandRules};
use rho_host::gate::Approver;
use rho_tui::approval::{ApprovalChoice, ApprovalDialog, TuiApprover};
use rho_tui::rules_file::{RuleWriteError, append_allow_rules};
use rho_tui::{App, Effect, Input, view};

use crate::drive::{open_model_picker, paste, press, start_prompt};
use crate::events::app;
use crate::keyboard::key;

fn dialog() -> ApprovalDialog {
    ApprovalDialog {
        id: 7,
        command: "rm -rf build".to_owned(),
        tool: None,
        why: "ask rule in /p/.rho/rules.toml, rule 1 (\"rm\")".to_owned(),
        rules_file: PathBuf::from("/p/.rho/rules.toml"),
        selected: 0,
    }
}

fn asking_app() -> App {
    let mut app = app();
    start_prompt(&mut app, Instant::now());
    ask(&mut app);
    app
}

fn ask(app: &mut App) {
    let asked = app.update(Input::ApprovalAsked(dialog()), Instant::now());
    assert_eq!(asked, Vec::new());
}

#[test]
fn y_a_and_n_answer_at_once_and_escape_denies() {
    for (code, choice) in [
        (KeyCode::Char('y'), ApprovalChoice::Once),
        (KeyCode::Char('a'), ApprovalChoice::Always),
        (KeyCode::Char('n'), ApprovalChoice::Deny),
        (KeyCode::Esc, ApprovalChoice::Deny),
    ] {
        let mut app = asking_app();
        assert_eq!(
            press(&mut app, key(code)),
            vec![Effect::Answer(dialog(), choice)],
            "{code:?}"
        );
        assert!(app.approvals().is_empty());
    }
}

#[test]
fn a_question_arriving_over_the_model_picker_closes_it_and_takes_the_keys() {
    let mut app = app();
    start_prompt(&mut app, Instant::now());
    let model = rho_tui::slash::host::ModelOption {
        provider: "mock".to_owned(),
        id: "a".to_owned(),
        name: "a".to_owned(),
        reasoning: false,
        context_window: 1000,
    };
    open_model_picker(&mut app, vec![model], "");
    assert!(app.model_picker().is_some());
    ask(&mut app);
    assert!(app.model_picker().is_none() && app.sessions_overlay().is_none());
    assert_eq!(
        press(&mut app, key(KeyCode::Char('y'))),
        vec![Effect::Answer(dialog(), ApprovalChoice::Once)]
    );
}

#[test]
fn arrows_move_the_highlight_and_enter_takes_it() {
    let mut app = asking_app();
    assert_eq!(press(&mut app, key(KeyCode::Right)), vec![]);
    assert_eq!(press(&mut app, key(KeyCode::Right)), vec![]);
    assert_eq!(app.approvals()[0].selected, 2);
    assert_eq!(press(&mut app, key(KeyCode::Left)), vec![]);
    let mut moved = dialog();
    moved.selected = 1;
    assert_eq!(
        press(&mut app, key(KeyCode::Enter)),
        vec![Effect::Answer(moved, ApprovalChoice::Always)]
    );
}

#[test]
fn other_keys_neither_answer_nor_reach_the_editor() {
    let mut app = asking_app();
    assert_eq!(press(&mut app, key(KeyCode::Char('x'))), vec![]);
    assert_eq!(paste(&mut app, "pasted"), vec![]);
    assert_eq!(app.editor().text(), "");
    assert_eq!(app.approvals().len(), 1);
}

#[test]
fn the_dialog_shows_the_command_the_rule_and_the_choices_in_place_of_the_editor() {
    let app = asking_app();
    let mut terminal = Terminal::new(TestBackend::new(80, 12)).unwrap();
    terminal
        .draw(|frame| view::draw(frame, &app, Instant::now()))
        .unwrap();
    insta::assert_snapshot!(format!("{}", terminal.backend()));
}

#[tokio::test]
async fn the_approver_asks_the_ui_and_always_stops_asking_for_that_command() {
    let (approver, mut requests) = TuiApprover::new(PathBuf::from("/p/.rho/rules.toml"));
    let ui = tokio::spawn(async move {
        let mut seen = Vec::new();
        for answer in [ApprovalChoice::Deny, ApprovalChoice::Always] {
            let request = requests.recv().await.unwrap();
            seen.push((request.command.clone(), request.why.clone()));
            request.reply.send(answer).unwrap();
        }
        // Nothing else is asked: the third call is answered by "always".
        assert!(requests.recv().await.is_none());
        seen
    });
    assert!(!approver.approve("rm x", "ask rule").await);
    assert!(approver.approve("rm x", "ask rule").await);
    assert!(approver.approve("rm x", "ask rule").await);
    drop(approver);
    assert_eq!(
        ui.await.unwrap(),
        vec![
            ("rm x".to_owned(), "ask rule".to_owned()),
            ("rm x".to_owned(), "ask rule".to_owned())
        ]
    );
}

#[tokio::test]
async fn a_ui_that_is_gone_denies() {
    let (approver, requests) = TuiApprover::new(PathBuf::from("/p/.rho/rules.toml"));
    drop(requests);
    assert!(!approver.approve("rm x", "ask rule").await);
}

#[test]
fn always_appends_exact_allow_rules_that_outrank_the_ask_rule_and_allow_nothing_longer() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(".rho/rules.toml");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, "[[rule]]\ndecision = \"ask\"\nprefix = \"rm\"").unwrap();
    let written = append_allow_rules(&file, "rm -f 'my file.txt' && rm -f out").unwrap();
    assert_eq!(written, ["rm -f 'my file.txt'", "rm -f out"]);
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "[[rule]]\ndecision = \"ask\"\nprefix = \"rm\"\n\
         \n# Added by \"always allow\" in the interactive mode.\n\
         [[rule]]\ndecision = \"allow\"\ncommand = \"rm -f 'my file.txt'\"\n\
         \n# Added by \"always allow\" in the interactive mode.\n\
         [[rule]]\ndecision = \"allow\"\ncommand = \"rm -f out\"\n"
    );
    let rules = CommandRules::load(&[file]).unwrap();
    assert_eq!(
        rules.decide("rm -f 'my file.txt' && rm -f out"),
        CommandDecision::Allow
    );
    for longer in ["rm -f other", "rm -f out -r", "rm -rf out"] {
        assert!(
            matches!(rules.decide(longer), CommandDecision::Ask { .. }),
            "{longer}"
        );
    }
}

#[test]
fn always_creates_the_rules_file_and_its_directory() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(".rho/rules.toml");
    append_allow_rules(&file, "make \"deploy\"").unwrap();
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "# Added by \"always allow\" in the interactive mode.\n\
         [[rule]]\ndecision = \"allow\"\ncommand = \"make deploy\"\n"
    );
}

#[test]
fn a_command_that_cannot_be_parsed_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(".rho/rules.toml");
    let error = append_allow_rules(&file, "echo 'unbalanced").unwrap_err();
    assert!(
        matches!(error, RuleWriteError::NotARule { .. }),
        "{error:?}"
    );
    assert!(!file.exists());
}

#[test]
fn a_broken_rules_file_is_left_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("rules.toml");
    std::fs::write(&file, "[[rule]\n").unwrap();
    let error = append_allow_rules(&file, "ls").unwrap_err();
    assert!(matches!(error, RuleWriteError::Invalid(_)), "{error:?}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "[[rule]\n");
}
