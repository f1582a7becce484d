//! The `Agent` handle (pi-reference §4.7, §9.2, §10 items 3–4): state, busy rejections,
//! subscriptions, abort and the failure path of a context hook.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::{Arc, Mutex};

use common::*;
use rho_agent::agent::{CONTINUE_BUSY, PROMPT_BUSY};
use rho_agent::{
    Agent, AgentError, AgentEvent, AgentMessage, AgentOptions, ContextHooks, HookError, ToolOutput,
};
use rho_ai::faux::{FauxProvider, faux_message, faux_text, faux_tool_call};
use rho_ai::{Message, StopReason};
use serde_json::json;
use tokio::sync::Notify;

fn agent_with(provider: &FauxProvider, tools: Vec<Arc<dyn rho_agent::AgentTool>>) -> Agent {
    let mut options = AgentOptions::new(Arc::new(provider.clone()), provider.model());
    options.tools = tools;
    Agent::new(options)
}

#[tokio::test]
async fn a_new_agent_is_idle_with_empty_state() {
    let provider = faux();
    let agent = agent_with(&provider, vec![]);
    let state = agent.state();
    assert!(state.messages.is_empty() && state.tools.is_empty());
    assert!(!state.is_streaming && state.streaming_message.is_none());
    assert!(state.pending_tool_calls.is_empty() && state.error_message.is_none());
    agent.abort(); // a no-op when idle
    agent.wait_for_idle().await;
}

#[tokio::test]
async fn prompt_text_is_stored_in_the_array_form() {
    let provider = faux();
    provider.push(faux_message(vec![faux_text("hi")]));
    let agent = agent_with(&provider, vec![]);
    agent.prompt_text("List the files").await.unwrap();
    let user = serde_json::to_value(&agent.state().messages[0]).unwrap();
    assert_eq!(user["role"], "user");
    assert_eq!(
        user["content"],
        json!([{"type": "text", "text": "List the files"}])
    );
    assert!(user["timestamp"].as_i64().unwrap() > 1_600_000_000_000);
}

#[tokio::test]
async fn state_messages_grow_only_on_message_end() {
    let provider = faux();
    provider.push(faux_message(vec![faux_tool_call(
        "c1",
        "echo",
        json!({"value": "x"}),
    )]));
    provider.push(faux_message(vec![faux_text("done")]));
    let agent = agent_with(&provider, vec![TestTool::echo("echo").arc()]);
    let observed = Arc::new(Mutex::new(Vec::new()));
    let seen = observed.clone();
    let probe = agent.clone();
    agent.subscribe(move |event| {
        let count = probe.with_state(|s| s.messages.len());
        let kind = match event {
            AgentEvent::MessageStart { .. } => "start",
            AgentEvent::MessageEnd { .. } => "end",
            _ => return,
        };
        seen.lock().unwrap().push((kind, count));
    });
    agent.prompt_text("go").await.unwrap();
    // Every start sees n messages, its end sees n + 1.
    let pairs = observed.lock().unwrap().clone();
    assert_eq!(
        pairs,
        vec![
            ("start", 0),
            ("end", 1),
            ("start", 1),
            ("end", 2),
            ("start", 2),
            ("end", 3),
            ("start", 3),
            ("end", 4)
        ]
    );
    assert!(!agent.state().is_streaming);
}

#[tokio::test]
async fn prompt_and_continue_are_refused_while_a_run_is_active_and_steer_does_not_touch_messages() {
    let provider = faux();
    provider.push(faux_message(vec![faux_tool_call(
        "c1",
        "gate",
        json!({"value": "x"}),
    )]));
    provider.push(faux_message(vec![faux_text("done")]));
    let entered = Arc::new(Notify::new());
    let release = Arc::new(Notify::new());
    let (enter, wait) = (entered.clone(), release.clone());
    let gate = TestTool::new(
        "gate",
        Arc::new(move |_, _, _| {
            let (enter, wait) = (enter.clone(), wait.clone());
            Box::pin(async move {
                enter.notify_one();
                wait.notified().await;
                Ok(ToolOutput::text("open"))
            })
        }),
    );
    let agent = agent_with(&provider, vec![gate.arc()]);
    let runner = agent.clone();
    let run = tokio::spawn(async move { runner.prompt_text("go").await });
    entered.notified().await;
    assert!(agent.state().is_streaming);
    assert!(agent.state().pending_tool_calls.contains("c1"));
    assert_eq!(
        agent.prompt_text("again").await,
        Err(AgentError::Busy(PROMPT_BUSY))
    );
    assert_eq!(
        agent.continue_run().await,
        Err(AgentError::Busy(CONTINUE_BUSY))
    );
    let before = agent.state().messages.len();
    agent.follow_up(AgentMessage::from(rho_ai::UserMessage::text("later")));
    assert_eq!(agent.state().messages.len(), before);
    assert!(agent.has_queued_messages());
    release.notify_one();
    run.await.unwrap().unwrap();
    agent.wait_for_idle().await;
    assert!(!agent.has_queued_messages());
    assert_eq!(agent.state().messages.last().unwrap().role(), "assistant");
}

