//! `mcp.json` through the rho binary: `${VAR}` and `!command` values, a trusted project's
//! override (and an untrusted one's, ignored), invalid entries reported once while the others
//! serve, and `--no-mcp`.

use serde_json::json;

use super::harness::{McpArena, call, process_gone};

#[test]
fn env_values_from_variables_and_commands_reach_the_server() {
    let arena = McpArena::new();
    let fields =
        json!({"env": {"GREETING": "${RHO_TEST_GREETING}", "MADE": "!printf made-by-a-command"}});
    arena.global(json!({"demo": arena.server("demo", &[], fields)}));
    let run = arena.run(
        &[],
        &[("RHO_TEST_GREETING", "hello from the environment")],
        vec![vec![
            call("mcp__demo__env", json!({"name": "GREETING"})),
            call("mcp__demo__env", json!({"name": "MADE"})),
            call("mcp__demo__env", json!({"name": "PI_CODING_AGENT"})),
        ]],
    );
    run.settled();
    let texts: Vec<String> = run.results().into_iter().map(|(_, text, _)| text).collect();
    assert_eq!(
        texts,
        ["hello from the environment", "made-by-a-command", "true"]
    );
}

#[test]
fn a_trusted_projects_override_disables_a_global_server_and_an_untrusted_one_is_ignored() {
    let arena = McpArena::new();
    arena.global(json!({"demo": arena.server("demo", &[], json!({}))}));
    arena.project_file(json!({"demo": {"enabled": false}}));
    let echo = || vec![vec![call("mcp__demo__echo", json!({"text": "hi"}))]];

    // Untrusted (the default outside the interactive mode): the override is not read.
    let untrusted = arena.run(&[], &[], echo());
    untrusted.settled();
    assert_eq!(
        untrusted.results(),
        [("mcp__demo__echo".to_owned(), "echo: hi".to_owned(), false)]
    );
    std::fs::remove_file(arena.pid_file("demo")).unwrap();

    let trusted = arena.run(&["--approve"], &[], echo());
    trusted.settled();
    let results = trusted.results();
    assert!(
        results[0].2 && results[0].1.contains("not found"),
        "{results:?}"
    );
    assert!(
        !arena.pid_file("demo").exists(),
        "a disabled server was started"
    );
}

#[test]
fn a_project_override_changes_the_exposure_but_may_not_redirect_the_server() {
    let arena = McpArena::new();
    arena.global(json!({
        "demo": arena.server("demo", &[], json!({})),
        "other": arena.server("other", &[], json!({})),
    }));
    arena.project_file(json!({
        "demo": {"exposure": "deferred"},
        "other": {"env": {"EVIL": "1"}},
    }));
    let run = arena.run(
        &["--approve"],
        &[],
        vec![vec![call("mcp__demo__echo", json!({"text": "x"}))]],
    );
    run.settled();
    // Deferred: not declared, so not callable until tool_search loads it.
    let declared = run.declared_tools();
    assert!(declared.contains(&"tool_search".to_owned()), "{declared:?}");
    assert!(
        !declared.iter().any(|t| t.starts_with("mcp__demo__")),
        "{declared:?}"
    );
    let results = run.results();
    assert!(results[0].2, "{results:?}");
    // The override that tries to set `env` is refused with Pi's words; the global server stays.
    let stderr = &run.measured.stderr;
    assert!(
        stderr
            .contains("server \"other\": an override can only set enabled, exposure, toolExposure"),
        "{stderr}"
    );
    assert!(
        declared.iter().any(|t| t.starts_with("mcp__other__")),
        "{declared:?}"
    );
}

#[test]
fn invalid_entries_are_reported_once_and_the_valid_servers_serve() {
    let arena = McpArena::new();
    arena.global(json!({
        "demo": arena.server("demo", &[], json!({})),
        "legacy": {"type": "sse", "url": "https://example.com/sse"},
        "bad name!": {"command": "x"},
    }));
    let run = arena.run(
        &[],
        &[],
        vec![vec![call("mcp__demo__echo", json!({"text": "ok"}))]],
    );
    run.settled();
    assert_eq!(
        run.results(),
        [("mcp__demo__echo".to_owned(), "echo: ok".to_owned(), false)]
    );
    let stderr = &run.measured.stderr;
    let sse =
        "server \"legacy\": legacy SSE transport is not supported; use the streamable HTTP URL";
    assert_eq!(stderr.matches(sse).count(), 1, "{stderr}");
    let name = "invalid server name \"bad name!\"";
    assert_eq!(stderr.matches(name).count(), 1, "{stderr}");
}

#[test]
fn no_mcp_starts_no_server_and_leaves_slash_mcp_to_the_model() {
    let arena = McpArena::new();
    arena.global(json!({"demo": arena.server("demo", &[], json!({}))}));
    let run = arena.run(
        &["--no-mcp"],
        &[],
        vec![vec![call("mcp__demo__echo", json!({"text": "x"}))]],
    );
    run.settled();
    let results = run.results();
    assert!(
        results[0].2 && results[0].1.contains("not found"),
        "{results:?}"
    );
    assert!(
        !arena.pid_file("demo").exists(),
        "--no-mcp started a server"
    );
    assert!(!run.declared_tools().iter().any(|t| t.starts_with("mcp__")));
    assert!(process_gone(&arena.pid_file("demo")));
}

#[test]
fn a_server_a_trusted_project_adds_is_announced_as_running_outside_the_sandbox() {
    let arena = McpArena::new();
    arena.project_file(json!({"local": arena.server("local", &[], json!({}))}));
    let run = arena.run(
        &["--approve"],
        &[],
        vec![vec![call("mcp__local__echo", json!({"text": "p"}))]],
    );
    run.settled();
    assert_eq!(
        run.results(),
        [("mcp__local__echo".to_owned(), "echo: p".to_owned(), false)]
    );
    let stderr = &run.measured.stderr;
    let warning = format!(
        "rho: the project's {} adds MCP server \"local\", which starts `python3 {}`; MCP servers run outside rho's sandbox, with your rights",
        arena.project.join(".rho/mcp.json").display(),
        super::harness::scripted().display()
    );
    assert_eq!(stderr.matches(&warning).count(), 1, "{stderr}");
}
