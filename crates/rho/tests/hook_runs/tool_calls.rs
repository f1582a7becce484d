//! `PreToolUse` and `PostToolUse`: the seed's `beforeToolCall` and `afterToolCall` from a
//! script's exit code and JSON, the batch rules, rewritten input checked again, the gate still
//! in force, failures per `onError`, and what the stream, the session and `rho verify` say.

use serde_json::{Value, json};

use super::harness::{HookArena, call, command, group};

/// Claude Code's documented example of a Bash guard, unchanged: the event on stdin, exit 2
/// with the reason on stderr. It also logs what it was given.
fn claude_bash_guard(arena: &HookArena) -> String {
    let log = arena.base.join("guard.log");
    arena.script(
        "guard.py",
        &format!(
            r#"#!/usr/bin/env python3
import json, sys
data = json.load(sys.stdin)
with open({log:?}, "a") as f:
    f.write(json.dumps(data) + "\n")
command = data.get("tool_input", {{}}).get("command", "")
if "rm " in command:
    print("rm is not allowed here", file=sys.stderr)
    sys.exit(2)
sys.exit(0)
"#,
            log = log.display().to_string()
        ),
    )
}

/// `type:toolName` for the tool events, `type` for the others.
fn labelled(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .filter(|e| e["type"] != "message_update" && e["type"] != "session")
        .map(|e| match (e["type"].as_str(), e["toolName"].as_str()) {
            (Some(kind), Some(tool)) => format!("{kind}:{tool}"),
            (Some(kind), None) => match e["message"]["role"].as_str() {
                Some(role) => format!("{kind}:{role}"),
                None => kind.to_owned(),
            },
            _ => String::new(),
        })
        .collect()
}

#[test]
fn a_claude_style_guard_blocks_one_of_three_parallel_calls_and_the_run_goes_on() {
    let arena = HookArena::new();
    std::fs::write(arena.project.join("notes.txt"), "milk\n").unwrap();
    let guard = claude_bash_guard(&arena);
    arena.hooks(json!({"PreToolUse": [group(Some("Bash"), &[command(&guard)])]}));
    let run = arena.run(
        &[],
        "tidy up",
        vec![vec![
            call("read", json!({"path": "notes.txt"})),
            call("bash", json!({"command": "rm -rf build"})),
            call("ls", json!({})),
        ]],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let labels = labelled(&run.events);
    let batch_start = labels
        .iter()
        .position(|l| l == "tool_execution_start:read")
        .unwrap();
    // In source order: each call starts, the guard judges bash and its refusal ends at once;
    // read and ls run together, so their ends come in either order.
    assert_eq!(
        labels[..batch_start],
        [
            "agent_start",
            "turn_start",
            "message_start:system",
            "message_end:system",
            "message_start:user",
            "message_end:user",
            "message_start:assistant",
            "message_end:assistant",
        ]
    );
    assert_eq!(
        labels[batch_start..batch_start + 6],
        [
            "tool_execution_start:read",
            "tool_execution_start:bash",
            "hook_execution_start:bash",
            "hook_execution_end:bash",
            "tool_execution_end:bash",
            "tool_execution_start:ls",
        ]
    );
    let mut ends = labels[batch_start + 6..batch_start + 8].to_vec();
    ends.sort();
    assert_eq!(ends, ["tool_execution_end:ls", "tool_execution_end:read"]);
    assert_eq!(
        labels[batch_start + 8..],
        [
            "message_start:toolResult",
            "message_end:toolResult",
            "message_start:toolResult",
            "message_end:toolResult",
            "message_start:toolResult",
            "message_end:toolResult",
            "turn_end:assistant",
            "turn_start",
            "message_start:assistant",
            "message_end:assistant",
            "turn_end:assistant",
            "agent_end",
            "agent_settled",
        ]
    );
    let results = run.results();
    assert_eq!(
        results[1],
        ("bash".into(), "rm is not allowed here".into(), true, false)
    );
    assert_eq!(
        (results[0].1.as_str(), results[0].2, results[0].3),
        ("milk\n", false, true)
    );
    assert!(!results[2].2 && results[2].1.contains("notes.txt"));
    assert_eq!(run.settled()["reason"], "completed");

    // What the hook was given, in Claude Code's field names.
    let header = &run.events[0];
    let bash_id = run.of("tool_execution_start")[1]["toolCallId"].clone();
    let given: Value = serde_json::from_str(arena.read("guard.log").trim()).unwrap();
    assert_eq!(given["hook_event_name"], "PreToolUse");
    assert_eq!(given["tool_name"], "bash");
    assert_eq!(given["tool_input"], json!({"command": "rm -rf build"}));
    assert_eq!(given["tool_use_id"], bash_id);
    assert_eq!(given["session_id"], header["id"]);
    assert_eq!(given["cwd"], arena.project.display().to_string());
    assert_eq!(
        given["transcript_path"],
        run.session_file().display().to_string()
    );
    assert_eq!(given["permission_mode"], "workspace-write");

    // The stream and the session say which hook decided what.
    let end = run.of("hook_execution_end")[0];
    assert_eq!(end["hookEvent"], "PreToolUse");
    assert_eq!(end["command"], guard);
    assert_eq!(end["toolCallId"], bash_id);
    assert_eq!(
        (&end["decision"], &end["reason"], &end["exitCode"]),
        (&json!("block"), &json!("rm is not allowed here"), &json!(2))
    );
    assert!(end["durationMs"].is_u64());
    let recorded: Vec<Value> = run
        .entries()
        .into_iter()
        .filter(|e| e["type"] == "custom" && e["customType"] == "rho.hook")
        .collect();
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0]["data"]["toolCallId"], bash_id);
    assert_eq!(recorded[0]["data"]["decision"], "block");

    // `rho verify` names the call blocked by a hook, not failed, in the log and the file.
    let log = arena.base.join("run.jsonl");
    std::fs::write(&log, &run.stdout).unwrap();
    for input in [log, run.session_file()] {
        let verified = arena
            .rho()
            .arg("verify")
            .arg(&input)
            .arg("--json")
            .output()
            .unwrap();
        assert_eq!(verified.status.code(), Some(1));
        let report: Value = serde_json::from_slice(&verified.stdout).unwrap();
        assert_eq!(report["toolCalls"][1]["blockedByHook"], true, "{report}");
        assert_eq!(report["toolCalls"][0]["blockedByHook"], false);
        let problems = report["problems"].to_string();
        assert!(
            problems.contains(&format!(
                "the last tool batch has calls blocked by a hook: {} (bash)",
                bash_id.as_str().unwrap()
            )),
            "{problems}"
        );
        assert!(!problems.contains("has errors"), "{problems}");
    }
}

