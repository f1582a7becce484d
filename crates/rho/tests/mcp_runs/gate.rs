//! The gate on MCP calls through the rho binary: in read-only mode only tools that say they are
//! read-only (`readOnlyHint`) run; a `rules.toml` tool rule denies a tool by name pattern; a
//! call is checked against the server's `inputSchema` before it reaches the server.

use serde_json::json;

use super::harness::{McpArena, call};

#[test]
fn read_only_mode_runs_tools_marked_read_only_and_refuses_the_others() {
    let arena = McpArena::new();
    arena.global(json!({"demo": arena.server("demo", &[], json!({}))}));
    let run = arena.run(
        &["--permission", "read-only"],
        &[],
        vec![vec![
            call("mcp__demo__echo", json!({"text": "allowed"})),
            call("mcp__demo__add", json!({"a": 1, "b": 2})),
        ]],
    );
    run.settled();
    let results = run.results();
    assert_eq!(
        results[0],
        (
            "mcp__demo__echo".to_owned(),
            "echo: allowed".to_owned(),
            false
        )
    );
    assert!(results[1].2, "{results:?}");
    assert!(
        results[1].1.contains("not available in read-only mode")
            && results[1].1.contains("readOnlyHint"),
        "{results:?}"
    );
}

#[test]
fn a_tool_rule_denies_matching_mcp_tools_and_leaves_the_rest() {
    let arena = McpArena::new();
    arena.global(json!({"demo": arena.server("demo", &[], json!({}))}));
    std::fs::write(
        arena.rho_home.join("rules.toml"),
        "[[rule]]\ndecision = \"deny\"\ntool = \"mcp__demo__a*\"\n",
    )
    .unwrap();
    let run = arena.run(
        &[],
        &[],
        vec![vec![
            call("mcp__demo__add", json!({"a": 1, "b": 2})),
            call("mcp__demo__echo", json!({"text": "fine"})),
        ]],
    );
    run.settled();
    let results = run.results();
    assert!(results[0].2, "{results:?}");
    assert!(
        results[0].1.contains("is denied by a tool rule"),
        "{results:?}"
    );
    assert_eq!(
        results[1],
        ("mcp__demo__echo".to_owned(), "echo: fine".to_owned(), false)
    );
}

#[test]
fn arguments_that_break_the_servers_schema_never_reach_it() {
    let arena = McpArena::new();
    let wire = arena.base.join("wire.log");
    let fields = json!({"env": {"WIRE_LOG": wire.display().to_string()}});
    arena.global(json!({"demo": arena.server("demo", &[], fields)}));
    let run = arena.run(
        &[],
        &[],
        vec![vec![call("mcp__demo__add", json!({"a": "one"}))]],
    );
    run.settled();
    let results = run.results();
    assert!(results[0].2, "{results:?}");
    assert!(
        results[0]
            .1
            .starts_with("Validation failed for tool \"mcp__demo__add\""),
        "{results:?}"
    );
    let wire = std::fs::read_to_string(&wire).unwrap_or_default();
    assert!(!wire.contains("tools/call"), "{wire}");
}
