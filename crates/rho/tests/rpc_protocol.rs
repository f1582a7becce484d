//! `rho --mode rpc` end to end: a real process, commands on its stdin, responses and events read
//! from its stdout (Pi's protocol, pi-reference §7.6).
#![allow(clippy::unwrap_used, clippy::expect_used)]

pub(crate) mod harness;

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use self::harness::{Rpc, failure, faux_model, response, workspace};

/// `/mcp` as Pi 1.6's `get_commands` lists it.
fn mcp_command() -> Value {
    json!({"name": "mcp",
           "description": "Manage MCP servers: sign in, reconnect, enable or disable, and change exposure",
           "source": "extension",
           "sourceInfo": {"path": "builtin:mcp", "source": "builtin", "scope": "temporary", "origin": "top-level"}})
}

#[test]
fn a_prompt_is_answered_on_acceptance_then_its_events_follow_and_the_run_settles() {
    let (dir, script) = workspace("echo hi", "It printed hi.");
    let mut rpc = Rpc::start(dir.path(), &script);
    rpc.send(json!({"id": "p1", "type": "prompt", "message": "Say hi"}));
    assert_eq!(
        rpc.next(),
        response("p1", "prompt", Some(json!({"disposition": "started"})))
    );
    assert_eq!(rpc.next()["type"], "agent_start");
    let (settled, events) = rpc.until(|line| line["type"] == "agent_settled");
    assert_eq!(settled["reason"], "completed");
    let types: Vec<&str> = events
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .filter(|t| !matches!(*t, "message_update" | "tool_execution_update"))
        .collect();
    assert_eq!(
        types,
        [
            "turn_start",
            "message_start",
            "message_end",
            "message_start",
            "message_end",
            "message_start",
            "message_end",
            "tool_execution_start",
            "tool_execution_end",
            "message_start",
            "message_end",
            "turn_end",
            "turn_start",
            "message_start",
            "message_end",
            "turn_end",
            "agent_end",
        ]
    );
    assert!(events.iter().all(|e| e.get("id").is_none()));
    assert_eq!(
        rpc.call(json!({"id": "t", "type": "get_last_assistant_text"})),
        response(
            "t",
            "get_last_assistant_text",
            Some(json!({"text": "It printed hi."}))
        )
    );
}