#[test]
fn blocking_every_call_with_terminate_ends_the_batch_without_another_model_call() {
    let arena = HookArena::new();
    let deny = arena.script(
        "deny.sh",
        "#!/bin/sh\ncat >/dev/null\necho '{\"decision\": \"block\", \"reason\": \"frozen\", \"terminate\": true}'\n",
    );
    arena.hooks(json!({"PreToolUse": [group(None, &[command(&deny)])]}));
    let calls = vec![
        call("read", json!({"path": "a"})),
        call("ls", json!({})),
        call("find", json!({"pattern": "*"})),
    ];
    let run = arena.run(&[], "go", vec![calls.clone()]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.kinds().iter().filter(|k| *k == "turn_start").count(), 1);
    assert!(
        run.results()
            .iter()
            .all(|(_, text, error, timed)| text == "frozen" && *error && !timed)
    );
    assert_eq!(run.settled()["reason"], "completed");

    // Without terminate, the model hears of the refusals and answers.
    let plain = arena.script(
        "plain.sh",
        "#!/bin/sh\necho '{\"decision\": \"block\", \"reason\": \"frozen\"}'\n",
    );
    arena.hooks(json!({"PreToolUse": [group(None, &[command(&plain)])]}));
    let run = arena.run(&[], "go", vec![calls]);
    assert_eq!(run.kinds().iter().filter(|k| *k == "turn_start").count(), 2);
    assert_eq!(run.results().len(), 3);
}

#[test]
fn updated_input_is_validated_and_gated_again_before_the_tool_runs() {
    let arena = HookArena::new();
    std::fs::write(arena.project.join("notes.txt"), "milk\n").unwrap();
    let rewrite = arena.script(
        "rewrite.py",
        r#"#!/usr/bin/env python3
import json, sys
data = json.load(sys.stdin)
path = data["tool_input"].get("path")
updated = {"draft.txt": {"path": "notes.txt"}, "bad.txt": {"limit": "many"},
           "escape.txt": {"path": "/etc/hostname"}}.get(path)
if updated is not None:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                      "permissionDecision": "allow", "updatedInput": updated}}))
"#,
    );
    arena.hooks(json!({"PreToolUse": [group(Some("Read"), &[command(&rewrite)])]}));
    let run = arena.run(
        &[],
        "read",
        vec![vec![
            call("read", json!({"path": "draft.txt"})),
            call("read", json!({"path": "bad.txt"})),
            call("read", json!({"path": "escape.txt"})),
        ]],
    );
    let results = run.results();
    assert_eq!(results[0], ("read".into(), "milk\n".into(), false, true));
    assert!(
        results[1].2
            && results[1]
                .1
                .starts_with("A PreToolUse hook's updatedInput is not valid for read:"),
        "{results:?}"
    );
    assert!(results[1].1.contains("limit"), "{}", results[1].1);
    assert!(
        results[2].2 && results[2].1.contains("/etc/hostname"),
        "{results:?}"
    );
    // The model's own arguments stay what the stream shows; the hook's change is on its end.
    assert_eq!(
        run.of("tool_execution_start")[0]["args"],
        json!({"path": "draft.txt"})
    );
    assert_eq!(
        run.of("hook_execution_end")[0]["updatedInput"],
        json!({"path": "notes.txt"})
    );
}

