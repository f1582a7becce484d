//! What the model is given: `transformContext` before `convertToLlm`, custom roles, continuing
//! from an existing context, and the options passed to the provider (pi-reference §9.1–9.2).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::{Arc, Mutex};

use common::*;
use rho_agent::{
    Agent, AgentMessage, AgentOptions, ContextHooks, CustomMessage, HookError, LoopError,
    run_agent_loop, run_agent_loop_continue,
};
use rho_ai::faux::{FauxStep, faux_message, faux_text, faux_tool_call};
use rho_ai::{Message, UserContent};
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn custom(role: &str) -> AgentMessage {
    let fields = json!({"text": "note", "timestamp": 1})
        .as_object()
        .unwrap()
        .clone();
    AgentMessage::Custom(Arc::new(CustomMessage {
        role: role.into(),
        fields,
    }))
}

fn user_texts(messages: &[Message]) -> Vec<String> {
    messages
        .iter()
        .map(|m| match m {
            Message::User(u) => match &u.content {
                UserContent::Text(t) => t.clone(),
                UserContent::Blocks(_) => u.text_content(),
            },
            other => other.role().to_owned(),
        })
        .collect()
}

/// Keeps the last two messages and maps `notification` to a user message.
struct KeepLastTwo {
    seen_by_convert: Mutex<Vec<usize>>,
}

#[async_trait::async_trait]
impl ContextHooks for KeepLastTwo {
    async fn transform_context(
        &self,
        messages: Vec<AgentMessage>,
        _cancel: &CancellationToken,
    ) -> Result<Vec<AgentMessage>, HookError> {
        let skip = messages.len().saturating_sub(2);
        Ok(messages.into_iter().skip(skip).collect())
    }

    fn convert_to_llm(&self, messages: &[AgentMessage]) -> Result<Vec<Message>, HookError> {
        self.seen_by_convert.lock().unwrap().push(messages.len());
        Ok(messages
            .iter()
            .filter_map(|m| match m {
                AgentMessage::Llm(m) => Some(m.clone()),
                AgentMessage::System(_) => None,
                AgentMessage::Custom(c) => {
                    let text = format!("[{}]", c.role);
                    Some(Message::User(Arc::new(rho_ai::UserMessage::text(text))))
                }
            })
            .collect())
    }
}

#[tokio::test]
async fn transform_context_runs_before_convert_to_llm_on_every_call() {
    let provider = faux();
    provider.push(faux_message(vec![faux_text("ok")]));
    let hooks = Arc::new(KeepLastTwo {
        seen_by_convert: Mutex::new(Vec::new()),
    });
    let mut config = config(&provider);
    config.context_hooks = Some(hooks.clone());
    let mut context = context(vec![]);
    context.messages = vec![
        user("old 1"),
        user("old 2"),
        custom("notification"),
        user("old 3"),
    ];
    run_agent_loop(
        vec![user("new")],
        context,
        &config,
        CancellationToken::new(),
        Recorder::default().sink(),
    )
    .await
    .unwrap();
    assert_eq!(*hooks.seen_by_convert.lock().unwrap(), vec![2]);
    assert_eq!(
        user_texts(&provider.requests()[0].messages),
        ["old 3", "new"]
    );
}

/// Maps `notification` to a user message, one message at a time, and says so.
struct EachAlone {
    seen_by_convert: Mutex<Vec<usize>>,
}

#[async_trait::async_trait]
impl ContextHooks for EachAlone {
    fn convert_to_llm(&self, messages: &[AgentMessage]) -> Result<Vec<Message>, HookError> {
        KeepLastTwo {
            seen_by_convert: Mutex::new(Vec::new()),
        }
        .convert_to_llm(messages)
        .inspect(|_| self.seen_by_convert.lock().unwrap().push(messages.len()))
    }

    fn converts_each_message_alone(&self) -> bool {
        true
    }
}

