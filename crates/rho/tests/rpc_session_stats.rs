//! `get_session_stats` as Pi 1.6 answers it (rpc-compact.new.log): over every entry of the
//! session, compacted history and the summary call included, and with the context size unknown
//! (`null`) from a compaction until the next reply.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::{Value, json};

use crate::rpc_protocol::harness::Rpc;

/// The `input` tokens of every assistant `message_end` among `events`.
fn reply_inputs(events: &[Value]) -> u64 {
    events
        .iter()
        .filter(|e| e["type"] == "message_end" && e["message"]["role"] == "assistant")
        .map(|e| e["message"]["usage"]["input"].as_u64().unwrap())
        .sum()
}

#[test]
fn stats_count_the_whole_session_and_the_context_is_unknown_after_a_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.json");
    let turns = json!({"turns": [
        [{"type": "text", "text": "Running."}, {"type": "tool_call", "name": "bash", "arguments": {"command": "echo hi"}}],
        [{"type": "text", "text": "Done."}],
        [{"type": "text", "text": "## Goal\nSay hi."}],
        [{"type": "text", "text": "Again."}]
    ]});
    std::fs::write(&script, turns.to_string()).unwrap();
    let mut rpc = Rpc::start(dir.path(), &script);

    rpc.send(json!({"id": "p1", "type": "prompt", "message": "Hi"}));
    let (_, events) = rpc.until(|line| line["type"] == "agent_settled");
    let mut input = reply_inputs(&events);
    assert!(input > 0, "the faux model reports usage");
    let compacted = rpc.call(json!({"id": "c", "type": "compact"}));
    assert_eq!(compacted["success"], true, "{compacted}");
    input += compacted["data"]["usage"]["input"].as_u64().unwrap();
    let file = rpc.call(json!({"id": "s", "type": "get_state"}))["data"]["sessionFile"].clone();

    let stats = rpc.call(json!({"id": "st1", "type": "get_session_stats"}))["data"].clone();
    let keys: Vec<&str> = stats
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "sessionFile",
            "sessionId",
            "userMessages",
            "assistantMessages",
            "toolCalls",
            "toolResults",
            "totalMessages",
            "tokens",
            "cost",
            "contextUsage"
        ]
    );
    assert_eq!(stats["sessionFile"], file);
    // system, user, assistant (tool call), tool result, assistant: all still counted although
    // the context now starts from the summary.
    assert_eq!(
        [
            &stats["userMessages"],
            &stats["assistantMessages"],
            &stats["toolCalls"],
            &stats["toolResults"],
            &stats["totalMessages"]
        ],
        [&json!(1), &json!(2), &json!(1), &json!(1), &json!(5)]
    );
    assert_eq!(stats["tokens"]["input"], input);
    assert_eq!(
        stats["contextUsage"],
        json!({"tokens": null, "contextWindow": 128000, "percent": null})
    );

    rpc.send(json!({"id": "p2", "type": "prompt", "message": "Once more"}));
    let (_, events) = rpc.until(|line| line["type"] == "agent_settled");
    input += reply_inputs(&events);
    let stats = rpc.call(json!({"id": "st2", "type": "get_session_stats"}))["data"].clone();
    // The checkpoint kept the prompt: no new system message was needed.
    assert_eq!(
        [
            &stats["userMessages"],
            &stats["assistantMessages"],
            &stats["totalMessages"]
        ],
        [&json!(2), &json!(3), &json!(7)]
    );
    assert_eq!(stats["tokens"]["input"], input);
    assert!(
        stats["contextUsage"]["tokens"].as_u64().unwrap() > 0,
        "{stats}"
    );
}
