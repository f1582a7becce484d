//! Compaction in the session: an overflow is compacted and retried once, a context past the
//! threshold is compacted after the run, `compact` works on request — each with Pi's
//! `compaction_start` / `compaction_end`, the summary reaching the model, and the session file
//! keeping everything.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use rho_agent::AgentOptions;
use rho_ai::faux::{FauxProvider, faux_error, faux_message, faux_text};
use rho_ai::{AssistantMessage, ContentBlock, Context, ErrorInfo, ErrorKind, Message, Model};
use rho_host::compaction::{
    CompactionError, CompactionPolicy, OVERFLOW_RECOVERY_EXHAUSTED, PrepareError,
};
use rho_host::{AgentSession, SessionEvent, SessionNotice, SettledReason};
use rho_session::SessionFile;
use serde_json::{Value, json};

fn overflow() -> AssistantMessage {
    let mut message = faux_error(vec![], "prompt is too long: 213462 tokens > 200000 maximum");
    message.error_info = Some(ErrorInfo::new(ErrorKind::ContextOverflow));
    message
}

fn said(text: &str) -> AssistantMessage {
    faux_message(vec![faux_text(text)])
}

type Events = Arc<Mutex<Vec<SessionEvent>>>;

fn session_with(
    provider: &FauxProvider,
    model: Model,
    policy: CompactionPolicy,
) -> (AgentSession, Events) {
    session_in(provider, model, policy, None)
}

fn session_in(
    provider: &FauxProvider,
    model: Model,
    policy: CompactionPolicy,
    file: Option<SessionFile>,
) -> (AgentSession, Events) {
    let options = AgentOptions::new(Arc::new(provider.clone()), model);
    let mut builder = AgentSession::builder(options).compaction(policy);
    if let Some(file) = file {
        builder = builder.file(file);
    }
    let session = builder.build();
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    session.subscribe(move |event| sink.lock().unwrap().push(event.clone()));
    (session, events)
}

/// Keeps two tokens of recent transcript: in these short sessions the cut falls at the last
/// user message, so every earlier turn is summarised.
fn keep_little() -> CompactionPolicy {
    CompactionPolicy {
        keep_recent_tokens: 2,
        ..CompactionPolicy::default()
    }
}

/// The event types, without the streaming `message_update`s.
fn kinds(events: &Events) -> Vec<String> {
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
        .filter(|kind| kind != "message_update")
        .collect()
}

fn compaction_events(events: &Events) -> Vec<Value> {
    events
        .lock()
        .unwrap()
        .iter()
        .filter(|e| {
            matches!(
                e,
                SessionEvent::Session(
                    SessionNotice::CompactionStart(_) | SessionNotice::CompactionEnd(_)
                )
            )
        })
        .map(|e| serde_json::to_value(e).unwrap())
        .collect()
}

fn text_of(message: &Message) -> String {
    match message {
        Message::User(user) => user.text_content(),
        Message::Assistant(assistant) => assistant.text(),
        Message::ToolResult(result) => result
            .content
            .iter()
            .filter_map(ContentBlock::as_text)
            .collect(),
    }
}

fn texts(context: &Context) -> Vec<String> {
    context.messages.iter().map(text_of).collect()
}

const SUMMARY_TEXT: &str = "## Goal\nSay hello.";

fn summary_seen_by_model(summary: &str) -> String {
    format!(
        "The conversation history before this point was compacted into the following summary:\n\n<summary>\n{summary}\n</summary>"
    )
}

fn run_events(after: &[&str]) -> Vec<String> {
    let mut kinds = vec![
        "agent_start",
        "turn_start",
        "message_start",
        "message_end",
        "message_start",
        "message_end",
        "turn_end",
        "agent_end",
    ];
    kinds.extend_from_slice(after);
    kinds.into_iter().map(str::to_owned).collect()
}

