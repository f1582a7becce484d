//! Steering and follow-up delivery (pi-reference §3.3 h–i, §10 items 14–16).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::{Arc, Mutex};

use common::*;
use rho_agent::{
    Agent, AgentError, AgentEvent, AgentOptions, QueueMode, ToolOutput, run_agent_loop,
};
use rho_ai::Message;
use rho_ai::faux::{FauxProvider, faux_message, faux_text, faux_tool_call};
use serde_json::json;
use tokio_util::sync::CancellationToken;

#[tokio::test]
async fn steering_queued_during_tools_arrives_after_the_whole_batch_before_the_next_call() {
    let provider = faux();
    provider.push(faux_message(vec![
        faux_tool_call("c1", "steerer", json!({"value": "1"})),
        faux_tool_call("c2", "echo", json!({"value": "2"})),
    ]));
    provider.push(faux_message(vec![faux_text("adjusted")]));
    let queues = Arc::new(TestQueues::default());
    let inject = queues.clone();
    let steerer = TestTool::new(
        "steerer",
        Arc::new(move |_, _, _| {
            inject.steering.lock().unwrap().push(user("use tabs"));
            Box::pin(async { Ok(ToolOutput::text("ok")) })
        }),
    );
    let echo = TestTool::echo("echo");
    let executed = echo.executed.clone();
    let mut config = config(&provider);
    config.messages = Some(queues);
    let recorder = Recorder::default();
    run_agent_loop(
        vec![user("go")],
        context(vec![steerer.arc(), echo.arc()]),
        &config,
        CancellationToken::new(),
        recorder.sink(),
    )
    .await
    .unwrap();
    assert_eq!(executed.lock().unwrap().len(), 1, "no tool call is skipped");
    assert_eq!(
        without_updates(recorder.normalized())[6..],
        strings(&[
            "tes:c1",
            "tes:c2",
            "tee:c1",
            "tee:c2",
            "ms:toolResult:c1",
            "me:toolResult:c1",
            "ms:toolResult:c2",
            "me:toolResult:c2",
            "turn_end[c1,c2]",
            "turn_start",
            "ms:user:use tabs",
            "me:user:use tabs",
            "ms:assistant:pending",
            "me:assistant:stop",
            "turn_end[]",
            "agent_end(6)",
        ])[..]
    );
    let second = &provider.requests()[1];
    let Some(Message::User(last)) = second.messages.last() else {
        panic!("the steering message is not last in the second request");
    };
    assert_eq!(last.text_content(), "use tabs");
}

#[tokio::test]
async fn a_steering_message_forces_another_turn_after_a_tool_less_reply() {
    let provider = faux();
    provider.push(faux_message(vec![faux_text("first")]));
    provider.push(faux_message(vec![faux_text("second")]));
    let queues = Arc::new(TestQueues::default());
    let recorder = Recorder::default();
    let events = recorder.events.clone();
    let inject = queues.clone();
    let injected = Mutex::new(false);
    let sink = Arc::new(move |event: AgentEvent| {
        let is_first_end = matches!(&event, AgentEvent::TurnEnd { .. });
        events.lock().unwrap().push(event);
        let mut done = injected.lock().unwrap();
        if is_first_end && !*done {
            *done = true;
            inject.steering.lock().unwrap().push(user("and more"));
        }
    });
    let mut config = config(&provider);
    config.messages = Some(queues);
    run_agent_loop(
        vec![user("go")],
        context(vec![]),
        &config,
        CancellationToken::new(),
        sink,
    )
    .await
    .unwrap();
    assert_eq!(provider.call_count(), 2);
    assert_eq!(
        without_updates(recorder.normalized())[6..],
        strings(&[
            "turn_end[]",
            "turn_start",
            "ms:user:and more",
            "me:user:and more",
            "ms:assistant:pending",
            "me:assistant:stop",
            "turn_end[]",
            "agent_end(4)"
        ])[..]
    );
}

#[tokio::test]
async fn follow_ups_arrive_only_when_the_run_would_stop_within_the_same_run() {
    for (all, expected_calls) in [(false, 3), (true, 2)] {
        let provider = faux();
        provider.set_fallback(faux_message(vec![faux_text("ok")]));
        let queues = Arc::new(TestQueues {
            all,
            ..TestQueues::default()
        });
        queues
            .follow_up
            .lock()
            .unwrap()
            .extend([user("one"), user("two")]);
        let mut config = config(&provider);
        config.messages = Some(queues);
        let recorder = Recorder::default();
        run_agent_loop(
            vec![user("go")],
            context(vec![]),
            &config,
            CancellationToken::new(),
            recorder.sink(),
        )
        .await
        .unwrap();
        assert_eq!(provider.call_count(), expected_calls, "all = {all}");
        let events = without_updates(recorder.normalized());
        assert_eq!(events.iter().filter(|e| *e == "agent_start").count(), 1);
        assert_eq!(
            events.iter().filter(|e| e.starts_with("agent_end")).count(),
            1
        );
        let delivered: Vec<_> = events
            .iter()
            .filter(|e| e.starts_with("ms:user"))
            .cloned()
            .collect();
        assert_eq!(
            delivered,
            strings(&["ms:user:go", "ms:user:one", "ms:user:two"])
        );
    }
}

