//! The JSON a program reads: event and message shapes of pi-reference §1 and §3 plus rho's
//! `durationMs`, and streaming of tool-call arguments (§10 items 2, 6, 20).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::{Arc, Mutex};

use common::*;
use rho_agent::{AgentEvent, ToolOutput, run_agent_loop};
use rho_ai::AssistantMessageEvent;
use rho_ai::faux::{faux_message, faux_text, faux_tool_call};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

async fn one_tool_run() -> Vec<Value> {
    let provider = faux().with_chunk_chars(4);
    provider.push(faux_message(vec![
        faux_text("Reading."),
        faux_tool_call("call_1", "echo", json!({"value": "abc"})),
    ]));
    provider.push(faux_message(vec![faux_text("Done.")]));
    let recorder = Recorder::default();
    run_agent_loop(
        vec![user("go")],
        context(vec![TestTool::echo("echo").arc()]),
        &config(&provider),
        CancellationToken::new(),
        recorder.sink(),
    )
    .await
    .unwrap();
    recorder
        .events()
        .iter()
        .map(|e| serde_json::to_value(e).unwrap())
        .collect()
}

fn strip_volatile(mut value: Value) -> Value {
    if let Some(object) = value.as_object_mut() {
        object.remove("timestamp");
        if object.contains_key("durationMs") {
            object.insert("durationMs".into(), json!("<ms>"));
        }
        for (_, child) in object.iter_mut() {
            *child = strip_volatile(child.take());
        }
    } else if let Some(array) = value.as_array_mut() {
        for child in array.iter_mut() {
            *child = strip_volatile(child.take());
        }
    }
    value
}

#[tokio::test]
async fn events_serialize_to_pi_shapes_with_rho_duration() {
    let events = one_tool_run().await;
    assert_eq!(events[0], json!({"type": "agent_start"}));
    assert_eq!(events[1], json!({"type": "turn_start"}));
    let tes = events
        .iter()
        .find(|e| e["type"] == "tool_execution_start")
        .unwrap();
    assert_eq!(
        *tes,
        json!({"type": "tool_execution_start", "toolCallId": "call_1", "toolName": "echo", "args": {"value": "abc"}})
    );
    let tee = events
        .iter()
        .find(|e| e["type"] == "tool_execution_end")
        .unwrap();
    assert_eq!(
        strip_volatile(tee.clone()),
        json!({
            "type": "tool_execution_end", "toolCallId": "call_1", "toolName": "echo",
            "result": {"content": [{"type": "text", "text": "echo: abc"}]},
            "isError": false, "durationMs": "<ms>"
        })
    );
    let result = events
        .iter()
        .find(|e| e["type"] == "message_end" && e["message"]["role"] == "toolResult")
        .unwrap();
    assert_eq!(
        strip_volatile(result["message"].clone()),
        json!({
            "role": "toolResult", "toolCallId": "call_1", "toolName": "echo",
            "content": [{"type": "text", "text": "echo: abc"}], "isError": false, "durationMs": "<ms>"
        })
    );
    let turn_end = events.iter().find(|e| e["type"] == "turn_end").unwrap();
    assert_eq!(turn_end["message"]["stopReason"], "toolUse");
    assert_eq!(turn_end["toolResults"][0]["toolCallId"], "call_1");
    let end = events.last().unwrap();
    assert_eq!(end["type"], "agent_end");
    assert_eq!(end["messages"].as_array().unwrap().len(), 4);
}

#[tokio::test]
async fn message_updates_are_only_deltas_and_carry_the_assistant_event() {
    let events = one_tool_run().await;
    let kinds: Vec<_> = events
        .iter()
        .filter(|e| e["type"] == "message_update")
        .map(|e| {
            e["assistantMessageEvent"]["type"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert!(kinds.iter().all(|k| k.starts_with("text_")
        || k.starts_with("thinking_")
        || k.starts_with("toolcall_")));
    let first_delta = events
        .iter()
        .find(|e| e["assistantMessageEvent"]["type"] == "text_delta")
        .unwrap();
    assert_eq!(first_delta["assistantMessageEvent"]["contentIndex"], 0);
    assert_eq!(first_delta["assistantMessageEvent"]["delta"], "Read");
    // Pi 1.6: the partial's usage, no cumulative message and no partial in the event.
    let keys: Vec<&str> = first_delta
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["type", "usage", "assistantMessageEvent"]);
    assert!(first_delta["usage"]["totalTokens"].is_u64());
    assert!(
        first_delta["assistantMessageEvent"]
            .get("partial")
            .is_none()
    );
}

#[tokio::test]
async fn streamed_tool_arguments_stay_empty_until_toolcall_end_in_the_faux_provider() {
    let provider = faux().with_chunk_chars(3);
    provider.push(faux_message(vec![faux_tool_call(
        "c1",
        "echo",
        json!({"value": "a long value"}),
    )]));
    provider.push(faux_message(vec![faux_text("ok")]));
    let recorder = Recorder::default();
    run_agent_loop(
        vec![user("go")],
        context(vec![TestTool::echo("echo").arc()]),
        &config(&provider),
        CancellationToken::new(),
        recorder.sink(),
    )
    .await
    .unwrap();
    let events = recorder.events();
    let mut deltas = String::new();
    for event in &events {
        if let AgentEvent::MessageUpdate {
            assistant_message_event: e,
            ..
        } = event
        {
            match e {
                AssistantMessageEvent::ToolCallDelta { delta, partial, .. } => {
                    deltas.push_str(delta);
                    assert_eq!(partial.tool_calls().next().unwrap().arguments, json!({}));
                }
                AssistantMessageEvent::ToolCallEnd { tool_call, .. } => {
                    assert_eq!(tool_call.arguments, json!({"value": "a long value"}));
                }
                _ => {}
            }
        }
    }
    assert!(events.iter().filter(|e| is_toolcall_delta(e)).count() > 1);
    assert_eq!(
        serde_json::from_str::<Value>(&deltas).unwrap(),
        json!({"value": "a long value"})
    );
}

#[tokio::test]
async fn in_parallel_mode_every_start_precedes_any_execution() {
    let provider = faux();
    provider.push(faux_message(vec![
        faux_tool_call("c1", "probe", json!({"value": "1"})),
        faux_tool_call("c2", "probe", json!({"value": "2"})),
        faux_tool_call("c3", "probe", json!({"value": "3"})),
    ]));
    provider.push(faux_message(vec![faux_text("ok")]));
    let recorder = Recorder::default();
    let events = recorder.events.clone();
    let starts_seen = Arc::new(Mutex::new(Vec::new()));
    let seen = starts_seen.clone();
    let probe = TestTool::new(
        "probe",
        Arc::new(move |_, _, _| {
            let starts = events
                .lock()
                .unwrap()
                .iter()
                .filter(|e| matches!(e, AgentEvent::ToolExecutionStart { .. }))
                .count();
            seen.lock().unwrap().push(starts);
            Box::pin(async { Ok(ToolOutput::text("ok")) })
        }),
    );
    run_agent_loop(
        vec![user("go")],
        context(vec![probe.arc()]),
        &config(&provider),
        CancellationToken::new(),
        recorder.sink(),
    )
    .await
    .unwrap();
    assert_eq!(*starts_seen.lock().unwrap(), vec![3, 3, 3]);
}