#[tokio::test]
async fn an_overflow_is_compacted_then_retried_once_and_settles_completed() {
    let provider = FauxProvider::new().with_usage(false);
    provider.push(said("one"));
    provider.push(overflow());
    provider.push(said(SUMMARY_TEXT));
    provider.push(said("done"));
    let (session, events) = session_with(&provider, provider.model(), keep_little());
    session.prompt("first").await.unwrap();
    events.lock().unwrap().clear();

    let settled = session.prompt("second").await.unwrap();

    assert_eq!(settled.reason, SettledReason::Completed);
    let mut expected = run_events(&["compaction_start", "compaction_end"]);
    expected.extend(
        [
            "agent_start",
            "turn_start",
            "message_start",
            "message_end",
            "turn_end",
            "agent_end",
            "agent_settled",
        ]
        .map(str::to_owned),
    );
    assert_eq!(kinds(&events), expected);
    let compaction = compaction_events(&events);
    assert_eq!(
        compaction[0],
        json!({"type": "compaction_start", "reason": "overflow"})
    );
    let end = &compaction[1];
    assert_eq!(end["reason"], "overflow");
    assert_eq!(end["willRetry"], true);
    assert_eq!(end["aborted"], false);
    assert_eq!(end["result"]["summary"], SUMMARY_TEXT);
    assert!(end.get("errorMessage").is_none());

    let requests = provider.requests();
    assert_eq!(requests.len(), 4);
    let summary_request = texts(&requests[2]).join("\n");
    assert!(
        summary_request.contains("[User]: first"),
        "{summary_request}"
    );
    assert!(
        summary_request.contains("[Assistant]: one"),
        "{summary_request}"
    );
    // The retry sends the summary and the kept prompt; the failed reply is gone.
    assert_eq!(
        texts(&requests[3]),
        vec![summary_seen_by_model(SUMMARY_TEXT), "second".to_owned()]
    );
}

#[tokio::test]
async fn a_second_overflow_in_a_row_ends_with_pis_recovery_failure() {
    let provider = FauxProvider::new().with_usage(false);
    provider.push(said("one"));
    provider.push(overflow());
    provider.push(said(SUMMARY_TEXT));
    provider.push(overflow());
    let (session, events) = session_with(&provider, provider.model(), keep_little());
    session.prompt("first").await.unwrap();
    events.lock().unwrap().clear();

    let settled = session.prompt("second").await.unwrap();

    assert_eq!(settled.reason, SettledReason::Error);
    assert_eq!(provider.call_count(), 4);
    let compaction = compaction_events(&events);
    assert_eq!(compaction.len(), 3);
    assert_eq!(
        compaction[2],
        json!({
            "type": "compaction_end",
            "reason": "overflow",
            "aborted": false,
            "willRetry": false,
            "errorMessage": OVERFLOW_RECOVERY_EXHAUSTED,
        })
    );
    assert_eq!(kinds(&events).last().unwrap(), "agent_settled");
}

#[tokio::test]
async fn a_context_past_the_threshold_is_compacted_after_the_run_without_a_retry() {
    let provider = FauxProvider::new();
    let mut model = provider.model();
    // Room for 50 tokens beyond the reserve: a 400-character prompt passes the threshold.
    model.context_window = CompactionPolicy::default().reserve_tokens + 50;
    provider.push(said("noted"));
    provider.push(said(SUMMARY_TEXT));
    provider.push(said("next"));
    let (session, events) = session_with(&provider, model, keep_little());

    let settled = session.prompt(&"x".repeat(400)).await.unwrap();

    assert_eq!(settled.reason, SettledReason::Completed);
    assert_eq!(
        kinds(&events),
        run_events(&["compaction_start", "compaction_end", "agent_settled"])
    );
    let end = &compaction_events(&events)[1];
    assert_eq!(end["reason"], "threshold");
    assert_eq!(end["willRetry"], false);
    assert_eq!(provider.call_count(), 2);
    // The cut keeps the reply; the prompt before it is summarised as the split turn's start.
    let summary = end["result"]["summary"].as_str().unwrap().to_owned();
    assert_eq!(
        summary,
        format!("No prior history.\n\n---\n\n**Turn Context (split turn):**\n\n{SUMMARY_TEXT}")
    );
    // The summary's usage counts toward the prompt, beside the reply's.
    let reply_input = session
        .agent()
        .with_state(|s| s.messages[1].as_assistant().unwrap().usage.input);
    assert!(
        settled.usage.input > reply_input,
        "{} <= {reply_input}",
        settled.usage.input
    );

    session.set_auto_compaction(false);
    session.prompt("again").await.unwrap();
    let last = provider.requests().pop().unwrap();
    assert_eq!(
        texts(&last),
        vec![
            summary_seen_by_model(&summary),
            "noted".to_owned(),
            "again".to_owned()
        ]
    );
}

