//! The `bash` tool on a real shell: merged output, Pi's result texts, lossy decoding, tail
//! truncation with the full output saved, streamed updates, and no surviving process after a
//! timeout or an abort.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::sync::{Arc, Mutex};

use rho_agent::{
    AgentEvent, AgentTool, LoopConfig, LoopContext, ToolContext, ToolError, ToolOutput,
    run_agent_loop,
};
use rho_ai::faux::{FauxProvider, faux_message, faux_text, faux_tool_call};
use rho_ai::{ContentBlock, ThinkingLevel, UserMessage};
use rho_host::tools::BashTool;
use rho_host::tools::bash::ShellEnv;
use rho_host::tools::truncate::{TruncatedBy, Truncation};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// Runs `args` with no cancellation, ignoring updates; `wall_time_seconds` is zeroed so results
/// compare whole.
async fn run(dir: &Path, args: Value) -> Result<ToolOutput, ToolError> {
    let result = BashTool::new(dir)
        .run_command(&args, &CancellationToken::new(), &|_| {})
        .await;
    without_wall_time(result)
}

fn without_wall_time(mut result: Result<ToolOutput, ToolError>) -> Result<ToolOutput, ToolError> {
    if let Ok(ToolOutput {
        structured_content: Some(Value::Object(members)),
        ..
    }) = &mut result
    {
        assert!(members["wall_time_seconds"].is_number(), "{members:?}");
        members.insert("wall_time_seconds".into(), json!(0));
    }
    result
}

/// Pi 1.6's `structuredContent` of an output that was not cut.
fn structured(output: &str, exit_code: i32) -> Option<Value> {
    Some(
        json!({"output": output, "truncated": false, "exit_code": exit_code, "wall_time_seconds": 0}),
    )
}

/// A successful result whose text is the whole output.
fn text(text: &str) -> Result<ToolOutput, ToolError> {
    done(text, text)
}

/// A successful result: `text` for the model, `output` in `structuredContent`.
fn done(text: &str, output: &str) -> Result<ToolOutput, ToolError> {
    Ok(ToolOutput {
        structured_content: structured(output, 0),
        ..ToolOutput::text(text)
    })
}

/// The error result of a command that exited with `code` (returned, not thrown, in Pi 1.6).
fn exited(text: &str, output: &str, code: i32) -> Result<ToolOutput, ToolError> {
    Ok(ToolOutput {
        structured_content: structured(output, code),
        is_error: Some(true),
        ..ToolOutput::text(text)
    })
}

fn error(text: &str) -> Result<ToolOutput, ToolError> {
    Err(ToolError::new(text))
}

/// Whether `pid` has exited (gone, or a zombie waiting to be reaped by someone else).
fn is_dead(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => process_state(&stat) == Some('Z'),
    }
}

/// The state letter of a `/proc/<pid>/stat` line (the field after the parenthesised name).
fn process_state(stat: &str) -> Option<char> {
    stat.rsplit_once(')')?.1.trim_start().chars().next()
}

/// Live (non-zombie) processes whose process group is `pgid`.
fn live_members_of_group(pgid: u32) -> Vec<u32> {
    let mut members = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        // After the name: state, ppid, pgrp.
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.get(2) == Some(&pgid.to_string().as_str()) && fields.first() != Some(&"Z") {
            members.push(pid);
        }
    }
    members
}

fn read_pid(path: &Path) -> u32 {
    std::fs::read_to_string(path)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

/// Starts a background grandchild and records its pid and the shell's, then waits in the
/// foreground: the whole group must die on timeout or abort.
const GROUP_COMMAND: &str =
    "sleep 30 & echo $! > bg.pid; echo $$ > shell.pid; echo started; sleep 30";

fn assert_group_is_gone(dir: &Path) {
    let shell = read_pid(&dir.join("shell.pid"));
    let background = read_pid(&dir.join("bg.pid"));
    // A SIGKILLed process closes its files (the tool sees EOF) a moment before the kernel marks
    // it exited; give the kernel up to 5 s to finish tearing it down. This bounds an OS effect,
    // it does not time the tool.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while std::time::Instant::now() < deadline
        && !(is_dead(shell) && is_dead(background) && live_members_of_group(shell).is_empty())
    {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(is_dead(shell), "shell {shell} survived");
    assert!(
        is_dead(background),
        "background child {background} survived"
    );
    assert_eq!(live_members_of_group(shell), Vec::<u32>::new());
}

#[tokio::test]
async fn exit_zero_returns_the_output() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        run(dir.path(), json!({"command": "echo hello"})).await,
        text("hello\n")
    );
}

