//! `rho verify` end to end: real logs from a real `rho --mode json` run, then mutated copies.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

fn rho() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_rho"));
    // rho's home inside the target directory, not the user's `~/.rho`.
    command.env(
        "RHO_HOME",
        concat!(env!("CARGO_TARGET_TMPDIR"), "/rho-home"),
    );
    command
}

/// Runs `rho --mode json` on a faux script in a fresh workspace and returns its log lines.
fn real_log(turns: Value) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("src/greet.ts"),
        "export function greet() {}\n",
    )
    .unwrap();
    let script = dir.path().join("script.json");
    std::fs::write(&script, json!({ "turns": turns }).to_string()).unwrap();
    let output = rho()
        .current_dir(dir.path())
        .args(["--mode", "json", "--faux-script"])
        .arg(&script)
        .arg("Check src/greet.ts")
        .output()
        .unwrap();
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// Reads `src/greet.ts`, then answers.
fn good_log() -> Vec<Value> {
    real_log(json!([
        [{"type": "text", "text": "Reading."}, {"type": "tool_call", "name": "read", "arguments": {"path": "src/greet.ts"}}],
        [{"type": "text", "text": "It declares greet."}]
    ]))
}

fn to_text(lines: &[Value]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

fn verify_file(contents: &str, args: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.jsonl");
    std::fs::write(&path, contents).unwrap();
    verify_path(&path, args)
}

fn verify_path(path: &Path, args: &[&str]) -> Output {
    rho().arg("verify").arg(path).args(args).output().unwrap()
}

/// `rho verify --json` on the lines: exit status and the parsed report.
fn verify_json(lines: &[Value]) -> (Option<i32>, Value) {
    let output = verify_file(&to_text(lines), &["--json"]);
    let report = serde_json::from_slice(&output.stdout).unwrap();
    (output.status.code(), report)
}

fn problems(lines: &[Value]) -> Vec<String> {
    let (code, report) = verify_json(lines);
    assert_eq!(code, Some(1), "{report}");
    assert_eq!(report["verified"], false);
    serde_json::from_value(report["problems"].clone()).unwrap()
}

fn is_tool_result_end(line: &Value) -> bool {
    line["type"] == "message_end" && line["message"]["role"] == "toolResult"
}

fn tool_result_end(lines: &mut [Value]) -> &mut Value {
    lines.iter_mut().find(|l| is_tool_result_end(l)).unwrap()
}

#[test]
fn a_good_run_is_verified_in_text() {
    let output = verify_file(&to_text(&good_log()), &[]);
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "input: JSON-mode event log");
    assert_eq!(lines[1], "tool calls: 1");
    assert!(
        lines[2].starts_with("  call_0_1 read: start ✓  end ok ✓  durationMs ✓ ("),
        "{text}"
    );
    assert!(lines[2].ends_with(" ms)  toolResult ✓"), "{text}");
    assert_eq!(lines[3], "turns: 2 started, 2 ended");
    assert_eq!(lines[6], "settled: completed after 2 turn(s)");
    assert_eq!(lines.last(), Some(&"verified"));
}

#[test]
fn a_good_run_in_json_reports_every_signal_as_one_value() {
    let log = good_log();
    let duration =
        log.iter().find(|l| is_tool_result_end(l)).unwrap()["message"]["durationMs"].clone();
    let (code, report) = verify_json(&log);
    assert_eq!(code, Some(0));
    assert_eq!(
        report,
        json!({
            "verified": true,
            "settled": {"reason": "completed", "turns": 2},
            "turns": {"started": 2, "ended": 2},
            "toolCalls": [{
                "toolCallId": "call_0_1",
                "toolName": "read",
                "started": true,
                "ended": true,
                "isError": false,
                "durationMs": duration,
                "resultInContext": true, "blockedByHook": false
            }],
            "problems": []
        })
    );
}

