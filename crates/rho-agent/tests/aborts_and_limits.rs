//! Calls that never run (Pi 1.6, gap list §1.11): an abort reaching a batch before a call
//! started, and a reply cut at the output token limit; plus what a tool's own result carries
//! into `tool_execution_end` (§1.7) and the per-call context the tools get.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use common::*;
use rho_agent::{
    AfterToolCall, AfterToolCallOverride, AgentEvent, AgentTool, BeforeToolCall,
    BeforeToolCallDecision, HookError, ToolContext, ToolError, ToolHooks, ToolOutput, ToolUpdates,
    run_agent_loop,
};
use rho_ai::faux::{FauxProvider, faux_message, faux_text, faux_tool_call};
use rho_ai::{ContentBlock, StopReason, ThinkingLevel};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// Runs one reply holding `calls` (stopping with `stop`), then a final text reply.
async fn run(
    calls: Vec<ContentBlock>,
    stop: StopReason,
    tools: Vec<Arc<dyn AgentTool>>,
    hooks: Option<Arc<dyn ToolHooks>>,
) -> (Vec<AgentEvent>, FauxProvider) {
    let provider = faux();
    let mut reply = faux_message(calls);
    reply.stop_reason = stop;
    provider.push(reply);
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

/// Every `tool_execution_end` as Pi prints it, without the call ids.
fn ends(events: &[AgentEvent]) -> Vec<Value> {
    events
        .iter()
        .filter(|e| matches!(e, AgentEvent::ToolExecutionEnd { .. }))
        .map(|e| {
            let mut json = serde_json::to_value(e).unwrap();
            json.as_object_mut().unwrap().remove("toolCallId");
            json
        })
        .collect()
}

fn aborted_end(tool: &str) -> Value {
    json!({"type": "tool_execution_end", "toolName": tool,
        "result": {"content": [{"type": "text", "text": "Operation aborted"}], "details": {}},
        "isError": true})
}

/// Cancels the run when `before_tool_call` sees the call with this id.
struct CancelAt(&'static str);

#[async_trait]
impl ToolHooks for CancelAt {
    async fn before_tool_call(
        &self,
        call: BeforeToolCall<'_>,
        cancel: &CancellationToken,
    ) -> Result<Option<BeforeToolCallDecision>, HookError> {
        if call.tool_call.id == self.0 {
            cancel.cancel();
        }
        Ok(None)
    }
}

#[tokio::test]
async fn a_reply_cut_at_the_token_limit_runs_none_of_its_calls_and_the_loop_goes_on() {
    let tool = TestTool::echo("echo");
    let executed = tool.executed.clone();
    let (events, provider) = run(
        vec![
            faux_tool_call("c1", "echo", json!({"value": "a"})),
            faux_tool_call("c2", "missing", json!({})),
        ],
        StopReason::Length,
        vec![tool.arc()],
        None,
    )
    .await;
    assert!(executed.lock().unwrap().is_empty());
    assert_eq!(provider.call_count(), 2);
    let not_run = |tool: &str| {
        json!({"type": "tool_execution_end", "toolName": tool,
            "result": {"content": [{"type": "text", "text": format!("Tool call \"{tool}\" was not executed: the response hit the output token limit, so its arguments may be truncated. Re-issue the tool call with complete arguments.")}], "details": {}},
            "isError": true})
    };
    assert_eq!(ends(&events), vec![not_run("echo"), not_run("missing")]);
    // One call after another, each with its result message, as Pi emits them.
    assert_eq!(
        without_updates(normalize(&events))[5..16],
        strings(&[
            "me:assistant:length",
            "tes:c1",
            "tee:c1:err",
            "ms:toolResult:c1:err",
            "me:toolResult:c1:err",
            "tes:c2",
            "tee:c2:err",
            "ms:toolResult:c2:err",
            "me:toolResult:c2:err",
            "turn_end[c1,c2]",
            "turn_start",
        ])[..]
    );
}

#[tokio::test]
async fn an_abort_during_a_parallel_preflight_reaches_every_call_not_yet_started() {
    let tool = TestTool::echo("echo");
    let executed = tool.executed.clone();
    let (events, _) = run(
        vec![
            faux_tool_call("c1", "echo", json!({"value": "a"})),
            faux_tool_call("c2", "echo", json!({"value": "b"})),
            faux_tool_call("c3", "nope", json!({})),
        ],
        StopReason::ToolUse,
        vec![tool.arc()],
        Some(Arc::new(CancelAt("c2"))),
    )
    .await;
    // c1 passed preflight but had not started; c2 was aborted in its hook; c3 never prepared.
    assert!(executed.lock().unwrap().is_empty());
    assert_eq!(
        ends(&events),
        vec![
            aborted_end("echo"),
            aborted_end("nope"),
            aborted_end("echo")
        ]
    );
}

#[tokio::test]
async fn an_abort_in_a_sequential_batch_gives_the_later_calls_operation_aborted() {
    let cancelling = TestTool::new(
        "stop",
        Arc::new(|_, _, cancel: CancellationToken| {
            Box::pin(async move {
                cancel.cancel();
                Ok(ToolOutput::text("stopped"))
            })
        }),
    )
    .sequential();
    let (events, _) = run(
        vec![
            faux_tool_call("c1", "stop", json!({"value": "a"})),
            faux_tool_call("c2", "stop", json!({"value": "b"})),
        ],
        StopReason::ToolUse,
        vec![cancelling.arc()],
        None,
    )
    .await;
    let ends = ends(&events);
    assert_eq!(ends[0]["result"]["content"][0]["text"], "stopped");
    assert_eq!(ends[1], aborted_end("stop"));
}

#[tokio::test]
async fn a_returned_error_result_carries_its_is_error_and_structured_content_in_the_event_only() {
    let failing = TestTool::new(
        "bash",
        Arc::new(|_, _, _| {
            Box::pin(async move {
                Ok(ToolOutput {
                    structured_content: Some(json!({"output": "", "truncated": false,
                        "exit_code": 3, "wall_time_seconds": 0})),
                    is_error: Some(true),
                    ..ToolOutput::text("(no output)\n\nCommand exited with code 3")
                })
            })
        }),
    );
    let (events, _) = run(
        vec![faux_tool_call("c1", "bash", json!({"value": "exit 3"}))],
        StopReason::ToolUse,
        vec![failing.arc()],
        None,
    )
    .await;
    let mut end = ends(&events).remove(0);
    end.as_object_mut().unwrap().remove("durationMs");
    // json-badargs.new.jsonl, the bash call.
    assert_eq!(
        end,
        json!({"type": "tool_execution_end", "toolName": "bash",
            "result": {"content": [{"type": "text", "text": "(no output)\n\nCommand exited with code 3"}],
                "structuredContent": {"output": "", "truncated": false, "exit_code": 3, "wall_time_seconds": 0},
                "isError": true},
            "isError": true})
    );
    let message = events
        .iter()
        .find_map(|e| match e {
            AgentEvent::MessageEnd { message } => message.as_tool_result().cloned(),
            _ => None,
        })
        .unwrap();
    let message = serde_json::to_value(&message).unwrap();
    assert!(message.get("structuredContent").is_none(), "{message}");
    assert_eq!(message["isError"], true);
}

/// Replaces the content of every result.
struct Rewrite;

#[async_trait]
impl ToolHooks for Rewrite {
    async fn after_tool_call(
        &self,
        _call: AfterToolCall<'_>,
        _cancel: &CancellationToken,
    ) -> Result<Option<AfterToolCallOverride>, HookError> {
        Ok(Some(AfterToolCallOverride {
            content: Some(vec![ContentBlock::text("redacted")]),
            ..AfterToolCallOverride::default()
        }))
    }
}

#[tokio::test]
async fn structured_content_is_dropped_when_a_hook_replaces_the_content() {
    let tool = TestTool::new(
        "read",
        Arc::new(|_, _, _| {
            Box::pin(async move {
                Ok(ToolOutput {
                    structured_content: Some(json!("secret")),
                    ..ToolOutput::text("secret")
                })
            })
        }),
    );
    let (events, _) = run(
        vec![faux_tool_call("c1", "read", json!({"value": "x"}))],
        StopReason::ToolUse,
        vec![tool.arc()],
        Some(Arc::new(Rewrite)),
    )
    .await;
    assert_eq!(
        ends(&events)[0]["result"],
        json!({"content": [{"type": "text", "text": "redacted"}]})
    );
}

/// Records the context of every call.
struct ContextProbe {
    seen: Arc<Mutex<Vec<ToolContext>>>,
    schema: Value,
}

#[async_trait]
impl AgentTool for ContextProbe {
    fn name(&self) -> &str {
        "probe"
    }
    fn description(&self) -> &str {
        "records its context"
    }
    fn parameters(&self) -> &Value {
        &self.schema
    }
    async fn execute(
        &self,
        _id: &str,
        _args: Value,
        _cancel: CancellationToken,
        _updates: ToolUpdates,
    ) -> Result<ToolOutput, ToolError> {
        Err(ToolError::new("called without a context"))
    }
    async fn execute_in(
        &self,
        _id: &str,
        _args: Value,
        _cancel: CancellationToken,
        _updates: ToolUpdates,
        context: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        self.seen.lock().unwrap().push(context.clone());
        Ok(ToolOutput::text("ok"))
    }
}

#[tokio::test]
async fn every_call_gets_the_session_model_and_level_of_its_run() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let probe = Arc::new(ContextProbe {
        seen: seen.clone(),
        schema: json!({"type": "object", "properties": {}}),
    });
    let provider = faux();
    provider.push(faux_message(vec![faux_tool_call("c1", "probe", json!({}))]));
    provider.push(faux_message(vec![faux_text("final")]));
    let mut config = config(&provider);
    config.session_id = Some("s-1".into());
    config.session_file = Some(PathBuf::from("/sessions/s-1.jsonl"));
    config.reasoning = Some(ThinkingLevel::High);
    run_agent_loop(
        vec![user("go")],
        context(vec![probe]),
        &config,
        CancellationToken::new(),
        Recorder::default().sink(),
    )
    .await
    .unwrap();
    assert_eq!(
        *seen.lock().unwrap(),
        vec![ToolContext {
            session_id: Some("s-1".into()),
            session_file: Some(PathBuf::from("/sessions/s-1.jsonl")),
            model: Some(provider.model()),
            thinking_level: Some(ThinkingLevel::High),
        }]
    );
}
