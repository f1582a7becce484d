//! Visible auto-retry: a retryable failure shows `auto_retry_start`, is dropped from the context,
//! and the run continues; exhaustion, cancellation and non-retryable failures settle accordingly.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use rho_agent::AgentOptions;
use rho_ai::faux::{FauxProvider, faux_error, faux_message, faux_text};
use rho_ai::{AssistantMessage, ErrorInfo, ErrorKind, Message};
use rho_host::{AgentSession, RetryPolicy, SessionEvent, SessionNotice, SettledReason};
use serde_json::Value;

fn failure(kind: ErrorKind, retry_after_ms: Option<u64>) -> AssistantMessage {
    let mut message = faux_error(vec![], "529 overloaded_error: Overloaded");
    message.error_info = Some(ErrorInfo {
        kind,
        status: None,
        retry_after_ms,
    });
    message
}

fn session(provider: &FauxProvider) -> (AgentSession, Arc<Mutex<Vec<SessionEvent>>>) {
    let options = AgentOptions::new(Arc::new(provider.clone()), provider.model());
    let session = AgentSession::builder(options)
        .retry(RetryPolicy {
            enabled: true,
            max_retries: 3,
            base_delay_ms: 1,
            ..RetryPolicy::default()
        })
        .build();
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    session.subscribe(move |event| sink.lock().unwrap().push(event.clone()));
    (session, events)
}