#[test]
fn a_good_run_read_from_stdin_with_a_dash_is_verified() {
    let mut child = rho()
        .args(["verify", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(to_text(&good_log()).as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert!(
        String::from_utf8(output.stdout)
            .unwrap()
            .ends_with("\nverified\n")
    );
}

#[test]
fn a_log_without_agent_settled_is_not_verified() {
    let mut log = good_log();
    assert_eq!(log.pop().unwrap()["type"], "agent_settled");
    assert_eq!(problems(&log), ["not settled (no agent_settled event)"]);
}

#[test]
fn a_dropped_turn_end_leaves_its_turn_start_unpaired() {
    let mut log = good_log();
    let start_line = log.iter().position(|l| l["type"] == "turn_start").unwrap() + 1;
    let end = log.iter().position(|l| l["type"] == "turn_end").unwrap();
    log.remove(end);
    assert_eq!(
        problems(&log),
        [format!("turn_start on line {start_line} has no turn_end")]
    );
}

#[test]
fn a_dropped_tool_result_means_the_result_never_reached_the_context() {
    let mut log = good_log();
    log.retain(|l| !is_tool_result_end(l));
    assert_eq!(
        problems(&log),
        ["tool call call_0_1 (read): no toolResult message in the context"]
    );
}

#[test]
fn a_changed_tool_call_id_breaks_the_correlation_both_ways() {
    let mut log = good_log();
    tool_result_end(&mut log)["message"]["toolCallId"] = json!("call_9_9");
    assert_eq!(
        problems(&log),
        [
            "tool call call_0_1 (read): no toolResult message in the context",
            "tool call call_9_9 (read): no assistant message requesting it",
            "tool call call_9_9 (read): no tool_execution_start",
            "tool call call_9_9 (read): no tool_execution_end",
        ]
    );
}

#[test]
fn a_successful_result_without_duration_ms_is_not_verified() {
    let mut log = good_log();
    let message = tool_result_end(&mut log)["message"]
        .as_object_mut()
        .unwrap();
    assert!(message.remove("durationMs").is_some());
    assert_eq!(
        problems(&log),
        ["tool call call_0_1 (read): succeeded but its toolResult has no durationMs"]
    );
}

#[test]
fn a_failed_model_call_settles_error_and_is_not_verified() {
    let log = real_log(json!([]));
    assert_eq!(log.last().unwrap()["reason"], "error");
    assert_eq!(problems(&log), ["settled `error`, not `completed`"]);
}

#[test]
fn an_error_in_the_last_tool_batch_is_not_verified() {
    let log = real_log(json!([
        [{"type": "tool_call", "name": "no_such_tool", "arguments": {}}],
        [{"type": "text", "text": "Done anyway."}]
    ]));
    let id = log
        .iter()
        .find(|l| l["type"] == "tool_execution_end")
        .unwrap()["toolCallId"]
        .as_str()
        .unwrap()
        .to_owned();
    let (code, report) = verify_json(&log);
    assert_eq!(code, Some(1));
    assert_eq!(
        report["toolCalls"],
        json!([{
            "toolCallId": id,
            "toolName": "no_such_tool",
            "started": true,
            "ended": true,
            "isError": true,
            "durationMs": null,
            "resultInContext": true, "blockedByHook": false
        }])
    );
    assert_eq!(
        report["problems"],
        json!([format!(
            "the last tool batch has errors: {id} (no_such_tool)"
        )])
    );
}

#[test]
fn a_line_that_is_not_json_is_invalid_input_named_by_its_line_number() {
    let mut text = to_text(&good_log());
    text.push_str("this is not json\n");
    let line = text.lines().count();
    let output = verify_file(&text, &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.starts_with(&format!("Error: line {line}: not JSON (")),
        "{stderr}"
    );
}

#[test]
fn a_missing_file_is_invalid_input() {
    let dir = tempfile::tempdir().unwrap();
    let output = verify_path(&dir.path().join("absent.jsonl"), &[]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        String::from_utf8(output.stderr)
            .unwrap()
            .starts_with("Error: cannot read ")
    );
}

#[test]
fn a_session_file_is_checked_as_far_as_it_can_be_and_never_settles() {
    let log = good_log();
    let mut session = vec![log[0].clone()];
    session.extend(
        log.iter()
            .filter(|l| l["type"] == "message_end")
            .map(|l| json!({"type": "message", "message": l["message"]})),
    );
    let (code, report) = verify_json(&session);
    assert_eq!(code, Some(1));
    let duration = report["toolCalls"][0]["durationMs"].clone();
    assert!(duration.is_u64());
    assert_eq!(
        report,
        json!({
            "verified": false,
            "settled": null,
            "turns": null,
            "toolCalls": [{
                "toolCallId": "call_0_1",
                "toolName": "read",
                "started": null,
                "ended": null,
                "isError": false,
                "durationMs": duration,
                "resultInContext": true, "blockedByHook": false
            }],
            "problems": ["not settled (session file has no events)"]
        })
    );
}
