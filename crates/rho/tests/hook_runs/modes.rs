//! Hooks where users meet them: the requests the model receives over real HTTP, `ask` over
//! RPC's extension UI, `PreCompact` blocking a compaction, project hooks only in a trusted
//! project (after the global ones), and broken configuration said once.

use serde_json::{Value, json};

use super::harness::{HookArena, command, group};
use crate::interactive_support::{Mock, answer, tool_call};
use crate::rpc_protocol::harness::Rpc;

fn mock_provider(arena: &HookArena, mock: &Mock) {
    let providers = json!({"providers": {"mock": {
        "baseUrl": format!("{}/v1", mock.server.base_url()),
        "api": "openai-completions",
        "apiKey": "sk-test",
        "models": [{"id": "a"}]
    }}});
    std::fs::write(arena.rho_home.join("models.json"), providers.to_string()).unwrap();
}

#[test]
fn the_model_receives_the_refusal_the_added_context_and_the_rewritten_input() {
    let arena = HookArena::new();
    std::fs::write(arena.project.join("notes.txt"), "milk\n").unwrap();
    let mock = Mock::start(vec![
        tool_call("c1", "bash", json!({"command": "rm -rf /"})),
        tool_call("c2", "read", json!({"path": "draft.txt"})),
        answer("done"),
    ]);
    mock_provider(&arena, &mock);
    let pre = arena.script(
        "pre.py",
        r#"#!/usr/bin/env python3
import json, sys
data = json.load(sys.stdin)
if data["tool_name"] == "bash":
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
          "permissionDecision": "deny", "permissionDecisionReason": "not on this machine"}}))
else:
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
          "updatedInput": {"path": "notes.txt"}}}))
"#,
    );
    let post = arena.script(
        "post.sh",
        "#!/bin/sh\necho '{\"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", \"additionalContext\": \"the list is from Monday\"}}'\n",
    );
    let prompt = arena.script("prompt.sh", "#!/bin/sh\necho 'the user is in Lisbon'\n");
    arena.hooks(json!({
        "PreToolUse": [group(None, &[command(&pre)])],
        "PostToolUse": [group(Some("Read"), &[command(&post)])],
        "UserPromptSubmit": [group(None, &[command(&prompt)])],
    }));
    let output = arena
        .rho()
        .args([
            "-p",
            "--no-session",
            "--model",
            "mock/a",
            "what is on my list?",
        ])
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "done\n",
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let bodies = mock.bodies();
    assert_eq!(bodies.len(), 3);
    let first = &bodies[0]["messages"];
    let user = first.as_array().unwrap().last().unwrap();
    assert_eq!(
        user["content"],
        json!([
            {"type": "text", "text": "what is on my list?"},
            {"type": "text", "text": "the user is in Lisbon"}
        ])
    );
    let second = bodies[1]["messages"].as_array().unwrap();
    let refusal = second.last().unwrap();
    assert_eq!(
        (
            &refusal["role"],
            &refusal["tool_call_id"],
            &refusal["content"]
        ),
        (&json!("tool"), &json!("c1"), &json!("not on this machine"))
    );
    let third = bodies[2]["messages"].as_array().unwrap();
    let read = third.last().unwrap();
    assert_eq!(read["tool_call_id"], "c2");
    assert_eq!(read["content"], "milk\n\nthe list is from Monday");
}

