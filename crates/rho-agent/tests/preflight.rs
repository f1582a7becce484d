//! The host's checks before a tool runs (pi-reference §3.3 d–f, §10 items 8–11): registered,
//! valid, allowed; and what happens when a tool or hook fails.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::{Arc, Mutex};

use common::*;
use rho_agent::{
    AfterToolCall, AfterToolCallOverride, AgentEvent, BeforeToolCall, BeforeToolCallDecision,
    HookError, ToolError, ToolHooks, ToolOutput, ToolResultPayload, run_agent_loop,
};
use rho_ai::ContentBlock;
use rho_ai::faux::{faux_message, faux_text, faux_tool_call};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// Runs one batch of `calls` then a final text reply; returns the events and the provider.
async fn run_batch(
    calls: Vec<ContentBlock>,
    tools: Vec<Arc<dyn rho_agent::AgentTool>>,
    hooks: Option<Arc<dyn ToolHooks>>,
) -> (Vec<AgentEvent>, rho_ai::faux::FauxProvider) {
    let provider = faux();
    provider.push(faux_message(calls));
    provider.push(faux_message(vec![faux_text("final")]));
    let mut config = config(&provider);
    config.tool_hooks = hooks;
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

/// The `tool_execution_end` of `id`: (result, isError, durationMs).
fn tee(events: &[AgentEvent], id: &str) -> (ToolResultPayload, bool, Option<u64>) {
    events
        .iter()
        .find_map(|e| match e {
            AgentEvent::ToolExecutionEnd {
                tool_call_id,
                result,
                is_error,
                duration_ms,
                ..
            } if tool_call_id == id => Some((result.clone(), *is_error, *duration_ms)),
            _ => None,
        })
        .expect("no tool_execution_end")
}

fn refusal(text: &str) -> ToolResultPayload {
    ToolResultPayload {
        content: vec![ContentBlock::text(text)],
        details: Some(json!({})),
        structured_content: None,
        is_error: None,
        usage: None,
        terminate: None,
    }
}

#[derive(Default)]
struct Hooks {
    block: Option<BeforeToolCallDecision>,
    before_calls: Mutex<Vec<Value>>,
    after: Option<AfterToolCallOverride>,
    after_fails: bool,
}

#[async_trait::async_trait]
impl ToolHooks for Hooks {
    async fn before_tool_call(
        &self,
        call: BeforeToolCall<'_>,
        _cancel: &CancellationToken,
    ) -> Result<Option<BeforeToolCallDecision>, HookError> {
        self.before_calls.lock().unwrap().push(call.args.clone());
        Ok(self.block.clone())
    }

    async fn after_tool_call(
        &self,
        _call: AfterToolCall<'_>,
        _cancel: &CancellationToken,
    ) -> Result<Option<AfterToolCallOverride>, HookError> {
        if self.after_fails {
            return Err(HookError("audit log unavailable".into()));
        }
        Ok(self.after.clone())
    }
}

#[tokio::test]
async fn unknown_tool_becomes_an_error_result_and_the_loop_continues() {
    let (events, provider) = run_batch(
        vec![faux_tool_call("c1", "delete_everything", json!({}))],
        vec![TestTool::echo("echo").arc()],
        None,
    )
    .await;
    assert_eq!(
        tee(&events, "c1"),
        (refusal("Tool delete_everything not found"), true, None)
    );
    assert_eq!(provider.call_count(), 2);
    assert_eq!(
        without_updates(normalize(&events))[6..11],
        strings(&[
            "tes:c1",
            "tee:c1:err",
            "ms:toolResult:c1:err",
            "me:toolResult:c1:err",
            "turn_end[c1]"
        ])[..]
    );
}

#[tokio::test]
async fn invalid_arguments_are_refused_with_pi_text_and_neither_hook_nor_tool_runs() {
    let tool = TestTool::echo("echo");
    let executed = tool.executed.clone();
    let hooks = Arc::new(Hooks::default());
    let (events, provider) = run_batch(
        vec![faux_tool_call("c1", "echo", json!({"valu": 5}))],
        vec![tool.arc()],
        Some(hooks.clone()),
    )
    .await;
    let expected = "Validation failed for tool \"echo\":\n  - value: missing\n\nReceived arguments:\n{\n  \"valu\": 5\n}";
    assert_eq!(tee(&events, "c1"), (refusal(expected), true, None));
    assert!(executed.lock().unwrap().is_empty());
    assert!(hooks.before_calls.lock().unwrap().is_empty());
    assert_eq!(provider.call_count(), 2);
}

#[tokio::test]
async fn coercible_arguments_are_coerced_and_executed() {
    let tool = TestTool::echo("count").with_schema(
        json!({"type":"object","properties":{"n":{"type":"number"},"on":{"type":"boolean"}},"required":["n"]}),
    );
    let executed = tool.executed.clone();
    let (events, _) = run_batch(
        vec![faux_tool_call(
            "c1",
            "count",
            json!({"n": "5", "on": "true"}),
        )],
        vec![tool.arc()],
        None,
    )
    .await;
    assert_eq!(*executed.lock().unwrap(), vec![json!({"n": 5, "on": true})]);
    // tool_execution_start carries the raw arguments, before coercion.
    let raw = events.iter().find_map(|e| match e {
        AgentEvent::ToolExecutionStart { args, .. } => Some(args.clone()),
        _ => None,
    });
    assert_eq!(raw, Some(json!({"n": "5", "on": "true"})));
}

#[tokio::test]
async fn arguments_that_are_not_an_object_are_refused_not_panicked_on() {
    let (events, _) = run_batch(
        vec![faux_tool_call("c1", "echo", json!(["a", "b"]))],
        vec![TestTool::echo("echo").arc()],
        None,
    )
    .await;
    let (result, is_error, duration) = tee(&events, "c1");
    assert!(is_error && duration.is_none());
    let text = result.content[0].as_text().unwrap();
    assert!(
        text.starts_with(
            "Validation failed for tool \"echo\":\n  - root: expected object, got array"
        ),
        "{text}"
    );
}

#[tokio::test]
async fn a_tool_with_an_invalid_schema_is_refused_with_a_clear_message() {
    let broken = TestTool::echo("broken").with_schema(json!({"type": 12}));
    let (events, provider) = run_batch(
        vec![faux_tool_call("c1", "broken", json!({}))],
        vec![broken.arc()],
        None,
    )
    .await;
    let (result, is_error, _) = tee(&events, "c1");
    assert!(is_error);
    assert!(
        result.content[0]
            .as_text()
            .unwrap()
            .contains("invalid parameter schema for tool \"broken\"")
    );
    assert_eq!(provider.call_count(), 2);
}

#[tokio::test]
async fn blocked_call_becomes_error_result_with_reason_or_default_text() {
    for (reason, text) in [
        (Some("not in this repo".to_owned()), "not in this repo"),
        (None, "Tool execution was blocked"),
    ] {
        let tool = TestTool::echo("echo");
        let executed = tool.executed.clone();
        let hooks = Arc::new(Hooks {
            block: Some(BeforeToolCallDecision {
                block: true,
                reason,
                terminate: None,
                args: None,
            }),
            ..Hooks::default()
        });
        let (events, provider) = run_batch(
            vec![faux_tool_call("c1", "echo", json!({"value": "x"}))],
            vec![tool.arc()],
            Some(hooks.clone()),
        )
        .await;
        assert_eq!(tee(&events, "c1"), (refusal(text), true, None));
        assert!(executed.lock().unwrap().is_empty());
        // The hook saw the validated arguments, and the model sees the refusal next turn.
        assert_eq!(
            *hooks.before_calls.lock().unwrap(),
            vec![json!({"value": "x"})]
        );
        assert_eq!(provider.call_count(), 2);
    }
}

#[tokio::test]
async fn in_parallel_mode_a_blocked_call_ends_during_preflight_before_the_next_start() {
    let hooks = Arc::new(Hooks {
        block: Some(BeforeToolCallDecision {
            block: true,
            ..Default::default()
        }),
        ..Hooks::default()
    });
    let (events, _) = run_batch(
        vec![
            faux_tool_call("c1", "echo", json!({"value": "1"})),
            faux_tool_call("c2", "echo", json!({"value": "2"})),
        ],
        vec![TestTool::echo("echo").arc()],
        Some(hooks),
    )
    .await;
    assert_eq!(
        without_updates(normalize(&events))[6..10],
        strings(&["tes:c1", "tee:c1:err", "tes:c2", "tee:c2:err"])[..]
    );
}

#[tokio::test]
async fn after_tool_call_overrides_fields_without_deep_merge() {
    let tool = TestTool::new(
        "t",
        Arc::new(|_, _, _| {
            Box::pin(async {
                Ok(ToolOutput {
                    details: Some(json!({"a": 1, "b": 2})),
                    ..ToolOutput::text("original")
                })
            })
        }),
    );
    let hooks = Arc::new(Hooks {
        after: Some(AfterToolCallOverride {
            details: Some(json!({"a": 9})),
            is_error: Some(true),
            ..Default::default()
        }),
        ..Hooks::default()
    });
    let (events, _) = run_batch(
        vec![faux_tool_call("c1", "t", json!({"value": "x"}))],
        vec![tool.arc()],
        Some(hooks),
    )
    .await;
    let (result, is_error, duration) = tee(&events, "c1");
    assert_eq!(result.content, vec![ContentBlock::text("original")]);
    assert_eq!(result.details, Some(json!({"a": 9})));
    assert!(is_error);
    assert!(
        duration.is_some(),
        "the tool executed, so durationMs is present"
    );
}

#[tokio::test]
async fn a_failing_after_tool_call_turns_the_result_into_an_error() {
    let hooks = Arc::new(Hooks {
        after_fails: true,
        ..Hooks::default()
    });
    let (events, _) = run_batch(
        vec![faux_tool_call("c1", "echo", json!({"value": "x"}))],
        vec![TestTool::echo("echo").arc()],
        Some(hooks),
    )
    .await;
    let (result, is_error, duration) = tee(&events, "c1");
    assert_eq!(result, refusal("audit log unavailable"));
    assert!(is_error && duration.is_some());
}

#[tokio::test]
async fn a_failing_tool_gives_its_message_as_the_only_text_and_empty_details() {
    let tool = TestTool::new(
        "fail",
        Arc::new(|_, _, _| Box::pin(async { Err(ToolError::new("disk on fire")) })),
    );
    let (events, provider) = run_batch(
        vec![faux_tool_call("c1", "fail", json!({"value": "x"}))],
        vec![tool.arc()],
        None,
    )
    .await;
    let (result, is_error, duration) = tee(&events, "c1");
    assert_eq!(result, refusal("disk on fire"));
    assert!(is_error && duration.is_some());
    assert_eq!(provider.call_count(), 2);
}

#[tokio::test]
async fn a_panicking_tool_is_caught_as_an_error_result_and_the_loop_goes_on() {
    let tool = TestTool::new(
        "boom",
        Arc::new(|_, _, _| Box::pin(async { panic!("index out of bounds") })),
    );
    let (events, provider) = run_batch(
        vec![faux_tool_call("c1", "boom", json!({"value": "x"}))],
        vec![tool.arc()],
        None,
    )
    .await;
    let (result, is_error, _) = tee(&events, "c1");
    assert!(is_error);
    assert_eq!(
        result.content[0].as_text(),
        Some("Tool panicked: index out of bounds")
    );
    assert_eq!(provider.call_count(), 2);
}

#[tokio::test]
async fn a_tool_may_report_failure_without_an_error() {
    let tool = TestTool::new(
        "soft",
        Arc::new(|_, _, _| {
            Box::pin(async {
                Ok(ToolOutput {
                    is_error: Some(true),
                    ..ToolOutput::text("exit code 1")
                })
            })
        }),
    );
    let (events, _) = run_batch(
        vec![faux_tool_call("c1", "soft", json!({"value": "x"}))],
        vec![tool.arc()],
        None,
    )
    .await;
    let (_, is_error, duration) = tee(&events, "c1");
    assert!(is_error && duration.is_some());
}

#[tokio::test]
async fn tool_updates_carry_the_raw_arguments_and_the_partial_result() {
    let tool = TestTool::new(
        "progress",
        Arc::new(|_, updates, _| {
            Box::pin(async move {
                updates.send(json!({"content": [{"type": "text", "text": "50%"}]}));
                Ok(ToolOutput::text("100%"))
            })
        }),
    )
    .with_schema(json!({"type":"object","properties":{"n":{"type":"number"}}}));
    let (events, _) = run_batch(
        vec![faux_tool_call("c1", "progress", json!({"n": "7"}))],
        vec![tool.arc()],
        None,
    )
    .await;
    let update = events.iter().find_map(|e| match e {
        AgentEvent::ToolExecutionUpdate {
            args,
            partial_result,
            ..
        } => Some((args.clone(), partial_result.clone())),
        _ => None,
    });
    assert_eq!(
        update,
        Some((
            json!({"n": "7"}),
            json!({"content": [{"type": "text", "text": "50%"}]})
        ))
    );
    assert_eq!(
        without_updates(normalize(&events))[6..9],
        strings(&["tes:c1", "teu:c1", "tee:c1"])[..]
    );
}