#[tokio::test]
async fn commands_run_in_the_session_directory() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("marker.txt"), "here").unwrap();
    assert_eq!(
        run(dir.path(), json!({"command": "cat marker.txt"})).await,
        text("here")
    );
}

#[tokio::test]
async fn stdout_and_stderr_merge_in_arrival_order() {
    let dir = tempfile::tempdir().unwrap();
    let command = "echo one; echo two >&2; echo three; echo four >&2";
    assert_eq!(
        run(dir.path(), json!({"command": command})).await,
        text("one\ntwo\nthree\nfour\n")
    );
}

#[tokio::test]
async fn empty_output_reads_no_output() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        run(dir.path(), json!({"command": "true"})).await,
        done("(no output)", "")
    );
}

#[tokio::test]
async fn stdin_is_empty() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        run(dir.path(), json!({"command": "cat; echo done"})).await,
        text("done\n")
    );
}

#[tokio::test]
async fn non_zero_exit_returns_an_error_result_with_the_output_and_the_code() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        run(dir.path(), json!({"command": "echo oops; exit 3"})).await,
        exited("oops\n\n\nCommand exited with code 3", "oops\n", 3)
    );
    // shared/fixtures/pi-1.6/json-badargs.new.jsonl: the same text and structuredContent.
    assert_eq!(
        run(dir.path(), json!({"command": "exit 3"})).await,
        exited("(no output)\n\nCommand exited with code 3", "", 3)
    );
}

#[tokio::test]
async fn a_shell_killed_by_a_signal_exits_with_128_plus_the_signal_number() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        run(dir.path(), json!({"command": "echo before; kill -9 $$"})).await,
        exited("before\n\n\nCommand exited with code 137", "before\n", 137)
    );
}

#[tokio::test]
async fn invalid_utf8_is_replaced_never_fatal() {
    let dir = tempfile::tempdir().unwrap();
    // An invalid byte mid-line, and an incomplete euro sign (E2 82) at the very end.
    assert_eq!(
        run(
            dir.path(),
            json!({"command": r"printf 'a\377b\n'; printf 'x\342\202'"})
        )
        .await,
        text("a\u{FFFD}b\nx\u{FFFD}")
    );
}

#[tokio::test]
async fn a_multibyte_character_split_across_writes_decodes_whole() {
    let dir = tempfile::tempdir().unwrap();
    let command = r"printf '\342'; sleep 0.05; printf '\202\254\n'";
    assert_eq!(
        run(dir.path(), json!({"command": command})).await,
        text("€\n")
    );
}

#[tokio::test]
async fn long_output_keeps_the_last_lines_and_saves_everything() {
    let dir = tempfile::tempdir().unwrap();
    let result = run(dir.path(), json!({"command": "seq 1 3000"}))
        .await
        .unwrap();

    let full: String = (1..=3000).map(|n| format!("{n}\n")).collect();
    // Pi 1.6 counts lines without the empty one after the trailing newline.
    let kept: Vec<String> = (1001..=3000).map(|n| n.to_string()).collect();
    let kept = kept.join("\n");
    let details = result.details.clone().unwrap();
    let path = details["fullOutputPath"].as_str().unwrap().to_owned();
    assert!(
        path.contains("rho-bash-") && path.ends_with(".log"),
        "{path}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), full);

    let truncation = Truncation {
        content: kept.clone(),
        truncated: true,
        truncated_by: Some(TruncatedBy::Lines),
        total_lines: 3000,
        total_bytes: full.len(),
        output_lines: 2000,
        output_bytes: kept.len(),
        last_line_partial: false,
        first_line_exceeds_limit: false,
        max_lines: 2000,
        max_bytes: 51200,
    };
    let expected = ToolOutput {
        details: Some(json!({
            "truncation": serde_json::to_value(&truncation).unwrap(),
            "fullOutputPath": path,
        })),
        structured_content: structured(&full, 0),
        ..ToolOutput::text(format!(
            "{kept}\n\n[Showing lines 1001-3000 of 3000. Full output: {path}]"
        ))
    };
    assert_eq!(without_wall_time(Ok(result)), Ok(expected));
    std::fs::remove_file(path).unwrap();
}

#[tokio::test]
async fn a_too_long_last_line_keeps_its_end_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let command = "head -c 60000 /dev/zero | tr '\\0' a";
    let result = run(dir.path(), json!({"command": command})).await.unwrap();

    let details = result.details.clone().unwrap();
    let path = details["fullOutputPath"].as_str().unwrap().to_owned();
    assert_eq!(std::fs::read(&path).unwrap(), vec![b'a'; 60000]);
    assert_eq!(details["truncation"]["lastLinePartial"], json!(true));
    assert_eq!(details["truncation"]["truncatedBy"], json!("bytes"));
    let kept = "a".repeat(51200);
    assert_eq!(
        result.content,
        vec![ContentBlock::text(format!(
            "{kept}\n\n[Showing last 50.0KB of line 1 (line is 58.6KB). Full output: {path}]"
        ))]
    );
    std::fs::remove_file(path).unwrap();
}