#[test]
fn ask_over_rpc_is_a_confirm_request_and_the_answer_decides() {
    let arena = HookArena::new();
    let ask = arena.script(
        "ask.sh",
        "#!/bin/sh\necho '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"ask\", \"permissionDecisionReason\": \"it writes\"}}'\n",
    );
    arena.hooks(json!({"PreToolUse": [group(Some("bash"), &[command(&ask)])]}));
    let script = arena.base.join("rpc.json");
    let turns = json!({"turns": [
        [{"type": "tool_call", "name": "bash", "arguments": {"command": "echo yes"}}],
        [{"type": "tool_call", "name": "bash", "arguments": {"command": "echo no"}}],
        [{"type": "text", "text": "ok"}]
    ]});
    std::fs::write(&script, turns.to_string()).unwrap();
    let mut rpc = Rpc::start_with(
        &arena.project,
        &arena.rho_home,
        &["--no-session", "--faux-script", script.to_str().unwrap()],
    );
    rpc.send(json!({"id": "p", "type": "prompt", "message": "go"}));
    for (answer, expected) in [(true, ("yes", false)), (false, ("", true))] {
        let (question, _) = rpc.until(|l| l["type"] == "extension_ui_request");
        assert_eq!(question["method"], "confirm");
        assert_eq!(question["title"], "Allow this bash command?");
        assert!(
            question["message"]
                .as_str()
                .unwrap()
                .ends_with("a PreToolUse hook asks: it writes"),
            "{question}"
        );
        rpc.send(
            json!({"type": "extension_ui_response", "id": question["id"], "confirmed": answer}),
        );
        let (end, _) = rpc.until(|l| l["type"] == "tool_execution_end");
        let text = end["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert_eq!(end["isError"], expected.1, "{end}");
        if expected.1 {
            assert_eq!(
                text,
                "The user did not approve this bash call (a PreToolUse hook asks: it writes)."
            );
        } else {
            assert_eq!(text.trim(), expected.0);
        }
    }
    rpc.until(|l| l["type"] == "agent_settled");
}

#[test]
fn a_pre_compact_hook_blocks_the_compaction_it_is_asked_about() {
    let arena = HookArena::new();
    let log = arena.base.join("compact.json");
    let hold = arena.script(
        "hold.sh",
        &format!(
            "#!/bin/sh\ncat > {}\necho 'keep every detail' >&2\nexit 2\n",
            log.display()
        ),
    );
    arena.hooks(json!({"PreCompact": [group(Some("manual"), &[command(&hold)])]}));
    let script = arena.base.join("rpc.json");
    std::fs::write(
        &script,
        json!({"turns": [], "fallback": [{"type": "text", "text": "ok"}]}).to_string(),
    )
    .unwrap();
    let mut rpc = Rpc::start_with(
        &arena.project,
        &arena.rho_home,
        &["--no-session", "--faux-script", script.to_str().unwrap()],
    );
    rpc.send(json!({"id": "p", "type": "prompt", "message": "hello"}));
    rpc.until(|l| l["type"] == "agent_settled");
    rpc.send(json!({"id": "c", "type": "compact", "customInstructions": "be brief"}));
    let (response, seen) = rpc.until(|l| l["type"] == "response" && l["id"] == "c");
    assert_eq!(response["success"], false, "{response}");
    assert_eq!(
        response["error"],
        "Compaction blocked by a PreCompact hook: keep every detail"
    );
    let kinds: Vec<&str> = seen.iter().filter_map(|l| l["type"].as_str()).collect();
    assert!(
        kinds.contains(&"hook_execution_end") && kinds.contains(&"compaction_end"),
        "{kinds:?}"
    );
    let given: Value = serde_json::from_str(&arena.read("compact.json")).unwrap();
    assert_eq!(
        (&given["trigger"], &given["custom_instructions"]),
        (&json!("manual"), &json!("be brief"))
    );
}

#[test]
fn project_hooks_run_only_in_a_trusted_project_after_the_global_ones() {
    let arena = HookArena::new();
    let log = arena.base.join("order.log");
    let mark = |name: &str| {
        arena.script(
            &format!("{name}.sh"),
            &format!(
                "#!/bin/sh\ncat >/dev/null\necho {name} >> {}\n",
                log.display()
            ),
        )
    };
    let (global, project) = (mark("global"), mark("project"));
    arena.hooks(json!({"UserPromptSubmit": [group(None, &[command(&global)])]}));
    let dot = arena.project.join(".rho");
    std::fs::create_dir_all(&dot).unwrap();
    let project_settings =
        json!({"hooks": {"UserPromptSubmit": [group(None, &[command(&project)])]}});
    std::fs::write(dot.join("settings.json"), project_settings.to_string()).unwrap();

    let run = arena.run(&[], "hi", vec![]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(arena.read("order.log"), "global\n");
    assert!(run.stderr.contains(".rho/settings.json"), "{}", run.stderr);

    std::fs::remove_file(&log).unwrap();
    let run = arena.run(&["--approve"], "hi", vec![]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let ends: Vec<&str> = run
        .of("hook_execution_end")
        .iter()
        .map(|e| e["command"].as_str().unwrap())
        .collect();
    assert_eq!(ends, [global.as_str(), project.as_str()]);
}

#[test]
fn broken_hook_settings_are_said_once_and_the_valid_hooks_still_run() {
    let arena = HookArena::new();
    let ok = arena.script("ok.sh", "#!/bin/sh\necho 'context from ok'\n");
    arena.hooks(json!({
        "UserPromptSubmit": [
            group(Some("(unclosed"), &[command(&ok)]),
            group(None, &[json!({"type": "prompt", "prompt": "judge"}), command(&ok)]),
        ],
        "OnEverything": [],
    }));
    let run = arena.run(&[], "hi", vec![]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.user_texts(), [["hi", "context from ok"]]);
    let warnings: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(warnings.len(), 3, "{}", run.stderr);
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("hooks.OnEverything is not an event"))
    );
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("\"(unclosed\" is not a regular expression"))
    );
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("rho runs only \"command\" hooks"))
    );
}

#[test]
fn session_end_runs_for_the_session_a_switch_replaces_and_for_the_last_at_exit() {
    let arena = HookArena::new();
    let log = arena.base.join("ends.log");
    let end = arena.script(
        "end.py",
        &format!(
            r#"#!/usr/bin/env python3
import json, sys
data = json.load(sys.stdin)
with open({log:?}, "a") as f:
    f.write(data["reason"] + " " + data["session_id"] + "\n")
"#,
            log = log.display().to_string()
        ),
    );
    arena.hooks(json!({"SessionEnd": [group(None, &[command(&end)])]}));
    let script = arena.base.join("rpc.json");
    std::fs::write(
        &script,
        json!({"turns": [], "fallback": [{"type": "text", "text": "ok"}]}).to_string(),
    )
    .unwrap();
    let sessions = arena.base.join("sessions");
    let mut rpc = Rpc::start_with(
        &arena.project,
        &arena.rho_home,
        &[
            "--session-dir",
            sessions.to_str().unwrap(),
            "--faux-script",
            script.to_str().unwrap(),
        ],
    );
    let first = rpc.call(json!({"id": "s1", "type": "get_state"}))["data"]["sessionId"].clone();
    rpc.call(json!({"id": "n", "type": "new_session"}));
    let second = rpc.call(json!({"id": "s2", "type": "get_state"}))["data"]["sessionId"].clone();
    assert_ne!(first, second);
    let status = rpc.close_stdin_and_wait(std::time::Duration::from_secs(30));
    assert!(status.success());
    assert_eq!(
        arena.read("ends.log"),
        format!(
            "other {}\nexit {}\n",
            first.as_str().unwrap(),
            second.as_str().unwrap()
        )
    );
}
