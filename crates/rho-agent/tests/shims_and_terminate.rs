//! `prepareArguments` shims, which hooks are skipped on which refusal, and the `terminate` rule's
//! edges (pi-reference §3.3 d–f, j; contract §3).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use common::*;
use rho_agent::{
    AfterToolCall, AfterToolCallOverride, AgentTool, BeforeToolCall, BeforeToolCallDecision,
    HookError, ToolError, ToolHooks, ToolOutput, ToolUpdates, run_agent_loop,
};
use rho_ai::faux::{faux_message, faux_text, faux_tool_call};
use rho_ai::{ContentBlock, StopReason};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// Renames a legacy `val` argument to `value`; fails on `explode`.
struct Shim {
    schema: Value,
    prepared: Arc<Mutex<Vec<Value>>>,
    executed: Arc<Mutex<Vec<Value>>>,
}

#[async_trait]
impl AgentTool for Shim {
    fn name(&self) -> &str {
        "shim"
    }
    fn description(&self) -> &str {
        "has a compatibility shim"
    }
    fn parameters(&self) -> &Value {
        &self.schema
    }
    fn prepare_arguments(&self, args: Value) -> Result<Value, ToolError> {
        self.prepared.lock().unwrap().push(args.clone());
        if args.get("explode").is_some() {
            return Err(ToolError::new("cannot prepare these arguments"));
        }
        match args.get("val") {
            Some(val) => Ok(json!({"value": val})),
            None => Ok(args),
        }
    }
    async fn execute(
        &self,
        _: &str,
        args: Value,
        _: CancellationToken,
        _: ToolUpdates,
    ) -> Result<ToolOutput, ToolError> {
        self.executed.lock().unwrap().push(args);
        Ok(ToolOutput::text("ran"))
    }
}

fn shim() -> Shim {
    Shim {
        schema: json!({"type":"object","properties":{"value":{"type":"string"}},"required":["value"]}),
        prepared: Arc::default(),
        executed: Arc::default(),
    }
}

#[derive(Default)]
struct Recording {
    before: Mutex<u32>,
    after: Mutex<u32>,
    block: bool,
    after_terminates: bool,
}

#[async_trait]
impl ToolHooks for Recording {
    async fn before_tool_call(
        &self,
        _: BeforeToolCall<'_>,
        _: &CancellationToken,
    ) -> Result<Option<BeforeToolCallDecision>, HookError> {
        *self.before.lock().unwrap() += 1;
        Ok(self.block.then(|| BeforeToolCallDecision {
            block: true,
            ..Default::default()
        }))
    }
    async fn after_tool_call(
        &self,
        _: AfterToolCall<'_>,
        _: &CancellationToken,
    ) -> Result<Option<AfterToolCallOverride>, HookError> {
        *self.after.lock().unwrap() += 1;
        Ok(self.after_terminates.then(|| AfterToolCallOverride {
            terminate: Some(true),
            ..Default::default()
        }))
    }
}

async fn run(
    calls: Vec<ContentBlock>,
    tools: Vec<Arc<dyn AgentTool>>,
    hooks: Arc<Recording>,
) -> (Vec<rho_agent::AgentEvent>, rho_ai::faux::FauxProvider) {
    let provider = faux();
    provider.push(faux_message(calls));
    provider.set_fallback(faux_message(vec![faux_text("after")]));
    let mut config = config(&provider);
    config.tool_hooks = Some(hooks);
    let recorder = Recorder::default();
    run_agent_loop(
        vec![user("go")],
        context(tools),
        &config,
        CancellationToken::new(),
        recorder.sink(),
    )
    .await
    .unwrap();
    (recorder.events(), provider)
}

#[tokio::test]
async fn a_shim_reshapes_arguments_before_validation_and_execute_gets_the_result() {
    let tool = shim();
    let (prepared, executed) = (tool.prepared.clone(), tool.executed.clone());
    run(
        vec![faux_tool_call("c1", "shim", json!({"val": "x"}))],
        vec![Arc::new(tool)],
        Arc::default(),
    )
    .await;
    assert_eq!(*prepared.lock().unwrap(), vec![json!({"val": "x"})]);
    assert_eq!(*executed.lock().unwrap(), vec![json!({"value": "x"})]);
}

#[tokio::test]
async fn a_failing_shim_is_an_error_result_and_before_tool_call_is_not_called() {
    let hooks = Arc::new(Recording::default());
    let (events, provider) = run(
        vec![faux_tool_call("c1", "shim", json!({"explode": true}))],
        vec![Arc::new(shim())],
        hooks.clone(),
    )
    .await;
    assert_eq!(tee_text(&events, "c1"), "cannot prepare these arguments");
    assert_eq!(
        (*hooks.before.lock().unwrap(), *hooks.after.lock().unwrap()),
        (0, 0)
    );
    assert_eq!(provider.call_count(), 2);
}