#[tokio::test]
async fn output_over_the_byte_limit_names_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    // 1000 lines of 99 characters: 100,000 bytes, within the line limit.
    let command = "for i in $(seq 1 1000); do printf '%099d\\n' $i; done";
    let result = run(dir.path(), json!({"command": command})).await.unwrap();
    let details = result.details.clone().unwrap();
    let path = details["fullOutputPath"].as_str().unwrap().to_owned();
    assert_eq!(std::fs::read(&path).unwrap().len(), 100_000);
    // The last line costs 99 bytes, each one before it 100: 512 fit in 51200.
    let kept: Vec<String> = (489..=1000).map(|n| format!("{n:099}")).collect();
    let kept = kept.join("\n");
    assert_eq!(
        result.content,
        vec![ContentBlock::text(format!(
            "{kept}\n\n[Showing lines 489-1000 of 1000 (50.0KB limit). Full output: {path}]"
        ))]
    );
    std::fs::remove_file(path).unwrap();
}

#[tokio::test]
async fn a_missing_working_directory_fails_with_pi_text() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("gone");
    assert_eq!(
        run(&missing, json!({"command": "echo hi"})).await,
        error(&format!(
            "Working directory does not exist: {}\nCannot execute bash commands.",
            missing.display()
        ))
    );
}

#[tokio::test]
async fn a_missing_custom_shell_fails_with_pi_text() {
    let dir = tempfile::tempdir().unwrap();
    let tool = BashTool::new(dir.path()).with_shell_path("/nonexistent/shell");
    let result = tool
        .run_command(
            &json!({"command": "echo hi"}),
            &CancellationToken::new(),
            &|_| {},
        )
        .await;
    assert_eq!(
        result,
        error("Custom shell path not found: /nonexistent/shell")
    );
}

#[tokio::test]
async fn a_shell_that_cannot_be_spawned_fails_with_the_os_error() {
    let dir = tempfile::tempdir().unwrap();
    let not_executable = dir.path().join("shell");
    std::fs::write(&not_executable, "").unwrap();
    let tool = BashTool::new(dir.path()).with_shell_path(&not_executable);
    let result = tool
        .run_command(
            &json!({"command": "echo hi"}),
            &CancellationToken::new(),
            &|_| {},
        )
        .await;
    assert_eq!(
        result,
        error(&format!("spawn {} EACCES", not_executable.display()))
    );
}

#[tokio::test]
async fn the_command_prefix_runs_first() {
    let dir = tempfile::tempdir().unwrap();
    let tool = BashTool::new(dir.path()).with_command_prefix("GREETING=hi");
    let result = tool
        .run_command(
            &json!({"command": "echo $GREETING"}),
            &CancellationToken::new(),
            &|_| {},
        )
        .await;
    assert_eq!(without_wall_time(result), text("hi\n"));
}

#[tokio::test]
async fn timeout_kills_the_whole_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let result = run(dir.path(), json!({"command": GROUP_COMMAND, "timeout": 1})).await;
    assert_eq!(
        result,
        error("started\n\n\nCommand timed out after 1 seconds")
    );
    assert_group_is_gone(dir.path());
}

#[tokio::test]
async fn a_fractional_timeout_prints_like_javascript() {
    let dir = tempfile::tempdir().unwrap();
    let result = run(dir.path(), json!({"command": "sleep 30", "timeout": 0.2})).await;
    assert_eq!(result, error("Command timed out after 0.2 seconds"));
}

#[tokio::test]
async fn abort_kills_the_whole_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let cancel = CancellationToken::new();
    let on_update = {
        let cancel = cancel.clone();
        move |update: Value| {
            if update["content"][0]["text"].as_str() == Some("started\n") {
                cancel.cancel();
            }
        }
    };
    let result = BashTool::new(dir.path())
        .run_command(&json!({"command": GROUP_COMMAND}), &cancel, &on_update)
        .await;
    assert_eq!(result, error("started\n\n\nCommand aborted"));
    assert_group_is_gone(dir.path());
}