#[tokio::test]
async fn abort_cancels_the_run_and_records_the_error_message() {
    let provider = FauxProvider::new().with_chunk_chars(1);
    provider.push(faux_message(vec![faux_text(
        "a slow, long, streaming answer",
    )]));
    let agent = agent_with(&provider, vec![]);
    let aborter = agent.clone();
    agent.subscribe(move |event| {
        if matches!(event, AgentEvent::MessageUpdate { .. }) {
            aborter.abort();
        }
    });
    agent.prompt_text("go").await.unwrap();
    let state = agent.state();
    let last = state.messages.last().unwrap().as_assistant().unwrap();
    assert_eq!(last.stop_reason, StopReason::Aborted);
    assert_eq!(state.error_message.as_deref(), Some("Request was aborted"));
    assert!(!state.is_streaming);
}

struct BrokenConverter {
    in_transform: bool,
}

#[async_trait::async_trait]
impl ContextHooks for BrokenConverter {
    async fn transform_context(
        &self,
        messages: Vec<AgentMessage>,
        _cancel: &tokio_util::sync::CancellationToken,
    ) -> Result<Vec<AgentMessage>, HookError> {
        if self.in_transform {
            return Err(HookError("converter exploded".into()));
        }
        Ok(messages)
    }

    fn convert_to_llm(&self, _messages: &[AgentMessage]) -> Result<Vec<Message>, HookError> {
        Err(HookError("converter exploded".into()))
    }
}

#[tokio::test]
async fn a_failing_context_hook_ends_the_run_with_only_agent_end_and_a_failure_message() {
    for in_transform in [false, true] {
        failing_context_hook(in_transform).await;
    }
}

async fn failing_context_hook(in_transform: bool) {
    let provider = faux();
    let mut options = AgentOptions::new(Arc::new(provider.clone()), provider.model());
    options.context_hooks = Some(Arc::new(BrokenConverter { in_transform }));
    let agent = Agent::new(options);
    let recorder = Recorder::default();
    let sink = recorder.clone();
    agent.subscribe(move |event| rho_agent::EventSink::emit(&sink, event.clone()));
    agent.prompt_text("go").await.unwrap();
    assert_eq!(
        recorder.normalized(),
        strings(&[
            "agent_start",
            "turn_start",
            "ms:user:go",
            "me:user:go",
            "agent_end(1)"
        ])
    );
    let state = agent.state();
    let failure = state.messages.last().unwrap().as_assistant().unwrap();
    assert_eq!(failure.stop_reason, StopReason::Error);
    assert_eq!(failure.error_message.as_deref(), Some("converter exploded"));
    assert_eq!(state.error_message.as_deref(), Some("converter exploded"));
    assert_eq!(provider.call_count(), 0);
}

#[tokio::test]
async fn unsubscribed_listeners_hear_nothing_more() {
    let provider = faux();
    provider.set_fallback(faux_message(vec![faux_text("hi")]));
    let agent = agent_with(&provider, vec![]);
    let count = Arc::new(Mutex::new(0));
    let counter = count.clone();
    let subscription = agent.subscribe(move |_| *counter.lock().unwrap() += 1);
    agent.prompt_text("one").await.unwrap();
    let after_first = *count.lock().unwrap();
    assert!(after_first > 0);
    agent.unsubscribe(subscription);
    agent.prompt_text("two").await.unwrap();
    assert_eq!(*count.lock().unwrap(), after_first);
}
