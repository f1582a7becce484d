//! The command line end to end: a real `rho` process, real files, real pipes.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

/// rho's home for these runs: inside the target directory, never the user's `~/.rho` (every
/// run writes a session file).
const TEST_HOME: &str = concat!(env!("CARGO_TARGET_TMPDIR"), "/rho-home");

fn rho() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_rho"));
    command.env("RHO_HOME", TEST_HOME);
    command
}

/// A workspace with `src/greet.ts` and a faux script that reads it, then answers.
fn workspace() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("src/greet.ts"),
        "export function greet() {}\n",
    )
    .unwrap();
    let script = dir.path().join("script.json");
    let turns = json!({"turns": [
        [{"type": "text", "text": "Reading."}, {"type": "tool_call", "name": "read", "arguments": {"path": "src/greet.ts"}}],
        [{"type": "text", "text": "It declares greet."}]
    ]});
    std::fs::write(&script, turns.to_string()).unwrap();
    (dir, script)
}

fn json_lines(output: &Output) -> Vec<Value> {
    String::from_utf8(output.stdout.clone())
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

fn run_json(cwd: &Path, script: &Path, prompt: &str) -> Output {
    rho()
        .current_dir(cwd)
        .args(["--mode", "json", "--faux-script"])
        .arg(script)
        .arg(prompt)
        .output()
        .unwrap()
}

#[test]
fn json_mode_prints_the_header_then_every_event_with_agent_settled_last() {
    let (dir, script) = workspace();
    let output = run_json(dir.path(), &script, "Check src/greet.ts");
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines = json_lines(&output);
    let header = &lines[0];
    assert_eq!(header["type"], "session");
    assert_eq!(header["version"], 3);
    assert_eq!(header["cwd"], dir.path().to_str().unwrap());
    assert_eq!(header["id"].as_str().unwrap().len(), 36);
    let types: Vec<&str> = lines[1..]
        .iter()
        .map(|l| l["type"].as_str().unwrap())
        .filter(|t| *t != "message_update")
        .collect();
    assert_eq!(
        types,
        [
            "agent_start",
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
            "agent_settled"
        ]
    );
    // Pi 1.6: the run opens with the system message (its sections, its tools), before the
    // user's message; a streamed assistant message starts `pending`; `message_update` carries
    // only the usage and the delta; `agent_end` says no retry follows.
    let starts: Vec<&Value> = lines
        .iter()
        .filter(|l| l["type"] == "message_start")
        .collect();
    assert_eq!(starts[0]["message"]["role"], "system");
    assert_eq!(starts[0]["message"]["content"], "");
    let sections: Vec<&str> = starts[0]["message"]["sections"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(sections, ["preamble", "tools", "rules", "cwd"]);
    let declared: Vec<&str> = starts[0]["message"]["toolsAdded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(declared, ["read", "bash", "edit", "write"]);
    assert_eq!(starts[1]["message"]["role"], "user");
    assert_eq!(starts[2]["message"]["stopReason"], "pending");
    for update in lines.iter().filter(|l| l["type"] == "message_update") {
        let keys: Vec<&str> = update
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["type", "usage", "assistantMessageEvent"]);
        assert!(update["assistantMessageEvent"].get("partial").is_none());
    }
    let end = lines.iter().find(|l| l["type"] == "agent_end").unwrap();
    assert_eq!(end["willRetry"], false);
    assert_eq!(end["messages"][0]["role"], "system");
    let settled = lines.last().unwrap();
    assert_eq!(settled["aborted"], false);
    assert_eq!(settled["reason"], "completed");
    assert_eq!(settled["turns"], 2);
    assert!(settled["usage"]["totalTokens"].as_u64().unwrap() > 0);
    let result = lines
        .iter()
        .find(|l| l["type"] == "message_end" && l["message"]["role"] == "toolResult")
        .unwrap();
    assert_eq!(
        result["message"]["content"][0]["text"],
        "export function greet() {}\n"
    );
    assert!(result["message"]["durationMs"].is_u64());
}

#[test]
fn the_seed_check_through_jq_prints_every_tool_result() {
    let (dir, script) = workspace();
    let pipeline = format!(
        "'{}' --mode json --faux-script '{}' \"Check src/greet.ts and report the named functions\" | jq -c 'select(.type==\"message_end\" and .message.role==\"toolResult\")'",
        env!("CARGO_BIN_EXE_rho"),
        script.display()
    );
    let output = Command::new("sh")
        .env("RHO_HOME", TEST_HOME)
        .arg("-c")
        .arg(&pipeline)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "jq pipeline failed (is jq installed?): {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines = json_lines(&output);
    assert_eq!(lines.len(), 1);
    let message = &lines[0]["message"];
    assert_eq!(message["toolCallId"], "call_0_1");
    assert_eq!(message["toolName"], "read");
    assert_eq!(message["isError"], false);
    assert_eq!(
        message["content"],
        json!([{"type": "text", "text": "export function greet() {}\n"}])
    );
}

#[test]
fn print_mode_prints_the_final_answer() {
    let (dir, script) = workspace();
    let output = rho()
        .current_dir(dir.path())
        .args(["-p", "--faux-script"])
        .arg(&script)
        .arg("Check")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        "It declares greet.\n"
    );
}

#[test]
fn piped_stdin_is_joined_to_the_first_message() {
    use std::io::Write;
    let (dir, script) = workspace();
    let mut child = rho()
        .current_dir(dir.path())
        .args(["--mode", "json", "--faux-script"])
        .arg(&script)
        .arg(" and more")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"  from stdin \n")
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let lines = json_lines(&output);
    let user = lines
        .iter()
        .find(|l| l["type"] == "message_end" && l["message"]["role"] == "user")
        .unwrap();
    assert_eq!(user["message"]["content"][0]["text"], "from stdin and more");
}