#[test]
fn every_state_model_and_queue_command_answers_as_pi_does() {
    let (dir, script) = workspace("echo hi", "It printed hi.");
    let mut rpc = Rpc::start(dir.path(), &script);
    let state = rpc.call(json!({"id": "s1", "type": "get_state"}));
    let session_id = state["data"]["sessionId"].as_str().unwrap().to_owned();
    assert_eq!(session_id.len(), 36);
    // A new session's file, named `<time>_<id>.jsonl`, is not written before its first prompt.
    let sessions = dir.path().join(".rho-home/sessions");
    let file_of = |state: &Value| {
        let file = state["data"]["sessionFile"].as_str().unwrap().to_owned();
        assert!(file.starts_with(sessions.to_str().unwrap()), "{file}");
        assert!(!std::path::Path::new(&file).exists());
        file
    };
    let idle_state =
        |id: &str, steering: &str, follow_up: &str, count: usize, session: &str, file: &str| {
            assert!(file.ends_with(&format!("_{session}.jsonl")), "{file}");
            response(
                id,
                "get_state",
                Some(json!({
                    "model": faux_model(), "thinkingLevel": "off", "isStreaming": false,
                    "isCompacting": false, "steeringMode": steering, "followUpMode": follow_up,
                    "sessionFile": file, "sessionId": session, "autoCompactionEnabled": true,
                    "messageCount": count, "pendingMessageCount": 0
                })),
            )
        };
    let file = file_of(&state);
    assert_eq!(
        state,
        idle_state(
            "s1",
            "one-at-a-time",
            "one-at-a-time",
            0,
            &session_id,
            &file
        )
    );
    let expectations = [
        (
            json!({"id": "a", "type": "get_available_models"}),
            response(
                "a",
                "get_available_models",
                Some(json!({"models": [faux_model()]})),
            ),
        ),
        (
            json!({"id": "b", "type": "set_model", "provider": "faux", "modelId": "faux-1"}),
            response("b", "set_model", Some(faux_model())),
        ),
        (
            json!({"id": "c", "type": "set_model", "provider": "nope", "modelId": "x"}),
            failure("c", "set_model", "Model not found: nope/x"),
        ),
        (
            json!({"id": "d", "type": "cycle_model"}),
            response("d", "cycle_model", Some(Value::Null)),
        ),
        (
            json!({"id": "e", "type": "set_thinking_level", "level": "high"}),
            response("e", "set_thinking_level", None),
        ),
        (
            json!({"id": "f", "type": "cycle_thinking_level"}),
            response("f", "cycle_thinking_level", Some(Value::Null)),
        ),
        (
            json!({"id": "g", "type": "set_steering_mode", "mode": "all"}),
            response("g", "set_steering_mode", None),
        ),
        (
            json!({"id": "h", "type": "set_follow_up_mode", "mode": "all"}),
            response("h", "set_follow_up_mode", None),
        ),
        (
            json!({"id": "i", "type": "set_auto_retry", "enabled": false}),
            response("i", "set_auto_retry", None),
        ),
        (
            json!({"id": "j", "type": "abort_retry"}),
            response("j", "abort_retry", None),
        ),
        (
            json!({"id": "k", "type": "abort_bash"}),
            response("k", "abort_bash", None),
        ),
        (
            json!({"id": "l", "type": "get_commands"}),
            // Pi 1.6's built-in MCP extension lists `/mcp` (its `llama` command has no rho
            // counterpart).
            response(
                "l",
                "get_commands",
                Some(json!({"commands": [mcp_command()]})),
            ),
        ),
        (
            json!({"id": "m", "type": "get_messages"}),
            response("m", "get_messages", Some(json!({"messages": []}))),
        ),
        (
            json!({"id": "n", "type": "get_last_assistant_text"}),
            response("n", "get_last_assistant_text", Some(json!({}))),
        ),
        (
            json!({"id": "o", "type": "abort"}),
            response("o", "abort", None),
        ),
    ];
    for (command, expected) in expectations {
        assert_eq!(rpc.call(command), expected);
    }
    // The faux model does not reason: "high" was clamped to "off", so no level change was said;
    // the modes stuck, and set_auto_retry kept the session.
    assert_eq!(
        rpc.call(json!({"id": "s2", "type": "get_state"})),
        idle_state("s2", "all", "all", 0, &session_id, &file)
    );
    // As Pi's settings manager: the model, the modes and the switches a client chose are the
    // next run's defaults; the level did not change, so it was not written.
    let settings: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join(".rho-home/settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        settings,
        json!({
            "defaultProvider": "faux", "defaultModel": "faux-1",
            "steeringMode": "all", "followUpMode": "all", "retry": {"enabled": false}
        })
    );
    let stats = rpc.call(json!({"id": "st", "type": "get_session_stats"}));
    assert_eq!(
        stats,
        response(
            "st",
            "get_session_stats",
            // Pi 1.6 names the file before it is written (its SessionManager picks the path
            // when the session starts).
            Some(json!({
                "sessionFile": file,
                "sessionId": session_id, "userMessages": 0, "assistantMessages": 0,
                "toolCalls": 0, "toolResults": 0, "totalMessages": 0,
                "tokens": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
                "cost": 0,
                "contextUsage": {"tokens": 0, "contextWindow": 128000, "percent": 0}
            }))
        )
    );
    // Queued while idle: both wait for the next prompt.
    assert_eq!(
        rpc.call(json!({"id": "q1", "type": "steer", "message": "first this"})),
        response("q1", "steer", Some(json!({"disposition": "queued"})))
    );
    assert_eq!(
        rpc.call(json!({"id": "q2", "type": "follow_up", "message": "then that"})),
        response("q2", "follow_up", Some(json!({"disposition": "queued"})))
    );
    assert_eq!(
        rpc.call(json!({"id": "s3", "type": "get_state"}))["data"]["pendingMessageCount"],
        2
    );
    // Pi 1.6's clear_queue: the queues are said empty, then the removed texts are answered.
    rpc.send(json!({"id": "cq", "type": "clear_queue"}));
    assert_eq!(
        rpc.next(),
        json!({"type": "queue_update", "steering": [], "followUp": []})
    );
    assert_eq!(
        rpc.next(),
        response(
            "cq",
            "clear_queue",
            Some(json!({"steering": ["first this"], "followUp": ["then that"]}))
        )
    );
    assert_eq!(
        rpc.call(json!({"id": "s3b", "type": "get_state"}))["data"]["pendingMessageCount"],
        0
    );
    // The faux model does not reason: only `off`; any level name clamps to it.
    assert_eq!(
        rpc.call(json!({"id": "tl", "type": "get_available_thinking_levels"})),
        response(
            "tl",
            "get_available_thinking_levels",
            Some(json!({"levels": ["off"]}))
        )
    );
    assert_eq!(
        rpc.call(json!({"id": "tb", "type": "set_thinking_level", "level": "bogus"})),
        response("tb", "set_thinking_level", None)
    );
    // Before any prompt the entries are the start entries Pi writes and the `set_model` above;
    // the tree chains them.
    let entries = rpc.call(json!({"id": "ge", "type": "get_entries"}));
    let kinds: Vec<&str> = entries["data"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["model_change", "thinking_level_change", "model_change"]
    );
    let leaf = entries["data"]["leafId"].clone();
    assert_eq!(leaf, entries["data"]["entries"][2]["id"]);
    let first = entries["data"]["entries"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let later = rpc.call(json!({"id": "ge2", "type": "get_entries", "since": first}));
    assert_eq!(later["data"]["entries"].as_array().unwrap().len(), 2);
    assert_eq!(
        rpc.call(json!({"id": "ge3", "type": "get_entries", "since": "nope"})),
        failure("ge3", "get_entries", "Entry not found: nope")
    );
    let tree = rpc.call(json!({"id": "gt", "type": "get_tree"}));
    assert_eq!(tree["data"]["leafId"], leaf);
    assert_eq!(tree["data"]["tree"][0]["entry"]["id"], first.as_str());
    assert_eq!(
        tree["data"]["tree"][0]["children"][0]["children"][0]["entry"]["id"],
        leaf
    );
    let fresh = rpc.call(json!({"id": "ns", "type": "new_session"}));
    assert_eq!(
        fresh,
        response("ns", "new_session", Some(json!({"cancelled": false})))
    );
    let state = rpc.call(json!({"id": "s4", "type": "get_state"}));
    let new_id = state["data"]["sessionId"].as_str().unwrap().to_owned();
    assert_ne!(new_id, session_id);
    let new_file = file_of(&state);
    assert_eq!(state, idle_state("s4", "all", "all", 0, &new_id, &new_file));
}

#[test]
fn session_commands_before_the_first_prompt_give_pis_errors() {
    let (dir, script) = workspace("echo hi", "ok");
    let mut rpc = Rpc::start(dir.path(), &script);
    let cases = [
        (
            json!({"id": "3", "type": "export_html"}),
            failure(
                "3",
                "export_html",
                "Nothing to export yet - start a conversation first",
            ),
        ),
        (
            json!({"id": "5", "type": "fork", "entryId": "abc"}),
            failure("5", "fork", "Invalid entry ID for forking"),
        ),
        (
            json!({"id": "6", "type": "clone"}),
            failure(
                "6",
                "clone",
                "Cannot clone session: no current entry selected",
            ),
        ),
        (
            json!({"id": "7", "type": "get_fork_messages"}),
            response("7", "get_fork_messages", Some(json!({"messages": []}))),
        ),
    ];
    for (command, expected) in cases {
        assert_eq!(rpc.call(command), expected);
    }
    assert_eq!(
        rpc.call(json!({"id": "9", "type": "set_session_name", "name": "  "})),
        failure("9", "set_session_name", "Session name cannot be empty")
    );
}

#[test]
fn compact_summarises_on_request_and_auto_compaction_can_be_switched_off() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.json");
    let summary = "## Goal\nGreet the user.";
    let turns = json!({"turns": [
        [{"type": "text", "text": "Hello there."}],
        [{"type": "text", "text": summary}]
    ]});
    std::fs::write(&script, turns.to_string()).unwrap();
    let mut rpc = Rpc::start(dir.path(), &script);

    rpc.send(json!({"id": "c0", "type": "compact"}));
    let (refused, events) = rpc.until(|line| line["type"] == "response");
    assert_eq!(
        refused,
        failure("c0", "compact", "Nothing to compact (session too small)")
    );
    assert_eq!(
        events,
        [
            json!({"type": "compaction_start", "reason": "manual"}),
            json!({"type": "compaction_end", "reason": "manual", "aborted": false, "willRetry": false,
                   "errorMessage": "Compaction failed: Nothing to compact (session too small)"}),
        ]
    );
    assert_eq!(
        rpc.call(json!({"id": "a", "type": "set_auto_compaction", "enabled": false})),
        response("a", "set_auto_compaction", None)
    );
    let state = rpc.call(json!({"id": "s", "type": "get_state"}));
    assert_eq!(
        (
            &state["data"]["autoCompactionEnabled"],
            &state["data"]["isCompacting"]
        ),
        (&json!(false), &json!(false))
    );

    rpc.send(json!({"id": "p", "type": "prompt", "message": "Hi"}));
    rpc.until(|line| line["type"] == "agent_settled");
    rpc.send(json!({"id": "c1", "type": "compact", "customInstructions": "the greeting"}));
    let (done, events) = rpc.until(|line| line["type"] == "response");
    assert_eq!(done["success"], true, "{done}");
    let result = &done["data"];
    assert_eq!(result["summary"], summary);
    assert_eq!(
        result["details"],
        json!({"readFiles": [], "modifiedFiles": []})
    );
    assert!(result["tokensBefore"].as_u64().unwrap() > 0);
    assert_eq!(result["firstKeptEntryId"].as_str().unwrap().len(), 8);
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["compaction_start", "compaction_end"]);
    assert_eq!(events[1]["result"], *result);
    // Pi 1.6's result (rpc-compact.new.log): the estimate of the rebuilt context and the
    // summary call's usage come before details.
    let keys = keys_of(result);
    assert_eq!(
        keys,
        [
            "summary",
            "firstKeptEntryId",
            "tokensBefore",
            "estimatedTokensAfter",
            "usage",
            "details"
        ]
    );
    let messages = rpc.call(json!({"id": "m", "type": "get_messages"}));
    let messages = messages["data"]["messages"].as_array().unwrap();
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    // The checkpoint of the system prompt leads, then the summary (Pi's buildSessionContext).
    assert_eq!(roles, ["system", "compactionSummary", "user", "assistant"]);
    let after: u64 = messages
        .iter()
        .map(|m| rho_host::compaction::estimate_tokens(&serde_json::from_value(m.clone()).unwrap()))
        .sum();
    assert_eq!(result["estimatedTokensAfter"], after);
    let state = rpc.call(json!({"id": "s2", "type": "get_state"}));
    let file = std::fs::read_to_string(state["data"]["sessionFile"].as_str().unwrap()).unwrap();
    let entry: Value = file
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e["type"] == "compaction")
        .unwrap();
    let keys = keys_of(&entry);
    assert_eq!(
        keys,
        [
            "type",
            "id",
            "parentId",
            "timestamp",
            "summary",
            "firstKeptEntryId",
            "tokensBefore",
            "details",
            "usage",
            "fromHook",
            "systemMessage"
        ]
    );
    assert_eq!(entry["usage"], result["usage"]);
    let checkpoint = &entry["systemMessage"];
    assert_eq!(
        (&checkpoint["sections"], &checkpoint["toolsAdded"]),
        (&messages[0]["sections"], &messages[0]["toolsAdded"])
    );
}

