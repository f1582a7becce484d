//! Keys as Pi binds them: what they do to the editor and which commands reach the session.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use rho_host::{SessionEvent, SessionNotice};
use rho_tui::{Effect, Input};

use crate::drive::{paste, press_at, settle, start_prompt};
use crate::events::app;
use crate::keyboard::key;

fn with(code: KeyCode, modifiers: KeyModifiers) -> KeyEvent {
    KeyEvent::new(code, modifiers)
}

fn type_text(app: &mut rho_tui::App, text: &str, now: Instant) {
    for c in text.chars() {
        assert_eq!(press_at(app, key(KeyCode::Char(c)), now), Vec::new());
    }
}

#[test]
fn enter_when_idle_sends_the_prompt_and_starts_working() {
    let mut app = app();
    let now = Instant::now();
    type_text(&mut app, "hello", now);
    assert_eq!(
        press_at(&mut app, key(KeyCode::Enter), now),
        vec![Effect::Prompt("hello".to_owned())]
    );
    assert!(app.working());
    assert_eq!(app.editor().text(), "");
}

#[test]
fn while_a_session_switch_runs_a_message_stays_in_the_editor() {
    let mut app = app();
    let now = Instant::now();
    type_text(&mut app, "/new", now);
    assert_eq!(
        press_at(&mut app, key(KeyCode::Enter), now),
        vec![Effect::SwitchSession(rho_tui::sessions::SwitchRequest::New)]
    );
    assert!(app.switching());
    type_text(&mut app, "hello", now);
    assert_eq!(press_at(&mut app, key(KeyCode::Enter), now), Vec::new());
    assert_eq!(app.editor().text(), "hello");
    assert_eq!(
        app.transcript().last(),
        Some(&rho_tui::transcript::Entry::Notice(
            rho_tui::app::SWITCH_BUSY.to_owned()
        ))
    );
    app.update(Input::SwitchDone(Err("switch failed".to_owned())), now);
    assert!(!app.switching());
    assert_eq!(
        press_at(&mut app, key(KeyCode::Enter), now),
        vec![Effect::Prompt("hello".to_owned())]
    );
}

#[test]
fn enter_on_a_blank_editor_sends_nothing() {
    let mut app = app();
    type_text(&mut app, "   ", Instant::now());
    assert_eq!(
        press_at(&mut app, key(KeyCode::Enter), Instant::now()),
        Vec::new()
    );
    assert!(!app.working());
}

#[test]
fn while_working_enter_steers_and_alt_enter_queues_a_follow_up() {
    let mut app = app();
    let now = Instant::now();
    start_prompt(&mut app, now);
    type_text(&mut app, "look at b", now);
    assert_eq!(
        press_at(&mut app, key(KeyCode::Enter), now),
        vec![Effect::Steer("look at b".to_owned())]
    );
    type_text(&mut app, "then c", now);
    assert_eq!(
        press_at(&mut app, with(KeyCode::Enter, KeyModifiers::ALT), now),
        vec![Effect::FollowUp("then c".to_owned())]
    );
}

#[test]
fn alt_enter_when_idle_sends_like_enter() {
    let mut app = app();
    let now = Instant::now();
    type_text(&mut app, "hi", now);
    assert_eq!(
        press_at(&mut app, with(KeyCode::Enter, KeyModifiers::ALT), now),
        vec![Effect::Prompt("hi".to_owned())]
    );
}

#[test]
fn escape_while_working_aborts_and_puts_queued_messages_back_in_the_editor() {
    let mut app = app();
    let now = Instant::now();
    start_prompt(&mut app, now);
    let queued = SessionEvent::Session(SessionNotice::QueueUpdate {
        steering: vec!["look at b".to_owned()],
        follow_up: vec!["then c".to_owned()],
    });
    assert_eq!(app.update(queued.into(), now), Vec::new());
    assert_eq!(
        press_at(&mut app, key(KeyCode::Esc), now),
        vec![Effect::ClearQueue, Effect::Abort]
    );
    assert_eq!(app.editor().text(), "look at b\n\nthen c");
}

#[test]
fn escape_with_nothing_queued_only_aborts_and_when_idle_does_nothing() {
    let mut app = app();
    let now = Instant::now();
    assert_eq!(press_at(&mut app, key(KeyCode::Esc), now), Vec::new());
    start_prompt(&mut app, now);
    assert_eq!(
        press_at(&mut app, key(KeyCode::Esc), now),
        vec![Effect::Abort]
    );
}

#[test]
fn ctrl_c_clears_the_editor_and_a_second_press_within_half_a_second_exits() {
    let mut app = app();
    let now = Instant::now();
    let ctrl_c = with(KeyCode::Char('c'), KeyModifiers::CONTROL);
    type_text(&mut app, "draft", now);
    assert_eq!(press_at(&mut app, ctrl_c, now), Vec::new());
    assert_eq!(app.editor().text(), "");
    assert_eq!(
        press_at(&mut app, ctrl_c, now + Duration::from_millis(600)),
        Vec::new(),
        "too slow: counts as a first press again"
    );
    assert_eq!(
        press_at(&mut app, ctrl_c, now + Duration::from_millis(800)),
        vec![Effect::Exit]
    );
}

#[test]
fn shift_enter_and_ctrl_j_insert_newlines_and_paste_keeps_its_lines() {
    let mut app = app();
    let now = Instant::now();
    type_text(&mut app, "a", now);
    press_at(&mut app, with(KeyCode::Enter, KeyModifiers::SHIFT), now);
    type_text(&mut app, "b", now);
    press_at(
        &mut app,
        with(KeyCode::Char('j'), KeyModifiers::CONTROL),
        now,
    );
    paste(&mut app, "c\r\nd");
    assert_eq!(app.editor().text(), "a\nb\nc\nd");
    assert!(!app.working());
}

#[test]
fn up_and_down_walk_the_history_and_return_to_the_draft() {
    let mut app = app();
    let now = Instant::now();
    for prompt in ["first", "second"] {
        type_text(&mut app, prompt, now);
        press_at(&mut app, key(KeyCode::Enter), now);
        settle(&mut app);
    }
    type_text(&mut app, "dra", now);
    press_at(&mut app, key(KeyCode::Up), now);
    assert_eq!(app.editor().text(), "second");
    press_at(&mut app, key(KeyCode::Up), now);
    assert_eq!(app.editor().text(), "first");
    press_at(&mut app, key(KeyCode::Down), now);
    press_at(&mut app, key(KeyCode::Down), now);
    assert_eq!(app.editor().text(), "dra");
}

#[test]
fn up_moves_between_lines_of_a_multi_line_text_before_reaching_history() {
    let mut app = app();
    let now = Instant::now();
    paste(&mut app, "one\ntwo");
    press_at(&mut app, key(KeyCode::Up), now);
    type_text(&mut app, "!", now);
    assert_eq!(app.editor().text(), "one!\ntwo");
}

#[test]
fn ctrl_o_and_ctrl_t_toggle_tool_output_and_thinking_and_shift_tab_cycles_thinking() {
    let mut app = app();
    let now = Instant::now();
    press_at(
        &mut app,
        with(KeyCode::Char('o'), KeyModifiers::CONTROL),
        now,
    );
    press_at(
        &mut app,
        with(KeyCode::Char('t'), KeyModifiers::CONTROL),
        now,
    );
    assert_eq!((app.expand_tools(), app.show_thinking()), (true, true));
    assert_eq!(
        press_at(&mut app, with(KeyCode::BackTab, KeyModifiers::SHIFT), now),
        vec![Effect::SetThinking(rho_ai::ThinkingLevel::High)]
    );
}