#[tokio::test]
async fn a_per_message_conversion_converts_only_what_each_turn_added() {
    let provider = faux();
    provider.push(faux_message(vec![faux_tool_call(
        "c1",
        "echo",
        json!({"value": "x"}),
    )]));
    provider.push(faux_message(vec![faux_text("done")]));
    let hooks = Arc::new(EachAlone {
        seen_by_convert: Mutex::new(Vec::new()),
    });
    let mut config = config(&provider);
    config.context_hooks = Some(hooks.clone());
    let mut context = context(vec![common::TestTool::echo("echo").arc()]);
    context.messages = vec![user("old"), custom("notification")];
    run_agent_loop(
        vec![user("new")],
        context,
        &config,
        CancellationToken::new(),
        Recorder::default().sink(),
    )
    .await
    .unwrap();
    // Three messages before the first call; the assistant's call and its result before the second.
    assert_eq!(*hooks.seen_by_convert.lock().unwrap(), vec![3, 2]);
    let requests = provider.requests();
    assert_eq!(
        user_texts(&requests[0].messages),
        ["old", "[notification]", "new"]
    );
    assert_eq!(
        user_texts(&requests[1].messages),
        ["old", "[notification]", "new", "assistant", "toolResult"]
    );
}

#[tokio::test]
async fn the_default_conversion_drops_custom_roles() {
    let provider = faux();
    provider.push(faux_message(vec![faux_text("ok")]));
    let mut context = context(vec![]);
    context.messages = vec![custom("notification")];
    run_agent_loop(
        vec![user("hi")],
        context,
        &config(&provider),
        CancellationToken::new(),
        Recorder::default().sink(),
    )
    .await
    .unwrap();
    assert_eq!(user_texts(&provider.requests()[0].messages), ["hi"]);
}

#[tokio::test]
async fn continue_refuses_an_empty_context_and_an_assistant_tail_before_any_event() {
    let provider = faux();
    let recorder = Recorder::default();
    let empty = run_agent_loop_continue(
        context(vec![]),
        &config(&provider),
        CancellationToken::new(),
        recorder.sink(),
    )
    .await;
    assert_eq!(
        empty,
        Err(LoopError::CannotContinue(
            "Cannot continue: no messages in context".into()
        ))
    );
    let mut tail = context(vec![]);
    tail.messages = vec![user("q"), faux_message(vec![faux_text("a")]).into()];
    let assistant = run_agent_loop_continue(
        tail,
        &config(&provider),
        CancellationToken::new(),
        recorder.sink(),
    )
    .await;
    assert_eq!(
        assistant,
        Err(LoopError::CannotContinue(
            "Cannot continue from message role: assistant".into()
        ))
    );
    assert!(recorder.events().is_empty());
}

#[tokio::test]
async fn continue_runs_from_the_context_without_prompt_events_even_from_a_custom_tail() {
    for tail in [user("existing"), custom("notification")] {
        let provider = faux();
        provider.push(faux_message(vec![faux_text("answer")]));
        let mut context = context(vec![]);
        context.messages = vec![tail];
        let recorder = Recorder::default();
        let new = run_agent_loop_continue(
            context,
            &config(&provider),
            CancellationToken::new(),
            recorder.sink(),
        )
        .await
        .unwrap();
        assert_eq!(new.len(), 1);
        assert_eq!(new[0].role(), "assistant");
        assert_eq!(
            without_updates(recorder.normalized()),
            strings(&[
                "agent_start",
                "turn_start",
                "ms:assistant:pending",
                "me:assistant:stop",
                "turn_end[]",
                "agent_end(1)"
            ])
        );
    }
}

#[tokio::test]
async fn the_session_id_and_system_prompt_reach_the_provider() {
    let provider = faux();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    provider.push(FauxStep::Factory(Box::new(move |context, options, _| {
        record
            .lock()
            .unwrap()
            .push((options.session_id.clone(), context.system_prompt.clone()));
        Ok(faux_message(vec![faux_text("ok")]))
    })));
    let mut options = AgentOptions::new(Arc::new(provider.clone()), provider.model());
    options.session_id = Some("session-1".into());
    options.system_prompt = Some("Be brief.".into());
    let agent = Agent::new(options);
    agent.prompt_text("hi").await.unwrap();
    assert_eq!(
        *seen.lock().unwrap(),
        vec![(Some("session-1".to_owned()), Some(Arc::from("Be brief.")))]
    );
}