#[test]
fn a_malformed_line_an_unknown_command_and_a_missing_field_get_errors_and_serving_goes_on() {
    let (dir, script) = workspace("echo hi", "ok");
    let mut rpc = Rpc::start(dir.path(), &script);
    rpc.send_raw("{not json");
    assert_eq!(
        rpc.next(),
        json!({"type": "response", "command": "parse", "success": false,
               "error": "Failed to parse command: key must be a string at line 1 column 2"})
    );
    rpc.send(json!({"id": "u", "type": "launch_rockets"}));
    // As Pi 1.6: an unknown command's response carries its id (0.73.1 dropped it).
    assert_eq!(
        rpc.next(),
        json!({"id": "u", "type": "response", "command": "launch_rockets", "success": false,
               "error": "Unknown command: launch_rockets"})
    );
    rpc.send(json!({"id": "m", "type": "set_model", "modelId": "faux-1"}));
    assert_eq!(
        rpc.next(),
        failure(
            "m",
            "set_model",
            "Invalid set_model command: missing field `provider`"
        )
    );
    rpc.send(json!({"id": 7, "type": "prompt"}));
    assert_eq!(
        rpc.next(),
        json!({"id": 7, "type": "response", "command": "prompt", "success": false,
               "error": "Invalid prompt command: missing field `message`"})
    );
    rpc.send_raw("{\"id\":\"crlf\",\"type\":\"get_commands\"}\r");
    assert_eq!(
        rpc.next(),
        response(
            "crlf",
            "get_commands",
            Some(json!({"commands": [mcp_command()]}))
        )
    );
}

