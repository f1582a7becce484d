//! Servers that fail, through the rho binary: each failure is an error result naming the reason,
//! the run settles, and no server process is left behind.

use serde_json::json;

use super::harness::{McpArena, call, process_gone};

#[test]
fn a_server_that_exits_at_start_gives_an_error_result_with_its_stderr_and_the_run_settles() {
    let arena = McpArena::new();
    arena.global(json!({
        "bad": arena.server("bad", &["--exit-at-start"], json!({})),
        "good": arena.server("good", &[], json!({})),
    }));
    let run = arena.run(
        &[],
        &[],
        vec![vec![
            call("mcp__bad__echo", json!({"text": "hi"})),
            call("mcp__good__echo", json!({"text": "still here"})),
        ]],
    );
    run.settled();
    let results = run.results();
    // The failed server's tools were never registered: the model's call is an unknown tool.
    assert_eq!(results[0].0, "mcp__bad__echo");
    assert!(results[0].2, "{results:?}");
    assert!(results[0].1.contains("not found"), "{results:?}");
    assert_eq!(
        results[1],
        (
            "mcp__good__echo".to_owned(),
            "echo: still here".to_owned(),
            false
        )
    );
    // The start-up report names the server, its error and its stderr, once.
    let stderr = &run.measured.stderr;
    assert_eq!(
        stderr.matches("MCP servers need attention").count(),
        1,
        "{stderr}"
    );
    assert!(stderr.contains("bad: failed"), "{stderr}");
    assert!(process_gone(&arena.pid_file("good")));
}

#[test]
fn a_server_that_dies_mid_call_fails_that_call_and_the_next_call_starts_it_again() {
    let arena = McpArena::new();
    arena.global(json!({"demo": arena.server("demo", &[], json!({}))}));
    let run = arena.run(
        &[],
        &[],
        vec![
            vec![call("mcp__demo__crash", json!({}))],
            vec![call("mcp__demo__echo", json!({"text": "back"}))],
        ],
    );
    run.settled();
    let results = run.results();
    assert!(results[0].2, "{results:?}");
    assert!(
        results[0].1.contains("MCP connection closed"),
        "{results:?}"
    );
    assert_eq!(
        results[1],
        ("mcp__demo__echo".to_owned(), "echo: back".to_owned(), false)
    );
    assert!(process_gone(&arena.pid_file("demo")));
}

#[test]
fn a_call_that_hangs_past_the_timeout_fails_with_the_timeout_and_the_server_is_told() {
    let arena = McpArena::new();
    arena.global(json!({"demo": arena.server("demo", &[], json!({"timeout": 1}))}));
    let run = arena.run(
        &[],
        &[],
        vec![vec![call("mcp__demo__slow", json!({"seconds": 30}))]],
    );
    run.settled();
    let results = run.results();
    assert_eq!(
        results,
        [(
            "mcp__demo__slow".to_owned(),
            "MCP request timed out after 1000ms".to_owned(),
            true
        )]
    );
    assert!(
        run.measured.elapsed.as_secs() < 20,
        "{:?}",
        run.measured.elapsed
    );
    assert!(process_gone(&arena.pid_file("demo")));
}

#[test]
fn a_server_flooding_stderr_still_serves_and_rho_keeps_only_a_tail() {
    let arena = McpArena::new();
    arena.global(json!({"demo": arena.server("demo", &["--flood-stderr"], json!({}))}));
    let run = arena.run(
        &[],
        &[],
        vec![vec![call("mcp__demo__echo", json!({"text": "heard"}))]],
    );
    run.settled();
    assert_eq!(
        run.results(),
        [(
            "mcp__demo__echo".to_owned(),
            "echo: heard".to_owned(),
            false
        )]
    );
    // 2 MiB of the server's stderr went nowhere near rho's own output.
    assert!(
        run.measured.stderr.len() < 64 * 1024,
        "{}",
        run.measured.stderr.len()
    );
    assert!(process_gone(&arena.pid_file("demo")));
}

#[test]
fn malformed_lines_are_skipped_a_malformed_result_is_an_error_and_a_silent_server_times_out() {
    let arena = McpArena::new();
    arena.global(json!({
        "garbled": arena.server("garbled", &["--garbage"], json!({})),
        "silent": arena.server("silent", &["--hang-initialize"], json!({"timeout": 1})),
    }));
    let run = arena.run(
        &[],
        &[],
        vec![vec![
            call("mcp__garbled__echo", json!({"text": "past the junk"})),
            call("mcp__garbled__malformed", json!({})),
            call("mcp__silent__echo", json!({"text": "x"})),
        ]],
    );
    run.settled();
    let results = run.results();
    assert_eq!(
        results[0],
        (
            "mcp__garbled__echo".to_owned(),
            "echo: past the junk".to_owned(),
            false
        )
    );
    assert!(results[1].2, "{results:?}");
    assert!(
        results[1].1.contains("Invalid MCP tools/call result"),
        "{results:?}"
    );
    assert!(
        results[2].2 && results[2].1.contains("not found"),
        "{results:?}"
    );
    let stderr = &run.measured.stderr;
    assert!(
        stderr.contains("silent: failed: MCP request timed out after 1000ms"),
        "{stderr}"
    );
    for name in ["garbled", "silent"] {
        assert!(
            process_gone(&arena.pid_file(name)),
            "{name} was left running"
        );
    }
}

#[test]
fn a_wrapper_and_the_server_it_started_are_both_stopped_when_rho_ends() {
    let arena = McpArena::new();
    // npx-style: a shell that starts the real server as its child and waits; the server ignores
    // SIGTERM, so only the group's SIGKILL stops it.
    let inner = arena.pid_file("inner");
    let wrapper = arena.pid_file("wrapper");
    let script = format!(
        // (Through fd 3: a background job of a script reads /dev/null, whatever `<&0` says.)
        "echo $$ > {}; exec 3<&0; PID_FILE={} python3 {} --linger <&3 3<&- & wait",
        wrapper.display(),
        inner.display(),
        super::harness::scripted().display()
    );
    arena.global(
        json!({"wrapped": {"command": "sh", "args": ["-c", script], "exposure": "direct"}}),
    );
    let run = arena.run(
        &[],
        &[],
        vec![vec![call("mcp__wrapped__echo", json!({"text": "via sh"}))]],
    );
    run.settled();
    assert_eq!(
        run.results(),
        [(
            "mcp__wrapped__echo".to_owned(),
            "echo: via sh".to_owned(),
            false
        )]
    );
    assert!(process_gone(&wrapper), "the wrapper outlived rho");
    assert!(process_gone(&inner), "the wrapped server outlived rho");
}
