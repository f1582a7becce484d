//! Event orders of pi-reference §3.3 (a), (b), (c), (g) and (j), as whole normalized sequences.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::Arc;

use common::*;
use rho_agent::{
    AgentEvent, BeforeToolCall, BeforeToolCallDecision, HookError, ToolExecution, ToolHooks,
    ToolOutput, TurnGate, TurnSummary, run_agent_loop,
};
use rho_ai::faux::FauxProvider;
use rho_ai::faux::{faux_error, faux_message, faux_text, faux_thinking, faux_tool_call};
use rho_ai::{ContentBlock, Message};
use serde_json::json;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

#[tokio::test]
async fn text_only_reply_gives_the_exact_event_sequence() {
    let provider = faux();
    provider.push(faux_message(vec![
        faux_thinking("Hmm."),
        faux_text("Hello!"),
    ]));
    let recorder = Recorder::default();
    let new = run_agent_loop(
        vec![user("Hi")],
        context(vec![]),
        &config(&provider),
        CancellationToken::new(),
        recorder.sink(),
    )
    .await
    .unwrap();
    assert_eq!(
        recorder.normalized(),
        strings(&[
            "agent_start",
            "turn_start",
            "ms:user:Hi",
            "me:user:Hi",
            "ms:assistant:pending",
            "mu:thinking_start",
            "mu:thinking_delta",
            "mu:thinking_end",
            "mu:text_start",
            "mu:text_delta",
            "mu:text_end",
            "me:assistant:stop",
            "turn_end[]",
            "agent_end(2)",
        ])
    );
    assert_eq!(new.len(), 2);
    assert_eq!(new[1].as_assistant().unwrap().text(), "Hello!");
}

#[tokio::test]
async fn one_tool_call_then_final_reply_in_parallel_and_sequential_mode() {
    for mode in [ToolExecution::Parallel, ToolExecution::Sequential] {
        let provider = faux();
        provider.push(faux_message(vec![faux_tool_call(
            "c1",
            "echo",
            json!({"value":"x"}),
        )]));
        provider.push(faux_message(vec![faux_text("done")]));
        let recorder = Recorder::default();
        let mut config = config(&provider);
        config.tool_execution = mode;
        let new = run_agent_loop(
            vec![user("go")],
            context(vec![TestTool::echo("echo").arc()]),
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
                "ms:assistant:pending",
                "me:assistant:toolUse",
                "tes:c1",
                "tee:c1",
                "ms:toolResult:c1",
                "me:toolResult:c1",
                "turn_end[c1]",
                "turn_start",
                "ms:assistant:pending",
                "me:assistant:stop",
                "turn_end[]",
                "agent_end(4)",
            ]),
            "mode {mode:?}"
        );
        let roles: Vec<_> = new.iter().map(|m| m.role().to_owned()).collect();
        assert_eq!(roles, ["user", "assistant", "toolResult", "assistant"]);
        // The second model call saw the tool result: that is why there is a second turn.
        let second = &provider.requests()[1];
        let Some(Message::ToolResult(result)) = second.messages.last() else {
            panic!("second request does not end with a tool result");
        };
        assert_eq!(result.tool_call_id, "c1");
        assert_eq!(result.content, vec![ContentBlock::text("echo: x")]);
        assert!(result.duration_ms.is_some());
    }
}

/// call1 waits until call2 has finished, so call2 always completes first.
fn ordered_pair(notify: Arc<Notify>) -> (TestTool, TestTool) {
    let wait = notify.clone();
    let slow = TestTool::new(
        "slow",
        Arc::new(move |_, _, _| {
            let wait = wait.clone();
            Box::pin(async move {
                wait.notified().await;
                Ok(ToolOutput::text("slow done"))
            })
        }),
    );
    let fast = TestTool::new(
        "fast",
        Arc::new(move |_, _, _| {
            let notify = notify.clone();
            Box::pin(async move {
                notify.notify_one();
                Ok(ToolOutput::text("fast done"))
            })
        }),
    );
    (slow, fast)
}