#[test]
fn a_prompt_while_streaming_is_refused_without_streaming_behavior_and_queued_with_it() {
    let (dir, script) = workspace("sleep 5", "unused");
    let mut rpc = Rpc::start(dir.path(), &script);
    rpc.send(json!({"id": "p1", "type": "prompt", "message": "Wait"}));
    rpc.until(|line| line["type"] == "tool_execution_start");
    assert_eq!(
        rpc.call(json!({"id": "p2", "type": "prompt", "message": "Again"})),
        failure(
            "p2",
            "prompt",
            "Agent is already processing. Specify streamingBehavior ('steer' or 'followUp') to queue the message."
        )
    );
    rpc.send(
        json!({"id": "p3", "type": "prompt", "message": "Steer", "streamingBehavior": "steer"}),
    );
    assert_eq!(
        rpc.next(),
        json!({"type": "queue_update", "steering": ["Steer"], "followUp": []})
    );
    assert_eq!(
        rpc.next(),
        response("p3", "prompt", Some(json!({"disposition": "queued"})))
    );
    rpc.send(
        json!({"id": "p4", "type": "prompt", "message": "Later", "streamingBehavior": "followUp"}),
    );
    assert_eq!(
        rpc.next(),
        json!({"type": "queue_update", "steering": ["Steer"], "followUp": ["Later"]})
    );
    assert_eq!(
        rpc.next(),
        response("p4", "prompt", Some(json!({"disposition": "queued"})))
    );
    let state = rpc.call(json!({"id": "s", "type": "get_state"}));
    assert_eq!(state["data"]["isStreaming"], true);
    assert_eq!(state["data"]["pendingMessageCount"], 2);
    assert_eq!(
        rpc.call(json!({"id": "a", "type": "abort"})),
        response("a", "abort", None)
    );
}