#[test]
fn a_model_error_exits_1_with_settled_error_in_json_and_the_message_on_stderr_in_print_mode() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("empty.json");
    std::fs::write(&script, r#"{"turns": []}"#).unwrap();
    let output = run_json(dir.path(), &script, "hi");
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(json_lines(&output).last().unwrap()["reason"], "error");
    let output = rho()
        .current_dir(dir.path())
        .args(["-p", "--faux-script"])
        .arg(&script)
        .arg("hi")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        "No more faux responses queued\n"
    );
}

/// Exit 2 and exactly one line on stderr, naming the problem.
fn assert_preflight_failure(output: Output, expected: &str) {
    assert_eq!(output.status.code(), Some(2));
    assert!(
        output.stdout.is_empty(),
        "nothing on stdout before the model is called"
    );
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains(expected), "{stderr}");
}

#[test]
fn failures_before_the_first_model_call_exit_2_with_one_clear_line() {
    let (dir, script) = workspace();
    // No keys anywhere: an empty RHO_HOME and no provider variables.
    let run = |args: &[&str]| {
        rho()
            .current_dir(dir.path())
            .env_clear()
            .env("RHO_HOME", dir.path())
            .env("HOME", dir.path())
            .args(args)
            .output()
            .unwrap()
    };
    assert_preflight_failure(
        run(&["--bogus", "-p", "hi"]),
        "unexpected argument '--bogus'",
    );
    assert_preflight_failure(
        run(&["--mode", "yaml", "-p", "hi"]),
        "Invalid mode \"yaml\". Valid values: text, json, rpc",
    );
    assert_preflight_failure(run(&["-p", "hi"]), "No models available");
    assert_preflight_failure(
        run(&["-p", "--model", "nonexistent-model-xyz", "hi"]),
        "Model \"nonexistent-model-xyz\" not found",
    );
    assert_preflight_failure(
        run(&["-p", "--provider", "nope", "--model", "x", "hi"]),
        "Unknown provider \"nope\"",
    );
    assert_preflight_failure(
        run(&["-p", "--model", "anthropic/claude-opus-4-7", "hi"]),
        "No API key found for anthropic: set ANTHROPIC_OAUTH_TOKEN or ANTHROPIC_API_KEY or pass --api-key",
    );
    assert_preflight_failure(
        run(&["-p", "--faux-script", "missing.json", "hi"]),
        "cannot read faux script missing.json",
    );
    let script = script.to_str().unwrap();
    assert_preflight_failure(run(&["-p", "--faux-script", script]), "no prompt given");

    std::fs::write(
        dir.path().join("garbled.json"),
        "{\"turns\": [[{\"type\": \"text\"",
    )
    .unwrap();
    assert_preflight_failure(
        run(&["-p", "--faux-script", "garbled.json", "hi"]),
        "faux script is not valid JSON",
    );
    std::fs::write(
        dir.path().join("fault.json"),
        r#"{"turns": [[{"type": "stall", "seconds": 3}]]}"#,
    )
    .unwrap();
    assert_preflight_failure(
        run(&["-p", "--faux-script", "fault.json", "hi"]),
        "fault directive \"stall\"",
    );
    std::fs::write(
        dir.path().join("odd.json"),
        r#"{"turns": [[{"type": "video"}]]}"#,
    )
    .unwrap();
    assert_preflight_failure(
        run(&["-p", "--faux-script", "odd.json", "hi"]),
        "unknown block type \"video\"",
    );
}