fn agent(provider: &FauxProvider) -> Agent {
    Agent::new(AgentOptions::new(
        Arc::new(provider.clone()),
        provider.model(),
    ))
}

#[tokio::test]
async fn continue_from_an_assistant_tail_runs_steering_one_at_a_time() {
    let provider = faux();
    provider.push(faux_message(vec![faux_text("first")]));
    provider.set_fallback(faux_message(vec![faux_text("reply")]));
    let agent = agent(&provider);
    agent.prompt_text("hello").await.unwrap();
    agent.steer(user("s1"));
    agent.steer(user("s2"));
    agent.continue_run().await.unwrap();
    let roles: Vec<_> = agent
        .state()
        .messages
        .iter()
        .map(|m| m.role().to_owned())
        .collect();
    assert_eq!(
        roles[roles.len() - 4..],
        ["user", "assistant", "user", "assistant"]
    );
    assert_eq!(
        provider.call_count(),
        3,
        "two steering messages, two model calls"
    );
}

#[tokio::test]
async fn continue_from_an_assistant_tail_runs_follow_ups_when_no_steering() {
    let provider = faux();
    provider.set_fallback(faux_message(vec![faux_text("reply")]));
    let agent = agent(&provider);
    agent.prompt_text("hello").await.unwrap();
    agent.set_follow_up_mode(QueueMode::All);
    agent.follow_up(user("f1"));
    agent.continue_run().await.unwrap();
    let state = agent.state();
    let last = state.messages.last().unwrap();
    assert_eq!(last.role(), "assistant");
    assert_eq!(provider.call_count(), 2);
}

#[tokio::test]
async fn continue_from_an_assistant_tail_with_nothing_queued_is_refused() {
    let provider = faux();
    provider.set_fallback(faux_message(vec![faux_text("reply")]));
    let agent = agent(&provider);
    assert_eq!(
        agent.continue_run().await,
        Err(AgentError::CannotContinue(
            "No messages to continue from".into()
        ))
    );
    agent.prompt_text("hello").await.unwrap();
    assert_eq!(
        agent.continue_run().await,
        Err(AgentError::CannotContinue(
            "Cannot continue from message role: assistant".into()
        ))
    );
    assert!(
        !agent.is_running(),
        "a refused continue leaves the agent idle"
    );
}

#[tokio::test]
async fn steering_queued_before_the_run_is_injected_after_the_prompt_before_the_first_call() {
    let provider = faux();
    provider.push(faux_message(vec![faux_text("ok")]));
    let queues = Arc::new(TestQueues::default());
    queues.steering.lock().unwrap().push(user("early"));
    let mut config = config(&provider);
    config.messages = Some(queues);
    let recorder = Recorder::default();
    run_agent_loop(
        vec![user("go")],
        context(vec![]),
        &config,
        CancellationToken::new(),
        recorder.sink(),
    )
    .await
    .unwrap();
    assert_eq!(
        without_updates(recorder.normalized()),
        strings(&[
            "agent_start",
            "turn_start",
            "ms:user:go",
            "me:user:go",
            "ms:user:early",
            "me:user:early",
            "ms:assistant:pending",
            "me:assistant:stop",
            "turn_end[]",
            "agent_end(3)"
        ])
    );
    let texts: Vec<_> = provider.requests()[0]
        .messages
        .iter()
        .map(|m| m.role())
        .collect();
    assert_eq!(texts, ["user", "user"]);
}

#[tokio::test]
async fn steering_in_all_mode_delivers_every_queued_message_in_one_turn() {
    for (all, expected_calls) in [(true, 2), (false, 3)] {
        let provider = faux();
        provider.set_fallback(faux_message(vec![faux_text("ok")]));
        let queues = Arc::new(TestQueues {
            all,
            ..TestQueues::default()
        });
        let inject = queues.clone();
        let tool = TestTool::new(
            "steer_twice",
            Arc::new(move |_, _, _| {
                inject
                    .steering
                    .lock()
                    .unwrap()
                    .extend([user("a"), user("b")]);
                Box::pin(async { Ok(ToolOutput::text("ok")) })
            }),
        );
        provider.push(faux_message(vec![faux_tool_call(
            "c1",
            "steer_twice",
            json!({"value": "x"}),
        )]));
        let mut config = config(&provider);
        config.messages = Some(queues);
        run_agent_loop(
            vec![user("go")],
            context(vec![tool.arc()]),
            &config,
            CancellationToken::new(),
            Recorder::default().sink(),
        )
        .await
        .unwrap();
        assert_eq!(provider.call_count(), expected_calls, "all = {all}");
    }
}