#[test]
fn abort_during_a_tool_ends_the_run_at_once() {
    let (dir, script) = workspace("sleep 5", "unused");
    let mut rpc = Rpc::start(dir.path(), &script);
    rpc.send(json!({"id": "p", "type": "prompt", "message": "Wait"}));
    rpc.until(|line| line["type"] == "tool_execution_start");
    let started = Instant::now();
    rpc.send(json!({"id": "a", "type": "abort"}));
    let (abort, events) = rpc.until(|line| line["type"] == "response");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "abort took {:?}",
        started.elapsed()
    );
    assert_eq!(abort, response("a", "abort", None));
    // Pi 1.6: the abort is answered after the prompt settled.
    let settled = events.last().unwrap();
    assert_eq!(settled["type"], "agent_settled");
    assert_eq!(settled["aborted"], true);
    let end = events
        .iter()
        .find(|e| e["type"] == "tool_execution_end")
        .unwrap();
    assert_eq!(end["isError"], true);
    assert_eq!(end["result"]["content"][0]["text"], "Command aborted");
    let tail: Vec<&str> = events[events.len() - 2..]
        .iter()
        .map(|e| e["type"].as_str().unwrap())
        .collect();
    assert_eq!(tail, ["agent_end", "agent_settled"]);
    assert_eq!(events.last().unwrap()["reason"], "aborted");
}

#[test]
fn a_user_command_sees_no_stale_session_variables_and_knows_it_runs_under_an_agent() {
    let (dir, script) = workspace("echo hi", "ok");
    let script = script.to_string_lossy().into_owned();
    let mut rpc = Rpc::start_with_env(
        dir.path(),
        &dir.path().join(".rho-home"),
        &["--faux-script", &script],
        &[("PI_SESSION_ID", "stale"), ("PI_MODEL", "stale")],
    );
    let answer = rpc.call(json!({"id": "b", "type": "bash",
        "command": "echo \"$AI_AGENT ${PI_SESSION_ID-none} ${PI_MODEL-none}\""}));
    assert_eq!(answer["data"]["output"], "rho none none\n");
}

