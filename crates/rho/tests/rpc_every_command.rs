//! Every request with an `id` gets exactly one response carrying that `id`: every command with a
//! bad argument (or, without arguments, as it is), and an unknown one (issue 21).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;

use serde_json::{Value, json};

use crate::rpc_protocol::harness::{Rpc, workspace};

/// Each command of the protocol, with an argument of the wrong type where it takes any.
fn requests() -> Vec<Value> {
    let bad: &[(&str, Value)] = &[
        ("prompt", json!({"message": 5})),
        ("steer", json!({"message": []})),
        ("follow_up", json!({"message": null})),
        ("abort", json!({})),
        ("new_session", json!({"parentSession": 1})),
        ("get_state", json!({})),
        ("get_messages", json!({})),
        ("set_model", json!({"provider": 1, "modelId": 2})),
        ("cycle_model", json!({})),
        ("get_available_models", json!({})),
        ("set_thinking_level", json!({"level": 5})),
        ("get_available_thinking_levels", json!({})),
        ("clear_queue", json!({})),
        ("get_entries", json!({"since": 3})),
        ("get_tree", json!({})),
        ("cycle_thinking_level", json!({})),
        ("set_steering_mode", json!({"mode": "some"})),
        ("set_follow_up_mode", json!({"mode": 3})),
        ("compact", json!({"customInstructions": 9})),
        ("set_auto_compaction", json!({"enabled": "yes"})),
        ("set_auto_retry", json!({"enabled": 0})),
        ("abort_retry", json!({})),
        ("bash", json!({"command": false})),
        ("abort_bash", json!({})),
        ("get_session_stats", json!({})),
        ("export_html", json!({"outputPath": 4})),
        ("switch_session", json!({})),
        ("fork", json!({"entryId": 7})),
        ("clone", json!({})),
        ("get_fork_messages", json!({})),
        ("get_last_assistant_text", json!({})),
        ("set_session_name", json!({"name": 1})),
        ("get_commands", json!({})),
        ("no_such_command", json!({})),
    ];
    bad.iter()
        .map(|(name, fields)| {
            let mut request = fields.clone();
            request["type"] = json!(name);
            request["id"] = json!(format!("id-{name}"));
            request
        })
        .collect()
}

#[test]
fn every_command_with_a_bad_argument_and_an_unknown_one_get_exactly_one_response_with_their_id() {
    let (dir, script) = workspace("echo hi", "ok");
    let mut rpc = Rpc::start(dir.path(), &script);
    let requests = requests();
    // Every command of the protocol's enum is among them (a new command must join the list).
    let mut names: Vec<&str> = requests
        .iter()
        .filter_map(|r| r["type"].as_str())
        .filter(|name| *name != "no_such_command")
        .collect();
    names.sort_unstable();
    let mut all = rho_rpc::Command::NAMES.to_vec();
    all.sort_unstable();
    assert_eq!(names, all);
    for request in &requests {
        rpc.send(request.clone());
    }
    let mut seen: HashMap<String, Vec<Value>> = HashMap::new();
    while seen.len() < requests.len() {
        let line = rpc.next();
        if line["type"] == "response" {
            let id = line["id"].as_str().unwrap_or("<no id>").to_owned();
            seen.entry(id).or_default().push(line);
        }
    }
    // A last request answered after every other one: a second response to any of them would have
    // been written before it (each one is written once, whole, in the order it is decided).
    rpc.send(json!({"id": "last", "type": "get_commands"}));
    let (_, rest) = rpc.until(|line| line["id"] == "last");
    for line in rest.into_iter().filter(|l| l["type"] == "response") {
        let id = line["id"].as_str().unwrap_or("<no id>").to_owned();
        seen.entry(id).or_default().push(line);
    }
    for request in &requests {
        let id = request["id"].as_str().unwrap_or_default();
        let responses = seen.get(id).cloned().unwrap_or_default();
        assert_eq!(responses.len(), 1, "{id}: {responses:?}");
        assert_eq!(responses[0]["command"], request["type"], "{id}");
    }
    assert_eq!(seen.len(), requests.len(), "{seen:?}");
    let failed: Vec<&str> = requests
        .iter()
        .filter(|r| seen[r["id"].as_str().unwrap_or_default()][0]["success"] == false)
        .map(|r| r["type"].as_str().unwrap_or_default())
        .collect();
    // Every command that takes a field refused the bad one; so did the unknown command.
    for name in [
        "prompt",
        "steer",
        "follow_up",
        "new_session",
        "set_model",
        "set_thinking_level",
        "set_steering_mode",
        "set_follow_up_mode",
        "compact",
        "set_auto_compaction",
        "set_auto_retry",
        "bash",
        "get_entries",
        "export_html",
        "switch_session",
        "fork",
        "set_session_name",
        "no_such_command",
    ] {
        assert!(failed.contains(&name), "{name} accepted a bad argument");
    }
}