#[tokio::test]
async fn compact_on_request_summarises_with_the_focus_and_refuses_a_second_time() {
    let provider = FauxProvider::new().with_usage(false);
    provider.push(said("one"));
    provider.push(said("two"));
    provider.push(said(SUMMARY_TEXT));
    let (session, events) = session_with(&provider, provider.model(), keep_little());
    session.prompt("first").await.unwrap();
    session.prompt("second").await.unwrap();
    events.lock().unwrap().clear();

    let result = session.compact(Some("the greeting")).await.unwrap();

    assert_eq!(result.summary, SUMMARY_TEXT);
    let summary_request = texts(&provider.requests()[2]).join("\n");
    assert!(
        summary_request.contains("Additional focus: the greeting"),
        "{summary_request}"
    );
    let compaction = compaction_events(&events);
    assert_eq!(
        compaction[0],
        json!({"type": "compaction_start", "reason": "manual"})
    );
    assert_eq!(
        compaction[1]["result"]["firstKeptEntryId"],
        json!(result.first_kept_entry_id)
    );
    assert_eq!(compaction[1]["willRetry"], false);
    let roles: Vec<String> = session
        .agent()
        .with_state(|s| s.messages.iter().map(|m| m.role().to_owned()).collect());
    assert_eq!(roles, vec!["compactionSummary", "user", "assistant"]);

    events.lock().unwrap().clear();
    let again = session.compact(None).await;
    assert_eq!(
        again,
        Err(CompactionError::Prepare(PrepareError::AlreadyCompacted))
    );
    assert_eq!(
        compaction_events(&events)[1],
        json!({
            "type": "compaction_end",
            "reason": "manual",
            "aborted": false,
            "willRetry": false,
            "errorMessage": "Compaction failed: Already compacted",
        })
    );
    assert_eq!(provider.call_count(), 3);
}

#[tokio::test]
async fn a_failed_summary_leaves_the_context_as_it_was() {
    let provider = FauxProvider::new().with_usage(false);
    provider.push(said("one"));
    provider.push(said("two"));
    provider.push(faux_error(vec![], "boom"));
    let (session, events) = session_with(&provider, provider.model(), keep_little());
    session.prompt("first").await.unwrap();
    session.prompt("second").await.unwrap();
    let before = session.agent().with_state(|s| s.messages.clone());
    events.lock().unwrap().clear();

    let outcome = session.compact(None).await;

    assert!(matches!(outcome, Err(CompactionError::Failed { .. })));
    assert_eq!(
        compaction_events(&events)[1]["errorMessage"],
        "Compaction failed: Summarization failed: boom"
    );
    assert_eq!(session.agent().with_state(|s| s.messages.clone()), before);
}

#[tokio::test]
async fn the_session_file_keeps_everything_and_reopens_compacted() {
    let dir = tempfile::tempdir().unwrap();
    let file = SessionFile::create(dir.path(), "/work", None).unwrap();
    let path = file.path().unwrap().to_path_buf();
    let provider = FauxProvider::new().with_usage(false);
    provider.push(said("one"));
    provider.push(said("two"));
    provider.push(said(SUMMARY_TEXT));
    let (session, _events) = session_in(&provider, provider.model(), keep_little(), Some(file));
    session.prompt("first").await.unwrap();
    session.prompt("second").await.unwrap();

    let result = session.compact(None).await.unwrap();
    drop(session.record().detach());

    let (reopened, warnings) = SessionFile::open(&path).unwrap();
    assert!(warnings.is_empty());
    let types: Vec<String> = reopened
        .entries()
        .iter()
        .map(|e| {
            serde_json::to_value(e).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(
        types,
        vec!["message", "message", "message", "message", "compaction"]
    );
    let context = reopened.context().messages;
    assert_eq!(context, session.agent().with_state(|s| s.messages.clone()));
    assert_eq!(context[0].role(), "compactionSummary");
    let kept = reopened.entry(&result.first_kept_entry_id).unwrap();
    assert_eq!(
        serde_json::to_value(kept).unwrap()["message"]["role"],
        "user"
    );
}