#[test]
fn allow_ask_and_deny_meet_the_rules_and_nobody_to_ask_is_a_refusal() {
    let arena = HookArena::new();
    std::fs::write(
        arena.rho_home.join("rules.toml"),
        "[[rule]]\ndecision = \"ask\"\nprefix = \"echo\"\n",
    )
    .unwrap();
    let decide = arena.script(
        "decide.py",
        r#"#!/usr/bin/env python3
import json, sys
command = json.load(sys.stdin)["tool_input"]["command"]
word = command.split()[1]
print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
      "permissionDecision": word, "permissionDecisionReason": "said " + word}}))
"#,
    );
    arena.hooks(json!({"PreToolUse": [group(Some("bash"), &[command(&decide)])]}));
    let run = arena.run(
        &[],
        "go",
        vec![vec![
            call("bash", json!({"command": "echo allow"})),
            call("bash", json!({"command": "echo ask"})),
            call("bash", json!({"command": "echo deny"})),
        ]],
    );
    let results = run.results();
    // allow: the ask rule's question is spared; the command runs.
    assert_eq!(results[0], ("bash".into(), "allow\n".into(), false, true));
    assert_eq!(
        results[1].1,
        "This bash call needs approval (a PreToolUse hook asks: said ask), and there is no one to ask, so it was refused."
    );
    assert_eq!((results[2].1.as_str(), results[2].2), ("said deny", true));
}

#[test]
fn a_failing_hook_follows_on_error_and_a_hanging_one_is_killed_with_its_group() {
    let arena = HookArena::new();
    let pids = arena.base.join("pids");
    let crash = arena.script("crash.sh", "#!/bin/sh\necho oops >&2\nexit 1\n");
    let garbage = arena.script("garbage.sh", "#!/bin/sh\necho '{not json'\n");
    let hang = arena.script(
        "hang.sh",
        &format!(
            "#!/bin/sh\nsleep 300 &\necho $! > {pids}\necho $$ >> {pids}\nwait\n",
            pids = pids.display()
        ),
    );
    let mut strict = command(&crash);
    strict["onError"] = json!("block");
    let mut short = command(&hang);
    short["timeout"] = json!(1);
    arena.hooks(json!({"PreToolUse": [
        group(Some("ls"), &[command(&crash), command(&garbage)]),
        group(Some("find"), &[strict]),
        group(Some("grep"), &[short]),
    ]}));
    let run = arena.run(
        &[],
        "go",
        vec![vec![
            call("ls", json!({})),
            call("find", json!({"pattern": "*"})),
            call("grep", json!({"pattern": "x"})),
        ]],
    );
    let results = run.results();
    assert!(!results[0].2, "{results:?}");
    assert_eq!(
        (results[1].1.as_str(), results[1].2),
        ("hook failed: it exited with code 1: oops", true)
    );
    assert!(
        !results[2].2,
        "a timeout with onError continue lets the call run"
    );
    let ends = run.of("hook_execution_end");
    let errors: Vec<&str> = ends.iter().filter_map(|e| e["error"].as_str()).collect();
    assert_eq!(errors.len(), 4, "{ends:?}");
    assert!(errors[1].starts_with("printed JSON that does not parse"));
    assert!(errors[3].starts_with("did not finish within its timeout"));
    assert_eq!(ends[3]["exitCode"], Value::Null);
    // The hook and the sleep it left behind are gone.
    for pid in arena.read("pids").lines() {
        let alive = std::path::Path::new(&format!("/proc/{pid}")).exists()
            && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .unwrap_or_default()
                .contains(") Z ");
        assert!(!alive, "process {pid} outlived its hook");
    }
}

#[test]
fn post_tool_use_turns_a_result_into_an_error_that_carries_the_reason_and_adds_context() {
    let arena = HookArena::new();
    std::fs::write(arena.project.join("notes.txt"), "milk\n").unwrap();
    let review = arena.script(
        "review.py",
        r#"#!/usr/bin/env python3
import json, sys
data = json.load(sys.stdin)
response = data["tool_response"]
if data["tool_name"] == "bash":
    print(json.dumps({"decision": "block", "reason": "that printed a secret"}))
else:
    text = response["content"][0]["text"].strip()
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PostToolUse",
          "additionalContext": "reviewed: " + text}}))
"#,
    );
    arena.hooks(json!({"PostToolUse": [group(Some("Bash|Read"), &[command(&review)])]}));
    let run = arena.run(
        &[],
        "go",
        vec![vec![
            call("read", json!({"path": "notes.txt"})),
            call("bash", json!({"command": "echo token"})),
        ]],
    );
    let results = run.results();
    assert_eq!(
        results[0],
        ("read".into(), "milk\n\nreviewed: milk".into(), false, true)
    );
    // The tool ran (its duration stays); its result is now an error the model sees.
    assert_eq!(
        results[1],
        (
            "bash".into(),
            "token\n\nPostToolUse hook: that printed a secret".into(),
            true,
            true
        )
    );
    // The two calls ran together: their ends come in either order.
    let ends = run.of("tool_execution_end");
    let bash_end = ends.iter().find(|e| e["toolName"] == "bash").unwrap();
    assert_eq!(bash_end["isError"], true);
}
