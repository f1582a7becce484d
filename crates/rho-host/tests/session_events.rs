//! The session layer: agent events forwarded in order, `queue_update` before a queued message is
//! delivered, and exactly one `agent_settled` per prompt, last.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use rho_agent::{AgentEvent, AgentOptions, AgentTool, ToolError, ToolOutput, ToolUpdates};
use rho_ai::faux::{FauxProvider, faux_message, faux_text, faux_tool_call};
use rho_host::{AgentSession, SessionError, SessionEvent, SessionNotice, SettledReason};
use serde_json::{Value, json};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

/// Waits until released; tells the test it has started.
struct Gate {
    schema: Value,
    entered: Arc<Notify>,
    release: Arc<Notify>,
}

#[async_trait::async_trait]
impl AgentTool for Gate {
    fn name(&self) -> &str {
        "gate"
    }
    fn description(&self) -> &str {
        "waits"
    }
    fn parameters(&self) -> &Value {
        &self.schema
    }
    async fn execute(
        &self,
        _: &str,
        _: Value,
        _: CancellationToken,
        _: ToolUpdates,
    ) -> Result<ToolOutput, ToolError> {
        self.entered.notify_one();
        self.release.notified().await;
        Ok(ToolOutput::text("open"))
    }
}

fn session(
    provider: &FauxProvider,
    tools: Vec<Arc<dyn AgentTool>>,
) -> (AgentSession, Arc<Mutex<Vec<SessionEvent>>>) {
    let mut options = AgentOptions::new(Arc::new(provider.clone()), provider.model());
    options.tools = tools;
    let session = AgentSession::new(options);
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    session.subscribe(move |event| sink.lock().unwrap().push(event.clone()));
    (session, events)
}

fn kind(event: &SessionEvent) -> String {
    serde_json::to_value(event).unwrap()["type"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn each_prompt_settles_exactly_once_and_last_with_turns_and_usage() {
    let provider = FauxProvider::new();
    provider.push(faux_message(vec![faux_text("one")]));
    provider.push(faux_message(vec![faux_text("two")]));
    let (session, events) = session(&provider, vec![]);
    let first = session.prompt("a").await.unwrap();
    let second = session.prompt("b").await.unwrap();
    assert_eq!(first.reason, SettledReason::Completed);
    assert_eq!(first.turns, 1);
    assert!(first.usage.total_tokens > 0);
    assert_eq!(second.turns, 1, "counts are per prompt");
    let kinds: Vec<String> = events.lock().unwrap().iter().map(kind).collect();
    let settled: Vec<usize> = kinds
        .iter()
        .enumerate()
        .filter(|(_, k)| *k == "agent_settled")
        .map(|(i, _)| i)
        .collect();
    assert_eq!(settled.len(), 2);
    assert_eq!(kinds[settled[0] - 1], "agent_end");
    assert_eq!(kinds[settled[0] + 1], "agent_start");
    assert_eq!(*settled.last().unwrap(), kinds.len() - 1);
    let json = serde_json::to_value(events.lock().unwrap().last().unwrap()).unwrap();
    assert_eq!(json["reason"], "completed");
    assert_eq!(json["turns"], 1);
}

#[tokio::test]
async fn a_failed_model_call_settles_with_reason_error() {
    let provider = FauxProvider::new();
    let (session, _) = session(&provider, vec![]);
    let settled = session.prompt("a").await.unwrap();
    assert_eq!(settled.reason, SettledReason::Error);
    assert_eq!(settled.turns, 1);
}

#[tokio::test]
async fn queued_messages_are_reported_and_removed_right_before_delivery() {
    let provider = FauxProvider::new();
    provider.push(faux_message(vec![faux_tool_call("c1", "gate", json!({}))]));
    provider.set_fallback(faux_message(vec![faux_text("ok")]));
    let (entered, release) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
    let gate = Gate {
        schema: json!({"type": "object"}),
        entered: entered.clone(),
        release: release.clone(),
    };
    let (session, events) = session(&provider, vec![Arc::new(gate)]);
    let runner = session.clone();
    let run = tokio::spawn(async move { runner.prompt("go").await });
    entered.notified().await;
    assert_eq!(session.prompt("again").await, Err(SessionError::Busy));
    session.steer("use tabs");
    session.follow_up("then test");
    release.notify_one();
    let settled = run.await.unwrap().unwrap();
    assert_eq!(settled.reason, SettledReason::Completed);
    assert_eq!(settled.turns, 3);

    let events = events.lock().unwrap();
    let described: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            SessionEvent::Session(SessionNotice::QueueUpdate {
                steering,
                follow_up,
            }) => Some(format!("queue{steering:?}{follow_up:?}")),
            SessionEvent::Agent(AgentEvent::MessageStart { message }) => message
                .as_user()
                .map(|u| format!("user:{}", u.text_content())),
            _ => None,
        })
        .collect();
    assert_eq!(
        described,
        [
            "user:go",
            "queue[\"use tabs\"][]",
            "queue[\"use tabs\"][\"then test\"]",
            "queue[][\"then test\"]",
            "user:use tabs",
            "queue[][]",
            "user:then test",
        ]
    );
}

#[tokio::test]
async fn an_aborted_prompt_settles_once_with_reason_aborted() {
    let provider = FauxProvider::new().with_chunk_chars(1);
    provider.push(faux_message(vec![faux_text(
        "a long, slowly streamed answer",
    )]));
    let (session, events) = session(&provider, vec![]);
    let aborter = session.agent().clone();
    session.subscribe(move |event| {
        if matches!(event, SessionEvent::Agent(AgentEvent::MessageUpdate { .. })) {
            aborter.abort();
        }
    });
    let settled = session.prompt("go").await.unwrap();
    assert_eq!(settled.reason, SettledReason::Aborted);
    let kinds: Vec<String> = events.lock().unwrap().iter().map(kind).collect();
    assert_eq!(kinds.iter().filter(|k| *k == "agent_settled").count(), 1);
    assert_eq!(kinds.last().unwrap(), "agent_settled");
}

/// Panics on its first call (a provider bug), then answers as `inner`.
struct PanicsOnce {
    inner: FauxProvider,
    panicked: std::sync::atomic::AtomicBool,
}

impl rho_ai::Provider for PanicsOnce {
    fn stream(
        &self,
        model: &rho_ai::Model,
        context: rho_ai::Context,
        options: rho_ai::StreamOptions,
    ) -> rho_ai::AssistantMessageEventStream {
        if !self
            .panicked
            .swap(true, std::sync::atomic::Ordering::SeqCst)
        {
            panic!("provider bug");
        }
        self.inner.stream(model, context, options)
    }
}

#[tokio::test]
async fn a_prompt_that_panics_frees_the_session_for_the_next_one() {
    let faux = FauxProvider::new();
    faux.push(faux_message(vec![faux_text("served")]));
    let provider = Arc::new(PanicsOnce {
        inner: faux.clone(),
        panicked: Default::default(),
    });
    let session = AgentSession::new(AgentOptions::new(provider, faux.model()));
    let run = session.start_prompt("first".into(), Vec::new()).unwrap();
    assert!(session.is_busy());
    let panicked = tokio::spawn(run).await;
    assert!(panicked.is_err_and(|e| e.is_panic()));
    assert!(
        !session.is_busy(),
        "the panicking prompt left the session busy"
    );

    let settled = session.prompt("second").await.unwrap();
    assert_eq!(settled.reason, SettledReason::Completed);
    let last = session
        .agent()
        .with_state(|s| s.messages.last().and_then(|m| m.as_assistant()).cloned());
    assert_eq!(last.unwrap().text(), "served");
}
