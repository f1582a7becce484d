//! The reducer on whole event sequences: what the conversation and the status hold afterwards.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use rho_ai::faux::faux_error;
use rho_host::compaction::{CompactionEnd, CompactionReason, CompactionStart};
use rho_host::{SessionEvent, SessionNotice, SettledReason};
use rho_tui::transcript::{
    AssistantBlock, AssistantEntry, Entry, ToolEntry, ToolOrigin, ToolStatus,
};
use serde_json::json;

use crate::drive::{run_shell, start_prompt};
use crate::events::*;

#[test]
fn a_prompt_with_streamed_text_and_a_bash_call_becomes_user_answer_and_finished_tool() {
    let mut app = app();
    let t0 = Instant::now();
    start_prompt(&mut app, t0);
    let mut events = user("list files");
    events.extend(streamed(
        &["Let me ", "look."],
        answer(vec![text("Let me look.")], 10, 5, 0.01),
    ));
    events.push(tool_start("call-1", "bash", json!({"command": "ls"})));
    events.push(tool_update("call-1", "bash", "a.txt\n"));
    apply_all(&mut app, &events, t0);
    let live = match app.transcript().last() {
        Some(Entry::Tool(tool)) => tool.output.clone(),
        other => panic!("expected a tool entry, got {other:?}"),
    };
    assert_eq!(
        live, "a.txt\n",
        "live output comes from tool_execution_update"
    );

    let t1 = t0 + Duration::from_millis(300);
    let mut rest = vec![tool_end("call-1", "bash", "a.txt\nb.txt", false, Some(120))];
    rest.extend(streamed(
        &["Two files."],
        answer(vec![text("Two files.")], 20, 3, 0.02),
    ));
    rest.push(settled(SettledReason::Completed));
    apply_all(&mut app, &rest, t1);

    assert_eq!(
        app.transcript(),
        vec![
            Entry::User("list files".to_owned()),
            Entry::Assistant(AssistantEntry {
                blocks: vec![AssistantBlock::Text("Let me look.".to_owned())],
                streaming: false,
            }),
            Entry::Tool(ToolEntry {
                origin: ToolOrigin::Agent,
                id: "call-1".to_owned(),
                name: "bash".to_owned(),
                args: json!({"command": "ls"}),
                status: ToolStatus::Done,
                started: t0,
                elapsed: Some(Duration::from_millis(120)),
                output: "a.txt\nb.txt".to_owned(),
                details: None,
                hooks: Vec::new(),
            }),
            Entry::Assistant(AssistantEntry {
                blocks: vec![AssistantBlock::Text("Two files.".to_owned())],
                streaming: false,
            }),
        ]
    );
    assert!(!app.working(), "agent_settled ends the working state");
    let status = app.status();
    assert_eq!(
        (status.input(), status.output(), status.context_tokens()),
        (30, 8, Some(23))
    );
    assert!((status.cost() - 0.03).abs() < 1e-9);
}

#[test]
fn text_streams_into_the_open_assistant_entry_before_the_message_ends() {
    let mut app = app();
    let now = Instant::now();
    let events = streamed(&["Hel", "lo"], answer(vec![text("Hello")], 1, 1, 0.0));
    // Everything but the message_end.
    apply_all(&mut app, &events[..events.len() - 1], now);
    assert_eq!(
        app.transcript(),
        vec![Entry::Assistant(AssistantEntry {
            blocks: vec![AssistantBlock::Text("Hello".to_owned())],
            streaming: true,
        })]
    );
}

#[test]
fn a_gate_refusal_is_a_refused_tool_carrying_the_reason() {
    let mut app = app();
    let now = Instant::now();
    let reason =
        "Command \"rm -rf /\" is denied by a command rule (rm *). Change the rule to allow it.";
    apply_all(
        &mut app,
        &[
            tool_start("c", "bash", json!({"command": "rm -rf /"})),
            tool_end("c", "bash", reason, true, None),
        ],
        now,
    );
    let Some(Entry::Tool(tool)) = app.transcript().last() else {
        panic!("no tool entry");
    };
    assert_eq!(
        (tool.status, tool.output.as_str()),
        (ToolStatus::Refused, reason)
    );
}

#[test]
fn the_end_of_a_run_leaves_a_users_bang_command_running() {
    let mut app = app();
    let now = Instant::now();
    run_shell(&mut app, "!sleep 30", now);
    start_prompt(&mut app, now);
    let mut events = vec![tool_start("c", "bash", json!({"command": "ls"}))];
    events.push(agent(rho_agent::AgentEvent::AgentEnd {
        messages: Vec::new(),
        will_retry: false,
    }));
    apply_all(&mut app, &events, now + Duration::from_secs(1));
    let status = |origin: ToolOrigin| {
        app.transcript().iter().find_map(|entry| match entry {
            Entry::Tool(tool) if tool.origin == origin => Some(tool.status),
            _ => None,
        })
    };
    assert_eq!(status(ToolOrigin::Agent), Some(ToolStatus::Cancelled));
    assert_eq!(status(ToolOrigin::UserShell), Some(ToolStatus::Running));
    assert!(app.shell_running());
}