fn kinds(events: &Mutex<Vec<SessionEvent>>) -> Vec<String> {
    events
        .lock()
        .unwrap()
        .iter()
        .map(|e| {
            serde_json::to_value(e).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

fn retry_notices(events: &Mutex<Vec<SessionEvent>>) -> Vec<Value> {
    events
        .lock()
        .unwrap()
        .iter()
        .filter(|e| {
            matches!(
                e,
                SessionEvent::Session(
                    SessionNotice::AutoRetryStart { .. } | SessionNotice::AutoRetryEnd { .. }
                )
            )
        })
        .map(|e| serde_json::to_value(e).unwrap())
        .collect()
}

fn json(text: &str) -> Value {
    serde_json::from_str(text).unwrap()
}

#[tokio::test]
async fn two_overloaded_failures_then_success_show_two_retries_and_settle_completed() {
    let provider = FauxProvider::new();
    provider.push(failure(ErrorKind::Overloaded, None));
    provider.push(failure(ErrorKind::Overloaded, None));
    provider.push(faux_message(vec![faux_text("fine")]));
    let (session, events) = session(&provider);
    let settled = session.prompt("hi").await.unwrap();
    assert_eq!(settled.reason, SettledReason::Completed);
    assert_eq!(settled.turns, 3, "every attempt is a turn of this prompt");
    assert_eq!(provider.call_count(), 3);
    let run_failed = [
        "turn_start",
        "message_start",
        "message_end",
        "turn_end",
        "agent_end",
    ];
    let mut expected = vec!["agent_start", "turn_start", "message_start", "message_end"];
    expected.extend(["message_start", "message_end", "turn_end", "agent_end"]);
    // Pi 1.6: each retried attempt is left out of the context by a `context_edit`.
    expected.extend(["auto_retry_start", "entry_appended"]);
    expected.push("agent_start");
    expected.extend(run_failed);
    expected.extend(["auto_retry_start", "entry_appended"]);
    expected.extend(["agent_start", "turn_start", "message_start"]);
    expected.extend(["message_update"; 3]);
    expected.extend(["message_end", "auto_retry_end", "turn_end", "agent_end"]);
    expected.push("agent_settled");
    assert_eq!(kinds(&events), expected);
    let m = "529 overloaded_error: Overloaded";
    assert_eq!(
        retry_notices(&events),
        vec![
            json(&format!(
                r#"{{"type":"auto_retry_start","attempt":1,"maxAttempts":3,"delayMs":1,"errorMessage":"{m}"}}"#
            )),
            json(&format!(
                r#"{{"type":"auto_retry_start","attempt":2,"maxAttempts":3,"delayMs":2,"errorMessage":"{m}"}}"#
            )),
            json(r#"{"type":"auto_retry_end","success":true,"attempt":2}"#),
        ]
    );
}

#[tokio::test]
async fn four_failures_exhaust_three_retries_and_settle_error() {
    let provider = FauxProvider::new();
    for _ in 0..4 {
        provider.push(failure(ErrorKind::Server, None));
    }
    provider.push(faux_message(vec![faux_text("never asked")]));
    let (session, events) = session(&provider);
    let settled = session.prompt("hi").await.unwrap();
    assert_eq!(settled.reason, SettledReason::Error);
    assert_eq!(provider.call_count(), 4, "1 call + 3 retries");
    let notices = retry_notices(&events);
    let starts: Vec<u64> = notices
        .iter()
        .filter(|n| n["type"] == "auto_retry_start")
        .map(|n| n["attempt"].as_u64().unwrap())
        .collect();
    assert_eq!(starts, vec![1, 2, 3]);
    assert_eq!(
        notices.last().unwrap(),
        &json(
            r#"{"type":"auto_retry_end","success":false,"attempt":3,"finalError":"529 overloaded_error: Overloaded"}"#
        )
    );
    let kinds = kinds(&events);
    assert_eq!(
        kinds[kinds.len() - 3..],
        ["agent_end", "auto_retry_end", "agent_settled"]
    );
}

#[tokio::test]
async fn a_non_retryable_failure_is_not_retried() {
    let provider = FauxProvider::new();
    provider.push(failure(ErrorKind::InvalidRequest, None));
    provider.push(faux_message(vec![faux_text("never asked")]));
    let (session, events) = session(&provider);
    let settled = session.prompt("hi").await.unwrap();
    assert_eq!(settled.reason, SettledReason::Error);
    assert_eq!(provider.call_count(), 1);
    assert_eq!(retry_notices(&events), Vec::<Value>::new());
}

#[tokio::test]
async fn a_context_overflow_is_not_retried_here() {
    let provider = FauxProvider::new();
    provider.push(failure(ErrorKind::ContextOverflow, None));
    provider.push(faux_message(vec![faux_text("never asked")]));
    let (session, events) = session(&provider);
    // Compaction, not retry, answers an overflow (session_compaction.rs); off here.
    session.set_auto_compaction(false);
    assert_eq!(
        session.prompt("hi").await.unwrap().reason,
        SettledReason::Error
    );
    assert_eq!(provider.call_count(), 1);
    assert_eq!(retry_notices(&events), Vec::<Value>::new());
}

#[tokio::test]
async fn a_retry_after_hint_longer_than_the_backoff_is_the_reported_delay() {
    let provider = FauxProvider::new();
    provider.push(failure(ErrorKind::RateLimited, Some(30)));
    provider.push(faux_message(vec![faux_text("fine")]));
    let (session, events) = session(&provider);
    session.prompt("hi").await.unwrap();
    assert_eq!(retry_notices(&events)[0]["delayMs"], 30);
}

#[tokio::test]
async fn the_failed_reply_is_not_in_the_context_of_the_retried_call() {
    let provider = FauxProvider::new();
    provider.push(failure(ErrorKind::StreamCut, None));
    provider.push(faux_message(vec![faux_text("fine")]));
    let (session, _) = session(&provider);
    session.prompt("hi").await.unwrap();
    let requests = provider.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[1].messages, requests[0].messages);
    assert!(matches!(
        requests[1].messages.as_slice(),
        [Message::User(_)]
    ));
    let transcript = session.agent().state().messages;
    assert_eq!(transcript.len(), 2, "user + the successful reply");
}

#[tokio::test]
async fn abort_during_the_retry_wait_cancels_the_retry_and_settles_aborted() {
    let provider = FauxProvider::new();
    provider.push(failure(ErrorKind::Overloaded, None));
    provider.push(faux_message(vec![faux_text("never asked")]));
    let options = AgentOptions::new(Arc::new(provider.clone()), provider.model());
    let session = AgentSession::builder(options)
        .retry(RetryPolicy {
            base_delay_ms: 60_000,
            ..RetryPolicy::default()
        })
        .build();
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    let aborter = session.clone();
    session.subscribe(move |event| {
        // The wait starts right after this notice: abort it from outside the listener.
        if matches!(
            event,
            SessionEvent::Session(SessionNotice::AutoRetryStart { .. })
        ) {
            let aborter = aborter.clone();
            tokio::spawn(async move { aborter.abort().await });
        }
        sink.lock().unwrap().push(event.clone());
    });
    let settled = session.prompt("hi").await.unwrap();
    assert_eq!(settled.reason, SettledReason::Aborted);
    assert_eq!(provider.call_count(), 1);
    let notices = retry_notices(&events);
    assert_eq!(
        notices.last().unwrap(),
        &json(
            r#"{"type":"auto_retry_end","success":false,"attempt":1,"finalError":"Retry cancelled"}"#
        )
    );
    assert_eq!(kinds(&events).last().unwrap(), "agent_settled");
}

#[tokio::test]
async fn abort_retry_cancels_only_the_wait() {
    let provider = FauxProvider::new();
    provider.push(failure(ErrorKind::Overloaded, None));
    let options = AgentOptions::new(Arc::new(provider.clone()), provider.model());
    let session = AgentSession::builder(options)
        .retry(RetryPolicy {
            base_delay_ms: 60_000,
            ..RetryPolicy::default()
        })
        .build();
    let aborter = session.clone();
    session.subscribe(move |event| {
        if matches!(
            event,
            SessionEvent::Session(SessionNotice::AutoRetryStart { .. })
        ) {
            let aborter = aborter.clone();
            tokio::spawn(async move { aborter.abort_retry() });
        }
    });
    let settled = session.prompt("hi").await.unwrap();
    assert_eq!(settled.reason, SettledReason::Aborted);
    assert_eq!(provider.call_count(), 1);
}