#[tokio::test]
async fn parallel_tools_end_in_completion_order_and_results_follow_source_order() {
    let provider = faux();
    provider.push(faux_message(vec![
        faux_tool_call("c1", "slow", json!({"value":"1"})),
        faux_tool_call("c2", "fast", json!({"value":"2"})),
    ]));
    provider.push(faux_message(vec![faux_text("ok")]));
    let (slow, fast) = ordered_pair(Arc::new(Notify::new()));
    let recorder = Recorder::default();
    run_agent_loop(
        vec![user("go")],
        context(vec![slow.arc(), fast.arc()]),
        &config(&provider),
        CancellationToken::new(),
        recorder.sink(),
    )
    .await
    .unwrap();
    let events = without_updates(recorder.normalized());
    assert_eq!(
        events[6..14],
        strings(&[
            "tes:c1",
            "tes:c2",
            "tee:c2",
            "tee:c1",
            "ms:toolResult:c1",
            "me:toolResult:c1",
            "ms:toolResult:c2",
            "me:toolResult:c2",
        ])[..]
    );
    assert_eq!(events[14], "turn_end[c1,c2]");
    // The next model call's context ends with both results, in source order.
    let request = &provider.requests()[1];
    let tail: Vec<_> = request.messages[request.messages.len() - 2..]
        .iter()
        .map(|m| match m {
            Message::ToolResult(r) => r.tool_call_id.clone(),
            other => other.role().to_owned(),
        })
        .collect();
    assert_eq!(tail, ["c1", "c2"]);
}

#[tokio::test]
async fn a_sequential_tool_makes_the_whole_batch_run_one_call_after_another() {
    let provider = faux();
    provider.push(faux_message(vec![
        faux_tool_call("c1", "echo", json!({"value":"1"})),
        faux_tool_call("c2", "serial", json!({"value":"2"})),
    ]));
    provider.push(faux_message(vec![faux_text("ok")]));
    let recorder = Recorder::default();
    run_agent_loop(
        vec![user("go")],
        context(vec![
            TestTool::echo("echo").arc(),
            TestTool::echo("serial").sequential().arc(),
        ]),
        &config(&provider),
        CancellationToken::new(),
        recorder.sink(),
    )
    .await
    .unwrap();
    assert_eq!(
        without_updates(recorder.normalized())[6..15],
        strings(&[
            "tes:c1",
            "tee:c1",
            "ms:toolResult:c1",
            "me:toolResult:c1",
            "tes:c2",
            "tee:c2",
            "ms:toolResult:c2",
            "me:toolResult:c2",
            "turn_end[c1,c2]",
        ])[..]
    );
}

#[tokio::test]
async fn a_request_that_fails_before_streaming_gives_start_and_end_back_to_back() {
    // An empty faux queue fails without a `start` event, like an HTTP error.
    let provider = faux();
    let recorder = Recorder::default();
    let new = run_agent_loop(
        vec![user("go")],
        context(vec![]),
        &config(&provider),
        CancellationToken::new(),
        recorder.sink(),
    )
    .await
    .unwrap();
    assert_eq!(
        recorder.normalized(),
        strings(&[
            "agent_start",
            "turn_start",
            "ms:user:go",
            "me:user:go",
            "ms:assistant:error",
            "me:assistant:error",
            "turn_end[]",
            "agent_end(2)",
        ])
    );
    let failed = new[1].as_assistant().unwrap();
    assert_eq!(
        failed.error_message.as_deref(),
        Some("No more faux responses queued")
    );
    assert!(failed.content.is_empty());
}

#[tokio::test]
async fn an_error_mid_stream_ends_the_run_and_runs_no_tools_even_with_complete_calls() {
    let provider = faux();
    provider.push(faux_error(
        vec![
            faux_text("partial"),
            faux_tool_call("c1", "echo", json!({"value":"x"})),
        ],
        "connection reset",
    ));
    let tool = TestTool::echo("echo");
    let executed = tool.executed.clone();
    let recorder = Recorder::default();
    run_agent_loop(
        vec![user("go")],
        context(vec![tool.arc()]),
        &config(&provider),
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
            "ms:assistant:pending",
            "me:assistant:error",
            "turn_end[]",
            "agent_end(2)",
        ])
    );
    assert!(executed.lock().unwrap().is_empty());
}