#[test]
fn an_abort_cancels_running_tools_and_says_aborted() {
    let mut app = app();
    let now = Instant::now();
    start_prompt(&mut app, now);
    let mut aborted = faux_error(Vec::new(), "Request was aborted");
    aborted.stop_reason = rho_ai::StopReason::Aborted;
    let mut events = vec![tool_start("c", "bash", json!({"command": "sleep 30"}))];
    events.extend(streamed(&[], aborted));
    events.push(agent(rho_agent::AgentEvent::AgentEnd {
        messages: Vec::new(),
        will_retry: false,
    }));
    events.push(settled(SettledReason::Aborted));
    apply_all(&mut app, &events, now + Duration::from_secs(2));
    assert_eq!(app.transcript().len(), 2);
    let Entry::Tool(tool) = &app.transcript()[0] else {
        panic!("no tool entry");
    };
    assert_eq!(tool.status, ToolStatus::Cancelled);
    assert_eq!(app.transcript()[1], Entry::Notice("Aborted".to_owned()));
    assert!(!app.working());
}

#[test]
fn a_model_error_is_shown_as_an_error_entry() {
    let mut app = app();
    let events = streamed(&[], faux_error(Vec::new(), "401 invalid x-api-key"));
    apply_all(&mut app, &events, Instant::now());
    assert_eq!(
        app.transcript(),
        vec![Entry::Error("Error: 401 invalid x-api-key".to_owned())]
    );
}

#[test]
fn queue_retry_and_compaction_notices_drive_the_status() {
    let mut app = app();
    let now = Instant::now();
    apply_all(
        &mut app,
        &[SessionEvent::Session(SessionNotice::QueueUpdate {
            steering: vec!["look at b".to_owned()],
            follow_up: vec!["then c".to_owned(), "and d".to_owned()],
        })],
        now,
    );
    assert_eq!(
        (
            app.status().steering().len(),
            app.status().follow_up().len()
        ),
        (1, 2)
    );
    apply_all(
        &mut app,
        &[SessionEvent::Session(SessionNotice::AutoRetryStart {
            attempt: 1,
            max_attempts: 3,
            delay_ms: 2000,
            error_message: "overloaded".to_owned(),
        })],
        now,
    );
    let retry = app.status().retry().cloned().unwrap();
    assert_eq!(
        (
            retry.attempt,
            retry.max_attempts,
            retry.seconds_left(now + Duration::from_millis(500))
        ),
        (1, 3, 2)
    );
    apply_all(
        &mut app,
        &[SessionEvent::Session(SessionNotice::AutoRetryEnd {
            success: false,
            attempt: 3,
            final_error: Some("overloaded".to_owned()),
        })],
        now,
    );
    assert_eq!(app.status().retry(), None);
    apply_all(
        &mut app,
        &[SessionEvent::Session(SessionNotice::CompactionStart(
            CompactionStart {
                reason: CompactionReason::Overflow,
            },
        ))],
        now,
    );
    assert_eq!(
        app.status().compacting(),
        Some("Context overflow detected, Auto-compacting...")
    );
    apply_all(
        &mut app,
        &[SessionEvent::Session(SessionNotice::CompactionEnd(
            CompactionEnd {
                reason: CompactionReason::Overflow,
                result: None,
                aborted: false,
                will_retry: false,
                error_message: Some("no model".to_owned()),
            },
        ))],
        now,
    );
    assert_eq!(app.status().compacting(), None);
    assert_eq!(
        app.transcript(),
        vec![
            Entry::Error("Retry failed after 3 attempts: overloaded".to_owned()),
            Entry::Error("Compaction failed: no model".to_owned()),
        ]
    );
}

#[test]
fn thinking_blocks_are_kept_in_order_with_text() {
    let mut app = app();
    let events = streamed(&[], answer(vec![thinking("hmm"), text("Yes.")], 1, 1, 0.0));
    apply_all(&mut app, &events, Instant::now());
    assert_eq!(
        app.transcript(),
        vec![Entry::Assistant(AssistantEntry {
            blocks: vec![
                AssistantBlock::Thinking("hmm".to_owned()),
                AssistantBlock::Text("Yes.".to_owned())
            ],
            streaming: false,
        })]
    );
}

#[test]
fn token_counts_are_written_as_pis_footer_writes_them() {
    let counts = [999, 1_234, 45_600, 1_500_000, 12_400_000];
    assert_eq!(
        counts.map(rho_tui::status::format_tokens),
        ["999", "1.2k", "46k", "1.5M", "12M"].map(str::to_owned)
    );
}