#[test]
fn a_failing_tool_call_is_a_result_and_the_run_still_completes() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.json");
    let turns = json!({"turns": [
        [{"type": "tool_call", "name": "read", "arguments": {"path": "nope.txt"}},
         {"type": "tool_call", "name": "delete_everything", "arguments": {"path": "x"}},
         {"type": "tool_call", "name": "read", "arguments": "{\"path\": [1"}],
        [{"type": "text", "text": "Could not read it."}]
    ]});
    std::fs::write(&script, turns.to_string()).unwrap();
    let output = run_json(dir.path(), &script, "read nope.txt");
    assert_eq!(output.status.code(), Some(0));
    let lines = json_lines(&output);
    let results: Vec<&Value> = lines
        .iter()
        .filter(|l| l["type"] == "message_end" && l["message"]["role"] == "toolResult")
        .map(|l| &l["message"])
        .collect();
    let missing = dir.path().join("nope.txt");
    assert_eq!(
        results[0]["content"][0]["text"],
        format!(
            "ENOENT: no such file or directory, access '{}'",
            missing.display()
        )
    );
    assert!(
        results[0]["durationMs"].is_u64(),
        "read executed and failed"
    );
    assert_eq!(
        results[1]["content"][0]["text"],
        "Tool delete_everything not found"
    );
    assert!(results[1].get("durationMs").is_none());
    let invalid = results[2]["content"][0]["text"].as_str().unwrap();
    assert!(
        invalid.starts_with(
            "Validation failed for tool \"read\":\n  - path: expected string, got array"
        ),
        "{invalid}"
    );
    assert_eq!(lines.last().unwrap()["reason"], "completed");
}

#[test]
fn the_default_tools_are_read_bash_edit_write_and_tools_selects_among_them() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.json");
    let turns = json!({"turns": [
        [{"type": "tool_call", "name": "bash", "arguments": {"command": "echo hi > out.txt; cat out.txt"}},
         {"type": "tool_call", "name": "ls", "arguments": {}}],
        [{"type": "text", "text": "done"}]
    ]});
    std::fs::write(&script, turns.to_string()).unwrap();
    let texts = |extra: &[&str]| -> Vec<String> {
        let output = rho()
            .current_dir(dir.path())
            .args(["--mode", "json", "--faux-script"])
            .arg(&script)
            .args(extra)
            .arg("go")
            .output()
            .unwrap();
        json_lines(&output)
            .iter()
            .filter(|l| l["type"] == "message_end" && l["message"]["role"] == "toolResult")
            .map(|l| {
                l["message"]["content"][0]["text"]
                    .as_str()
                    .unwrap()
                    .to_owned()
            })
            .collect()
    };
    assert_eq!(texts(&[]), ["hi\n", "Tool ls not found"]);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("out.txt")).unwrap(),
        "hi\n"
    );
    let only_ls = texts(&["--tools", "ls,nonsense"]);
    assert_eq!(only_ls[0], "Tool bash not found");
    assert!(only_ls[1].contains("out.txt"), "{only_ls:?}");
    assert_eq!(
        texts(&["--no-tools"]),
        ["Tool bash not found", "Tool ls not found"]
    );
}

/// shared/fixtures/pi-1.6/json-badargs.new.jsonl: a bash call that exits 3 *returns* an error
/// result; `tool_execution_end.result` is the tool's own object (content, structuredContent,
/// isError, no details), and the toolResult message carries no structuredContent.
#[test]
fn a_non_zero_exit_is_an_error_result_with_pis_structured_content() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.json");
    let turns = json!({"turns": [
        [{"type": "tool_call", "name": "bash", "arguments": {"command": "exit 3"}}],
        [{"type": "text", "text": "It failed."}]
    ]});
    std::fs::write(&script, turns.to_string()).unwrap();
    let output = run_json(dir.path(), &script, "run it");
    assert_eq!(output.status.code(), Some(0));
    let lines = json_lines(&output);
    let end = lines
        .iter()
        .find(|l| l["type"] == "tool_execution_end")
        .unwrap();
    let mut result = end["result"].clone();
    let wall_time = result["structuredContent"]
        .as_object_mut()
        .unwrap()
        .insert("wall_time_seconds".into(), json!(0))
        .unwrap();
    assert!(wall_time.is_number(), "{wall_time}");
    assert_eq!(
        serde_json::to_string(&result).unwrap(),
        r#"{"content":[{"type":"text","text":"(no output)\n\nCommand exited with code 3"}],"structuredContent":{"output":"","truncated":false,"exit_code":3,"wall_time_seconds":0},"isError":true}"#
    );
    assert_eq!(end["isError"], json!(true));
    let message = lines
        .iter()
        .find(|l| l["type"] == "message_end" && l["message"]["role"] == "toolResult")
        .map(|l| &l["message"])
        .unwrap();
    assert_eq!(message["isError"], json!(true));
    assert!(message.get("structuredContent").is_none(), "{message}");
    assert!(message.get("details").is_none(), "{message}");
}