#[tokio::test]
async fn cancelling_while_streaming_ends_with_an_aborted_message_keeping_partial_content() {
    let provider = FauxProvider::new().with_chunk_chars(1);
    provider.push(faux_message(vec![faux_text(
        "a long answer that streams slowly",
    )]));
    let cancel = CancellationToken::new();
    let recorder = Recorder::default();
    let trip = cancel.clone();
    let events = recorder.events.clone();
    let sink = Arc::new(move |event: AgentEvent| {
        let is_delta = matches!(event, AgentEvent::MessageUpdate { .. });
        events.lock().unwrap().push(event);
        if is_delta && events.lock().unwrap().len() > 8 {
            trip.cancel();
        }
    });
    let new = run_agent_loop(
        vec![user("go")],
        context(vec![]),
        &config(&provider),
        cancel,
        sink,
    )
    .await
    .unwrap();
    let last = new[1].as_assistant().unwrap();
    assert_eq!(last.stop_reason, rho_ai::StopReason::Aborted);
    assert_eq!(last.error_message.as_deref(), Some("Request was aborted"));
    let text = last.text();
    assert!(!text.is_empty() && "a long answer that streams slowly".starts_with(&text));
    let tail = recorder.normalized();
    assert_eq!(
        tail[tail.len() - 3..],
        strings(&["me:assistant:aborted", "turn_end[]", "agent_end(2)"])[..]
    );
}

#[tokio::test]
async fn cancelling_while_tools_run_gives_error_results_then_one_aborted_model_call() {
    let provider = faux();
    provider.push(faux_message(vec![faux_tool_call(
        "c1",
        "wait",
        json!({"value":"x"}),
    )]));
    provider.push(faux_message(vec![faux_text("never streamed")]));
    let cancel = CancellationToken::new();
    let trip = cancel.clone();
    let waiting = TestTool::new(
        "wait",
        Arc::new(move |_, _, cancel| {
            let trip = trip.clone();
            Box::pin(async move {
                trip.cancel();
                cancel.cancelled().await;
                Err(rho_agent::ToolError::new("Operation aborted"))
            })
        }),
    );
    let recorder = Recorder::default();
    run_agent_loop(
        vec![user("go")],
        context(vec![waiting.arc()]),
        &config(&provider),
        cancel,
        recorder.sink(),
    )
    .await
    .unwrap();
    assert_eq!(
        without_updates(recorder.normalized())[6..],
        strings(&[
            "tes:c1",
            "tee:c1:err",
            "ms:toolResult:c1:err",
            "me:toolResult:c1:err",
            "turn_end[c1]",
            "turn_start",
            "ms:assistant:aborted",
            "me:assistant:aborted",
            "turn_end[]",
            "agent_end(4)",
        ])[..]
    );
    assert_eq!(tee_text(&recorder.events(), "c1"), "Operation aborted");
}

fn terminating(name: &str, terminate: bool) -> TestTool {
    TestTool::new(
        name,
        Arc::new(move |_, _, _| {
            Box::pin(async move {
                Ok(ToolOutput {
                    terminate: Some(terminate),
                    ..ToolOutput::text("ok")
                })
            })
        }),
    )
}