#[tokio::test]
async fn an_already_cancelled_call_runs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let cancel = CancellationToken::new();
    cancel.cancel();
    let result = BashTool::new(dir.path())
        .run_command(&json!({"command": "touch ran"}), &cancel, &|_| {})
        .await;
    assert_eq!(result, error("Command aborted"));
    assert!(!dir.path().join("ran").exists());
}

#[test]
fn name_description_and_schema_are_pis() {
    let tool = BashTool::new("/");
    assert_eq!(tool.name(), "bash");
    assert_eq!(
        tool.description(),
        "Execute a bash command in the current working directory. Returns stdout and stderr. Output is truncated to last 2000 lines or 50KB (whichever is hit first). If truncated, full output is saved to a temp file. Optionally provide a timeout in seconds."
    );
    // TypeBox's key order, byte for byte as Pi 1.6 sends it.
    assert_eq!(
        serde_json::to_string(tool.parameters()).unwrap(),
        r#"{"type":"object","required":["command"],"properties":{"command":{"type":"string","description":"Shell command to execute"},"timeout":{"type":"number","description":"Timeout in seconds (optional, no default timeout)"}}}"#
    );
    assert_eq!(
        tool.constrained_sampling(),
        Some(json!({"type": "json_schema", "strict": "prefer"}))
    );
}

/// Through the agent loop: updates arrive while the command still runs (it blocks on a FIFO
/// that the test opens only after seeing the first update), then the end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn updates_stream_while_the_command_runs() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    let status = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(status.success());

    let provider = FauxProvider::new();
    provider.push(faux_message(vec![faux_tool_call(
        "call-1",
        "bash",
        json!({"command": "echo first; cat fifo"}),
    )]));
    provider.set_fallback(faux_message(vec![faux_text("done")]));
    let config = LoopConfig::new(provider.model(), Arc::new(provider.clone()));
    let tool: Arc<dyn AgentTool> = Arc::new(BashTool::new(dir.path()));
    let context = LoopContext {
        system_prompt: None,
        messages: Vec::new(),
        tools: vec![tool],
    };

    let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel();
    let sink = move |event: AgentEvent| {
        let _ = sender.send(event);
    };
    let run = tokio::spawn(async move {
        run_agent_loop(
            vec![UserMessage::text("go").into()],
            context,
            &config,
            CancellationToken::new(),
            Arc::new(sink),
        )
        .await
    });

    let updates = Arc::new(Mutex::new(Vec::new()));
    let mut end = None;
    while let Some(event) = receiver.recv().await {
        match event {
            AgentEvent::ToolExecutionUpdate { partial_result, .. } => {
                let first_output = partial_result["content"][0]["text"] == json!("first\n");
                updates.lock().unwrap().push(partial_result);
                if first_output {
                    let fifo = fifo.clone();
                    tokio::task::spawn_blocking(move || std::fs::write(fifo, "second\n"));
                }
            }
            AgentEvent::ToolExecutionEnd {
                result, is_error, ..
            } => end = Some((result, is_error)),
            _ => {}
        }
    }
    run.await.unwrap().unwrap();

    let update = |text: &str| json!({"content": [{"type": "text", "text": text}], "details": {}});
    assert_eq!(
        *updates.lock().unwrap(),
        vec![
            json!({"content": []}),
            update("first\n"),
            update("first\nsecond\n"),
        ]
    );
    let (result, is_error) = end.unwrap();
    assert!(!is_error);
    assert_eq!(result.content, vec![ContentBlock::text("first\nsecond\n")]);
    assert_eq!(result.details, None);
}

#[tokio::test]
async fn a_models_call_sees_the_session_and_model_in_pi_variables() {
    let dir = tempfile::tempdir().unwrap();
    let model = FauxProvider::new().model();
    let context = ToolContext {
        session_id: Some("s-1".into()),
        session_file: Some("/sessions/s-1.jsonl".into()),
        model: Some(model),
        thinking_level: Some(ThinkingLevel::High),
    };
    let command = "env | grep -E '^(PI_|AI_AGENT=)' | sort";
    let result = BashTool::new(dir.path())
        .run_command_with(
            &json!({"command": command}),
            &CancellationToken::new(),
            &|_| {},
            &ShellEnv::for_call(&context),
        )
        .await;
    let expected = "AI_AGENT=rho\nPI_CODING_AGENT=true\nPI_MODEL=faux-1\nPI_PROVIDER=faux\nPI_REASONING_LEVEL=high\nPI_SESSION_FILE=/sessions/s-1.jsonl\nPI_SESSION_ID=s-1\n";
    assert_eq!(without_wall_time(result), text(expected));
}

