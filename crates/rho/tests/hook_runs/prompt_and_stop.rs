//! The hooks around a prompt: `UserPromptSubmit` blocking it or adding context,
//! `SessionStart`'s context, `Stop` sending the run on (at most three times),
//! `continue: false` ending the run with reason `hook` and exit code 4, `SessionEnd` at exit.

use serde_json::{Value, json};

use super::harness::{HookArena, call, command, group};

#[test]
fn a_blocked_prompt_never_reaches_the_model_and_the_run_settles_as_stopped_by_a_hook() {
    let arena = HookArena::new();
    let gate = arena.script(
        "prompt-gate.sh",
        "#!/bin/bash\nif grep -q password; then echo 'prompts must not carry passwords' >&2; exit 2; fi\n",
    );
    arena.hooks(json!({"UserPromptSubmit": [group(None, &[command(&gate)])]}));
    let run = arena.run(&[], "my password is hunter2", vec![]);
    assert_eq!(run.code, Some(4), "{}", run.stderr);
    assert_eq!(
        run.kinds(),
        [
            "hook_execution_start",
            "hook_execution_end",
            "agent_settled"
        ]
    );
    let settled = run.settled();
    assert_eq!(
        (
            &settled["reason"],
            &settled["stopReason"],
            &settled["turns"]
        ),
        (
            &json!("hook"),
            &json!("prompts must not carry passwords"),
            &json!(0)
        )
    );
    assert!(!run.stdout.contains("hunter2"), "{}", run.stdout);

    // In text mode the user reads why.
    let output = arena.print("my password is hunter2", vec![]);
    assert_eq!(output.status.code(), Some(4));
    assert_eq!(output.stdout, b"");
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "rho: stopped by a hook: prompts must not carry passwords\n"
    );

    // Another prompt passes.
    let run = arena.run(&[], "hello", vec![]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.settled()["reason"], "completed");
}

#[test]
fn session_start_and_prompt_context_follow_the_prompt_in_its_message() {
    let arena = HookArena::new();
    let start = arena.script(
        "start.sh",
        "#!/bin/sh\necho '{\"hookSpecificOutput\": {\"hookEventName\": \"SessionStart\", \"additionalContext\": \"branch: main\"}}'\n",
    );
    // Plain stdout of a UserPromptSubmit hook is context, as in Claude Code.
    let date = arena.script(
        "date.sh",
        "#!/bin/sh\ncat >/dev/null\necho 'today is Sunday'\n",
    );
    arena.hooks(json!({
        "SessionStart": [group(Some("startup"), &[command(&start)])],
        "UserPromptSubmit": [group(None, &[command(&date)])],
    }));
    let run = arena.run(&[], "what day is it?", vec![]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        run.user_texts(),
        [["what day is it?", "branch: main", "today is Sunday"]]
    );
    let events: Vec<&str> = run
        .of("hook_execution_end")
        .iter()
        .map(|e| e["hookEvent"].as_str().unwrap())
        .collect();
    assert_eq!(events, ["SessionStart", "UserPromptSubmit"]);
}

#[test]
fn a_stop_hook_sends_the_run_on_with_its_reason_at_most_three_times() {
    let arena = HookArena::new();
    let log = arena.base.join("stop.log");
    let check = arena.script(
        "check.py",
        &format!(
            r#"#!/usr/bin/env python3
import json, sys
data = json.load(sys.stdin)
with open({log:?}, "a") as f:
    f.write(json.dumps(data["stop_hook_active"]) + "\n")
calls = len(open({log:?}).read().splitlines())
if calls <= 2:
    print(json.dumps({{"decision": "block", "reason": "run the tests first ({{}})".format(calls)}}))
"#,
            log = log.display().to_string()
        ),
    );
    arena.hooks(json!({"Stop": [group(None, &[command(&check)])]}));
    let run = arena.run(&[], "fix it", vec![]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(
        run.user_texts(),
        [
            vec!["fix it"],
            vec!["run the tests first (1)"],
            vec!["run the tests first (2)"]
        ]
    );
    assert_eq!(arena.read("stop.log"), "false\ntrue\ntrue\n");
    // One run: the follow-ups are turns of it.
    let kinds = run.kinds();
    assert_eq!(kinds.iter().filter(|k| *k == "agent_start").count(), 1);
    assert_eq!(kinds.iter().filter(|k| *k == "turn_start").count(), 3);
    assert_eq!(run.settled()["reason"], "completed");

    let always = arena.script("always.sh", "#!/bin/sh\necho 'not yet' >&2\nexit 2\n");
    arena.hooks(json!({"Stop": [group(None, &[command(&always)])]}));
    let run = arena.run(&[], "fix it", vec![]);
    assert_eq!(run.user_texts().len(), 4, "the prompt and three follow-ups");
    assert_eq!(run.of("hook_execution_end").len(), 3);
    assert_eq!(run.settled()["reason"], "completed");
}

#[test]
fn continue_false_ends_the_run_after_the_batch_with_reason_hook_and_exit_4() {
    let arena = HookArena::new();
    let halt = arena.script(
        "halt.sh",
        "#!/bin/sh\necho '{\"continue\": false, \"stopReason\": \"budget meeting\"}'\n",
    );
    arena.hooks(json!({"PostToolUse": [group(Some("ls"), &[command(&halt)])]}));
    let run = arena.run(
        &[],
        "go",
        vec![
            vec![call("ls", json!({})), call("find", json!({"pattern": "*"}))],
            vec![call("ls", json!({}))],
        ],
    );
    assert_eq!(run.code, Some(4), "{}", run.stderr);
    // The batch finished (both calls ran); no second model call.
    assert_eq!(run.results().len(), 2);
    assert!(run.results().iter().all(|r| !r.2));
    assert_eq!(run.kinds().iter().filter(|k| *k == "turn_start").count(), 1);
    let settled = run.settled();
    assert_eq!(
        (&settled["reason"], &settled["stopReason"]),
        (&json!("hook"), &json!("budget meeting"))
    );
}

#[test]
fn session_end_runs_once_at_exit_with_the_session_it_ends() {
    let arena = HookArena::new();
    let out = arena.base.join("end.json");
    let end = arena.script("end.sh", &format!("#!/bin/sh\ncat > {}\n", out.display()));
    arena.hooks(json!({"SessionEnd": [group(None, &[command(&end)])]}));
    let run = arena.run(&[], "hi", vec![]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let given: Value = serde_json::from_str(&arena.read("end.json")).unwrap();
    assert_eq!(given["hook_event_name"], "SessionEnd");
    assert_eq!(given["reason"], "exit");
    assert_eq!(given["session_id"], run.events[0]["id"]);
}