#[tokio::test]
async fn a_batch_where_every_result_terminates_ends_without_another_model_call() {
    let provider = faux();
    provider.push(faux_message(vec![
        faux_tool_call("c1", "stop", json!({"value":"1"})),
        faux_tool_call("c2", "stop", json!({"value":"2"})),
    ]));
    provider.push(faux_message(vec![faux_text("should not be asked")]));
    let recorder = Recorder::default();
    run_agent_loop(
        vec![user("go")],
        context(vec![terminating("stop", true).arc()]),
        &config(&provider),
        CancellationToken::new(),
        recorder.sink(),
    )
    .await
    .unwrap();
    assert_eq!(provider.call_count(), 1);
    let events = recorder.normalized();
    assert_eq!(
        events[events.len() - 2..],
        strings(&["turn_end[c1,c2]", "agent_end(4)"])[..]
    );
    // terminate is a runtime hint: it is never written on the tool-result message.
    let json = serde_json::to_value(recorder.events()).unwrap();
    let results: Vec<_> = json
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "message_end" && e["message"]["role"] == "toolResult")
        .collect();
    assert_eq!(results.len(), 2);
    assert!(
        results
            .iter()
            .all(|e| e["message"].get("terminate").is_none())
    );
}

#[tokio::test]
async fn a_mixed_batch_continues_with_the_next_model_call() {
    let provider = faux();
    provider.push(faux_message(vec![
        faux_tool_call("c1", "stop", json!({"value":"1"})),
        faux_tool_call("c2", "go", json!({"value":"2"})),
    ]));
    provider.push(faux_message(vec![faux_text("next")]));
    run_agent_loop(
        vec![user("go")],
        context(vec![
            terminating("stop", true).arc(),
            terminating("go", false).arc(),
        ]),
        &config(&provider),
        CancellationToken::new(),
        Recorder::default().sink(),
    )
    .await
    .unwrap();
    assert_eq!(provider.call_count(), 2);
}

struct BlockWithTerminate;

#[async_trait::async_trait]
impl ToolHooks for BlockWithTerminate {
    async fn before_tool_call(
        &self,
        _call: BeforeToolCall<'_>,
        _cancel: &CancellationToken,
    ) -> Result<Option<BeforeToolCallDecision>, HookError> {
        Ok(Some(BeforeToolCallDecision {
            block: true,
            reason: Some("stop here".into()),
            terminate: Some(true),
            args: None,
        }))
    }
}

#[tokio::test]
async fn a_block_with_terminate_counts_toward_the_terminate_rule() {
    let provider = faux();
    provider.push(faux_message(vec![faux_tool_call(
        "c1",
        "echo",
        json!({"value":"1"}),
    )]));
    provider.push(faux_message(vec![faux_text("should not be asked")]));
    let recorder = Recorder::default();
    let mut config = config(&provider);
    config.tool_hooks = Some(Arc::new(BlockWithTerminate));
    run_agent_loop(
        vec![user("go")],
        context(vec![TestTool::echo("echo").arc()]),
        &config,
        CancellationToken::new(),
        recorder.sink(),
    )
    .await
    .unwrap();
    assert_eq!(provider.call_count(), 1);
    assert_eq!(tee_text(&recorder.events(), "c1"), "stop here");
}

struct StopAfterFirstTurn;

impl TurnGate for StopAfterFirstTurn {
    fn should_stop_after_turn(&self, _turn: TurnSummary<'_>) -> bool {
        true
    }
}

#[tokio::test]
async fn should_stop_after_turn_ends_the_run_without_polling_the_queues() {
    let provider = faux();
    provider.push(faux_message(vec![faux_tool_call(
        "c1",
        "echo",
        json!({"value":"1"}),
    )]));
    let queues = Arc::new(TestQueues::default());
    queues.follow_up.lock().unwrap().push(user("later"));
    let mut config = config(&provider);
    config.turn_gate = Some(Arc::new(StopAfterFirstTurn));
    config.messages = Some(queues.clone());
    let recorder = Recorder::default();
    run_agent_loop(
        vec![user("go")],
        context(vec![TestTool::echo("echo").arc()]),
        &config,
        CancellationToken::new(),
        recorder.sink(),
    )
    .await
    .unwrap();
    assert_eq!(provider.call_count(), 1);
    assert_eq!(queues.follow_up.lock().unwrap().len(), 1);
    let events = recorder.normalized();
    assert_eq!(
        events[events.len() - 2..],
        strings(&["turn_end[c1]", "agent_end(3)"])[..]
    );
}