#[test]
fn bash_runs_a_user_command_records_it_before_the_next_prompt_and_abort_bash_stops_it() {
    let (dir, script) = workspace("echo hi", "ok");
    let mut rpc = Rpc::start(dir.path(), &script);
    // Pi 1.6: the output streams as `bash_execution_update` events with the request's id, each
    // before the answer; `excludeFromContext` follows the timestamp in the message.
    rpc.send(
        json!({"id": "b", "type": "bash", "command": "echo out; echo err >&2; exit 3",
                    "excludeFromContext": false}),
    );
    let (answer, updates) = rpc.until(|line| line["type"] == "response");
    assert_eq!(
        answer,
        response(
            "b",
            "bash",
            Some(
                json!({"output": "out\nerr\n", "exitCode": 3, "cancelled": false, "truncated": false})
            )
        )
    );
    assert!(!updates.is_empty());
    let streamed: String = updates
        .iter()
        .map(|u| {
            assert_eq!(u["type"], "bash_execution_update");
            assert_eq!(u["id"], "b");
            u["delta"].as_str().unwrap()
        })
        .collect();
    assert_eq!(streamed, "out\nerr\n");
    let messages = rpc.call(json!({"id": "m", "type": "get_messages"}));
    let message = &messages["data"]["messages"][0];
    assert_eq!(
        message,
        &json!({
            "role": "bashExecution", "command": "echo out; echo err >&2; exit 3",
            "output": "out\nerr\n", "exitCode": 3, "cancelled": false, "truncated": false,
            "timestamp": message["timestamp"], "excludeFromContext": false
        })
    );
    let keys = keys_of(message);
    assert_eq!(keys.last(), Some(&"excludeFromContext"));
    rpc.send(json!({"id": "b2", "type": "bash", "command": "sleep 5"}));
    let started = Instant::now();
    rpc.send(json!({"id": "ab", "type": "abort_bash"}));
    assert_eq!(rpc.next(), response("ab", "abort_bash", None));
    assert_eq!(
        rpc.next(),
        response(
            "b2",
            "bash",
            Some(json!({"output": "", "cancelled": true, "truncated": false}))
        )
    );
    assert!(started.elapsed() < Duration::from_secs(3));
    rpc.send(json!({"id": "p", "type": "prompt", "message": "What ran?"}));
    rpc.until(|line| line["type"] == "agent_settled");
    let messages = rpc.call(json!({"id": "m2", "type": "get_messages"}));
    let roles: Vec<&str> = messages["data"]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(
        roles,
        [
            "bashExecution",
            "bashExecution",
            "system",
            "user",
            "assistant",
            "toolResult",
            "assistant"
        ]
    );
}

#[test]
fn eof_on_stdin_ends_the_process_with_exit_code_0_even_mid_run() {
    let (dir, script) = workspace("sleep 5", "unused");
    let mut rpc = Rpc::start(dir.path(), &script);
    rpc.send(json!({"id": "p", "type": "prompt", "message": "Wait"}));
    rpc.until(|line| line["type"] == "tool_execution_start");
    let started = Instant::now();
    let status = rpc.close_stdin_and_wait(Duration::from_secs(10));
    assert_eq!(status.code(), Some(0));
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "exit took {:?}",
        started.elapsed()
    );
}

#[test]
fn sigterm_and_sighup_end_the_process_with_143_and_129() {
    for (signal, code) in [("TERM", 143), ("HUP", 129)] {
        let (dir, script) = workspace("sleep 5", "unused");
        let mut rpc = Rpc::start(dir.path(), &script);
        rpc.send(json!({"id": "p", "type": "prompt", "message": "Wait"}));
        rpc.until(|line| line["type"] == "tool_execution_start");
        rpc.signal(signal);
        let status = rpc.wait_for_exit(Duration::from_secs(10));
        assert_eq!(status.code(), Some(code), "after SIG{signal}");
    }
}

/// A JSON object's keys, in the order written.
fn keys_of(object: &Value) -> Vec<&str> {
    object
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect()
}