#[tokio::test]
async fn a_command_outside_a_session_gets_only_the_agent_markers() {
    let dir = tempfile::tempdir().unwrap();
    let command = "env | grep -E '^(PI_|AI_AGENT=)' | sort";
    assert_eq!(
        run(dir.path(), json!({"command": command})).await,
        text("AI_AGENT=rho\nPI_CODING_AGENT=true\n")
    );
}

#[tokio::test]
async fn structured_output_over_one_mebibyte_keeps_both_ends_around_a_marker() {
    let dir = tempfile::tempdir().unwrap();
    let command = "head -c 1000000 /dev/zero | tr '\\0' a; head -c 1000000 /dev/zero | tr '\\0' b";
    let result = run(dir.path(), json!({"command": command})).await.unwrap();
    let structured = result.structured_content.unwrap();
    let path = result.details.unwrap()["fullOutputPath"]
        .as_str()
        .unwrap()
        .to_owned();
    let output = format!(
        "{}\n\n[... 951424 bytes omitted ...]\n\n{}",
        "a".repeat(524_288),
        "b".repeat(524_288)
    );
    assert_eq!(
        structured,
        json!({"output": output, "truncated": true, "full_output_path": path, "exit_code": 0, "wall_time_seconds": 0})
    );
    // Key order as Pi builds the object.
    let keys: Vec<&String> = structured.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "output",
            "truncated",
            "full_output_path",
            "exit_code",
            "wall_time_seconds"
        ]
    );
    std::fs::remove_file(path).unwrap();
}

#[tokio::test]
async fn a_timeout_after_the_shell_exited_blames_the_background_writers() {
    let dir = tempfile::tempdir().unwrap();
    let command = "(for i in $(seq 1 60); do echo x; sleep 0.05; done) &";
    let result = run(dir.path(), json!({"command": command, "timeout": 1})).await;
    let Err(ToolError(text)) = result else {
        panic!("a timeout is an error: {result:?}");
    };
    assert!(text.starts_with("x\nx\n"), "{text}");
    assert!(
        text.ends_with("\n\nCommand timed out after 1 seconds. The shell exited with code 0 after 0 seconds, but background processes it started kept writing output until the timeout."),
        "{text}"
    );
}

#[tokio::test]
async fn a_timeout_that_is_not_a_positive_number_of_seconds_below_nodes_limit_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for timeout in [json!(0), json!(-1)] {
        assert_eq!(
            run(
                dir.path(),
                json!({"command": "touch ran", "timeout": timeout})
            )
            .await,
            error("Invalid timeout: must be a finite number of seconds")
        );
    }
    assert_eq!(
        run(dir.path(), json!({"command": "touch ran", "timeout": 1e10})).await,
        error("Invalid timeout: maximum is 2147483.647 seconds")
    );
    assert!(!dir.path().join("ran").exists());
}

/// shared/fixtures/pi-1.6/json-bashlong.new.jsonl: a short line, then one of 120,000 bytes
/// ended by a newline. Pi 1.6 counts 2 lines (the trailing newline starts none), shows the last
/// 50 KB of line 2, and calls the open line after it 0 B long.
#[tokio::test]
async fn a_long_last_line_shows_its_tail_with_pi_1_6s_counts() {
    let dir = tempfile::tempdir().unwrap();
    let command = "echo first; head -c 120000 /dev/zero | tr '\\0' x; echo";
    let result = run(dir.path(), json!({"command": command})).await.unwrap();
    let details = result.details.clone().unwrap();
    let path = details["fullOutputPath"].as_str().unwrap().to_owned();
    let truncation = &details["truncation"];
    assert_eq!(
        (
            &truncation["truncated"],
            &truncation["truncatedBy"],
            &truncation["totalLines"],
            &truncation["totalBytes"],
            &truncation["outputLines"],
            &truncation["outputBytes"],
            &truncation["lastLinePartial"],
        ),
        (
            &json!(true),
            &json!("bytes"),
            &json!(2),
            &json!(120_007),
            &json!(1),
            &json!(51_200),
            &json!(true)
        )
    );
    assert_eq!(
        result.content,
        vec![ContentBlock::text(format!(
            "{}\n\n[Showing last 50.0KB of line 2 (line is 0B). Full output: {path}]",
            "x".repeat(51_200)
        ))]
    );
    std::fs::remove_file(path).unwrap();
}
