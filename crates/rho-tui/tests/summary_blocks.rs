//! Compaction and branch summaries in the conversation: a resumed or switched session shows
//! them where they stand in the context, a live compaction adds one, and Ctrl+O expands them
//! (snapshots at 80×24, the expanded one taller).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use rho_agent::AgentMessage;
use rho_ai::UserMessage;
use rho_ai::faux::{faux_message, faux_text};
use rho_host::compaction::{CompactionDetails, CompactionEnd, CompactionReason, CompactionResult};
use rho_host::{SessionEvent, SessionNotice};
use rho_tui::transcript::{AssistantBlock, AssistantEntry, Entry, SummaryEntry, SummaryKind};
use rho_tui::view::summary::thousands;
use rho_tui::{App, view};
use serde_json::json;

use crate::drive::{press, switched};
use crate::events::{app, apply_all, user};

fn screen(app: &App) -> String {
    screen_of(app, 24)
}

fn screen_of(app: &App, rows: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(80, rows)).unwrap();
    terminal
        .draw(|frame| view::draw(frame, app, Instant::now()))
        .unwrap();
    format!("{}", terminal.backend())
}

fn custom(value: serde_json::Value) -> AgentMessage {
    serde_json::from_value(value).unwrap()
}

/// A context as a resumed session rebuilds it: the compaction summary first, a branch summary
/// where the tree switch left one, then the kept messages.
fn resumed_context() -> Vec<AgentMessage> {
    vec![
        custom(json!({"role": "compactionSummary",
            "summary": "## Goal\nFix the parser.\n\n## Done\n- read `lib.rs`",
            "tokensBefore": 123_456, "timestamp": 1})),
        UserMessage::text("what next?").into(),
        faux_message(vec![faux_text("The tests.")]).into(),
        custom(json!({"role": "branchSummary",
            "summary": "Tried a **regex** approach; abandoned.", "fromId": "abc", "timestamp": 2})),
        UserMessage::text("go on").into(),
    ]
}

fn resumed() -> App {
    let mut app = app();
    switched(&mut app, resumed_context(), None, "Resumed session");
    app
}

#[test]
fn a_resumed_session_shows_its_compaction_and_branch_summaries_in_place() {
    let app = resumed();
    assert_eq!(
        app.transcript(),
        [
            Entry::Summary(SummaryEntry {
                kind: SummaryKind::Compaction {
                    tokens_before: 123_456
                },
                summary: "## Goal\nFix the parser.\n\n## Done\n- read `lib.rs`".to_owned(),
            }),
            Entry::User("what next?".to_owned()),
            Entry::Assistant(AssistantEntry {
                blocks: vec![AssistantBlock::Text("The tests.".to_owned())],
                streaming: false,
            }),
            Entry::Summary(SummaryEntry {
                kind: SummaryKind::Branch,
                summary: "Tried a **regex** approach; abandoned.".to_owned(),
            }),
            Entry::User("go on".to_owned()),
            Entry::Notice("Resumed session".to_owned()),
        ]
    );
}

#[test]
fn summaries_are_drawn_collapsed_with_pis_labels_and_the_expand_hint() {
    insta::assert_snapshot!(screen(&resumed()));
}

#[test]
fn ctrl_o_expands_the_summaries_into_their_markdown() {
    let mut app = resumed();
    press(
        &mut app,
        KeyEvent::new(KeyCode::Char('o'), KeyModifiers::CONTROL),
    );
    assert!(app.expand_tools());
    // Tall enough for the whole conversation.
    insta::assert_snapshot!(screen_of(&app, 34));
}

#[test]
fn a_finished_live_compaction_adds_its_summary_block() {
    let mut app = app();
    apply_all(&mut app, &user("hello"), Instant::now());
    let compacted = SessionEvent::Session(SessionNotice::CompactionEnd(CompactionEnd {
        reason: CompactionReason::Manual,
        result: Some(CompactionResult {
            summary: "The user said hello.".to_owned(),
            first_kept_entry_id: "e1".to_owned(),
            tokens_before: 2048,
            estimated_tokens_after: 300,
            usage: rho_ai::Usage::default(),
            details: CompactionDetails::default(),
            first_kept_index: 0,
        }),
        aborted: false,
        will_retry: false,
        error_message: None,
    }));
    apply_all(&mut app, &[compacted], Instant::now());
    assert_eq!(
        app.transcript(),
        [
            Entry::User("hello".to_owned()),
            Entry::Summary(SummaryEntry {
                kind: SummaryKind::Compaction {
                    tokens_before: 2048
                },
                summary: "The user said hello.".to_owned(),
            }),
        ]
    );
    insta::assert_snapshot!(screen(&app));
}

#[test]
fn token_counts_are_grouped_by_thousands_as_pi_prints_them() {
    let printed: Vec<String> = [0, 999, 1000, 12_345, 1_234_567]
        .into_iter()
        .map(thousands)
        .collect();
    assert_eq!(printed, ["0", "999", "1,000", "12,345", "1,234,567"]);
}
