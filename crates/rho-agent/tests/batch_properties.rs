//! Property: for any batch of tool calls (known or unknown names, valid or invalid arguments,
//! blocked or not, terminating or not, finishing in any order) every `toolCallId` appears exactly
//! once in `tool_execution_start`, `tool_execution_end` and a `toolResult`; `durationMs` is present
//! exactly for executed calls; and the batch terminates exactly when every finalized result
//! carries terminate.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::collections::HashMap;
use std::sync::Arc;

use common::*;
use proptest::prelude::*;
use rho_agent::{
    AgentEvent, BeforeToolCall, BeforeToolCallDecision, HookError, ToolHooks, ToolOutput,
    run_agent_loop,
};
use rho_ai::faux::{faux_message, faux_text, faux_tool_call};
use serde_json::json;
use tokio_util::sync::CancellationToken;

#[derive(Clone, Debug)]
enum Decision {
    Allow,
    Block,
    BlockAndTerminate,
}

#[derive(Clone, Debug)]
struct Call {
    known: bool,
    valid: bool,
    block: Decision,
    terminate: bool,
    fails: bool,
    yields: u8,
}

fn call() -> impl Strategy<Value = Call> {
    (
        prop::bool::weighted(0.85),
        prop::bool::weighted(0.85),
        prop_oneof![4 => Just(Decision::Allow), 1 => Just(Decision::Block), 1 => Just(Decision::BlockAndTerminate)],
        any::<bool>(),
        prop::bool::weighted(0.1),
        0u8..6,
    )
        .prop_map(|(known, valid, block, terminate, fails, yields)| Call {
            known,
            valid,
            block,
            terminate,
            fails,
            yields,
        })
}

struct PerCallHooks(HashMap<String, Decision>);

#[async_trait::async_trait]
impl ToolHooks for PerCallHooks {
    async fn before_tool_call(
        &self,
        call: BeforeToolCall<'_>,
        _cancel: &CancellationToken,
    ) -> Result<Option<BeforeToolCallDecision>, HookError> {
        Ok(match self.0.get(&call.tool_call.id) {
            Some(Decision::Block) => Some(BeforeToolCallDecision {
                block: true,
                ..Default::default()
            }),
            Some(Decision::BlockAndTerminate) => Some(BeforeToolCallDecision {
                block: true,
                reason: None,
                terminate: Some(true),
                args: None,
            }),
            _ => None,
        })
    }
}

/// A tool that yields `yields` times (so calls finish out of order), then succeeds or fails,
/// with `terminate` as the arguments say.
fn flaky() -> TestTool {
    TestTool::new(
        "flaky",
        Arc::new(|args, _, _| {
            Box::pin(async move {
                for _ in 0..args["yields"].as_u64().unwrap_or(0) {
                    tokio::task::yield_now().await;
                }
                if args["fails"].as_bool() == Some(true) {
                    return Err(rho_agent::ToolError::new("failed"));
                }
                Ok(ToolOutput {
                    terminate: Some(args["terminate"].as_bool() == Some(true)),
                    ..ToolOutput::text("ok")
                })
            })
        }),
    )
    .with_schema(json!({
        "type": "object",
        "properties": {"yields": {"type": "integer"}, "terminate": {"type": "boolean"}, "fails": {"type": "boolean"}},
        "required": ["yields", "terminate", "fails"]
    }))
}

fn check(calls: Vec<Call>, sequential: bool) -> Result<(), TestCaseError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    runtime.block_on(async {
        let provider = faux();
        let blocks = calls
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let args = if c.valid {
                    json!({"yields": c.yields, "terminate": c.terminate, "fails": c.fails})
                } else {
                    json!({"yields": "many"})
                };
                faux_tool_call(format!("c{i}"), if c.known { "flaky" } else { "ghost" }, args)
            })
            .collect();
        provider.push(faux_message(blocks));
        provider.set_fallback(faux_message(vec![faux_text("after")]));
        let hooks = calls.iter().enumerate().map(|(i, c)| (format!("c{i}"), c.block.clone())).collect();
        let mut config = config(&provider);
        config.tool_hooks = Some(Arc::new(PerCallHooks(hooks)));
        if sequential {
            config.tool_execution = rho_agent::ToolExecution::Sequential;
        }
        let recorder = Recorder::default();
        run_agent_loop(vec![user("go")], context(vec![flaky().arc()]), &config, CancellationToken::new(), recorder.sink())
            .await
            .unwrap();
        let events = recorder.events();

        let mut expected_terminate = !calls.is_empty();
        for (i, c) in calls.iter().enumerate() {
            let id = format!("c{i}");
            let starts = events.iter().filter(|e| matches!(e, AgentEvent::ToolExecutionStart { tool_call_id, .. } if *tool_call_id == id)).count();
            let ends: Vec<_> = events
                .iter()
                .filter_map(|e| match e {
                    AgentEvent::ToolExecutionEnd { tool_call_id, duration_ms, .. } if *tool_call_id == id => Some(*duration_ms),
                    _ => None,
                })
                .collect();
            let results: Vec<_> = events
                .iter()
                .filter_map(|e| match e {
                    AgentEvent::MessageEnd { message } => message.as_tool_result().filter(|r| r.tool_call_id == id).cloned(),
                    _ => None,
                })
                .collect();
            prop_assert_eq!(starts, 1, "{} starts", id);
            prop_assert_eq!(ends.len(), 1, "{} ends", id);
            prop_assert_eq!(results.len(), 1, "{} results", id);
            let executed = c.known && c.valid && matches!(c.block, Decision::Allow);
            prop_assert_eq!(ends[0].is_some(), executed, "{} durationMs on tool_execution_end", id);
            prop_assert_eq!(results[0].duration_ms.is_some(), executed, "{} durationMs on toolResult", id);
            let terminates = if executed {
                !c.fails && c.terminate
            } else {
                c.known && c.valid && matches!(c.block, Decision::BlockAndTerminate)
            };
            expected_terminate &= terminates;
        }
        let expected_calls = if expected_terminate { 1 } else { 2 };
        prop_assert_eq!(provider.call_count(), expected_calls, "terminate rule");
        Ok(())
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn every_call_is_accounted_for_in_parallel_mode(calls in prop::collection::vec(call(), 1..7)) {
        check(calls, false)?;
    }

    #[test]
    fn every_call_is_accounted_for_in_sequential_mode(calls in prop::collection::vec(call(), 1..7)) {
        check(calls, true)?;
    }
}