#[tokio::test]
async fn a_validation_error_after_a_shim_echoes_the_original_arguments() {
    let (events, _) = run(
        vec![faux_tool_call(
            "c1",
            "shim",
            json!({"val": 5, "extra": [1]}),
        )],
        vec![Arc::new(shim())],
        Arc::default(),
    )
    .await;
    // The shim keeps only `value` (a number, coerced to "5"), so this call validates...
    assert_eq!(tee_text(&events, "c1"), "ran");
    let (events, _) = run(
        vec![faux_tool_call("c2", "shim", json!({"other": 1}))],
        vec![Arc::new(shim())],
        Arc::default(),
    )
    .await;
    assert_eq!(
        tee_text(&events, "c2"),
        "Validation failed for tool \"shim\":\n  - value: missing\n\nReceived arguments:\n{\n  \"other\": 1\n}"
    );
}

#[tokio::test]
async fn an_unknown_tool_skips_the_shim_validation_and_both_hooks() {
    let tool = shim();
    let prepared = tool.prepared.clone();
    let hooks = Arc::new(Recording::default());
    run(
        vec![faux_tool_call("c1", "nope", json!({"val": "x"}))],
        vec![Arc::new(tool)],
        hooks.clone(),
    )
    .await;
    assert!(prepared.lock().unwrap().is_empty());
    assert_eq!(
        (*hooks.before.lock().unwrap(), *hooks.after.lock().unwrap()),
        (0, 0)
    );
}

#[tokio::test]
async fn a_blocked_call_runs_neither_the_tool_nor_after_tool_call() {
    let tool = TestTool::echo("echo");
    let executed = tool.executed.clone();
    let hooks = Arc::new(Recording {
        block: true,
        ..Recording::default()
    });
    run(
        vec![faux_tool_call("c1", "echo", json!({"value": "x"}))],
        vec![tool.arc()],
        hooks.clone(),
    )
    .await;
    assert!(executed.lock().unwrap().is_empty());
    assert_eq!(
        (*hooks.before.lock().unwrap(), *hooks.after.lock().unwrap()),
        (1, 0)
    );
}

#[tokio::test]
async fn terminate_set_by_after_tool_call_ends_the_run_after_the_batch() {
    let hooks = Arc::new(Recording {
        after_terminates: true,
        ..Recording::default()
    });
    let (_, provider) = run(
        vec![
            faux_tool_call("c1", "echo", json!({"value": "1"})),
            faux_tool_call("c2", "echo", json!({"value": "2"})),
        ],
        vec![TestTool::echo("echo").arc()],
        hooks,
    )
    .await;
    assert_eq!(provider.call_count(), 1);
}

#[tokio::test]
async fn an_executed_call_that_errors_never_terminates_even_if_it_asks_to() {
    let tool = TestTool::new(
        "fails_terminating",
        Arc::new(|_, _, _| {
            Box::pin(async {
                Ok(ToolOutput {
                    is_error: Some(true),
                    terminate: Some(true),
                    ..ToolOutput::text("failed")
                })
            })
        }),
    );
    let (events, provider) = run(
        vec![faux_tool_call(
            "c1",
            "fails_terminating",
            json!({"value": "1"}),
        )],
        vec![tool.arc()],
        Arc::default(),
    )
    .await;
    assert_eq!(provider.call_count(), 2);
    let terminate = events.iter().find_map(|e| match e {
        rho_agent::AgentEvent::ToolExecutionEnd { result, .. } => Some(result.terminate),
        _ => None,
    });
    assert_eq!(terminate, Some(None));
}

#[tokio::test]
async fn after_a_terminating_batch_a_pending_follow_up_still_starts_a_turn() {
    let provider = faux();
    provider.push(faux_message(vec![faux_tool_call(
        "c1",
        "echo",
        json!({"value": "1"}),
    )]));
    provider.set_fallback(faux_message(vec![faux_text("after")]));
    let queues = Arc::new(TestQueues::default());
    queues.follow_up.lock().unwrap().push(user("next task"));
    let mut config = config(&provider);
    config.tool_hooks = Some(Arc::new(Recording {
        after_terminates: true,
        ..Recording::default()
    }));
    config.messages = Some(queues);
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
    assert_eq!(provider.call_count(), 2);
    assert_eq!(
        without_updates(recorder.normalized())[10..],
        strings(&[
            "turn_end[c1]",
            "turn_start",
            "ms:user:next task",
            "me:user:next task",
            "ms:assistant:pending",
            "me:assistant:stop",
            "turn_end[]",
            "agent_end(5)"
        ])[..]
    );
}

#[tokio::test]
async fn an_aborted_message_with_complete_tool_calls_ends_the_run_without_running_them() {
    let provider = faux();
    let mut aborted = faux_message(vec![faux_tool_call("c1", "echo", json!({"value": "1"}))]);
    aborted.stop_reason = StopReason::Aborted;
    aborted.error_message = Some("Request was aborted".into());
    provider.push(aborted);
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
    assert!(executed.lock().unwrap().is_empty());
    let events = recorder.normalized();
    assert_eq!(
        events[events.len() - 3..],
        strings(&["me:assistant:aborted", "turn_end[]", "agent_end(2)"])[..]
    );
}
