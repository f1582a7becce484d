//! The servers' life in a session, through the rho binary: a tool list that changes, a deferred
//! tool loaded by `tool_search` and still declared when the session is resumed, logging
//! notifications in `mcp.log`, and elicitation answered headless with the form's defaults.

use serde_json::json;

use super::harness::{McpArena, call};

#[test]
fn a_tool_the_server_adds_with_list_changed_is_callable_at_the_next_turn() {
    let arena = McpArena::new();
    arena.global(json!({"demo": arena.server("demo", &[], json!({}))}));
    let run = arena.run(
        &[],
        &[],
        vec![
            vec![call("mcp__demo__grow", json!({}))],
            vec![call("mcp__demo__added", json!({}))],
        ],
    );
    run.settled();
    let results = run.results();
    assert_eq!(
        results[0],
        ("mcp__demo__grow".to_owned(), "grown".to_owned(), false)
    );
    assert_eq!(
        results[1],
        (
            "mcp__demo__added".to_owned(),
            "added after list_changed".to_owned(),
            false
        )
    );
    // The model was told of the new tool in a `system` message.
    assert!(
        run.declared_tools()
            .contains(&"mcp__demo__added".to_owned())
    );
}

#[test]
fn a_deferred_tool_loaded_by_tool_search_stays_declared_when_the_session_is_resumed() {
    let arena = McpArena::new();
    let fields = json!({"exposure": "deferred"});
    arena.global(json!({"demo": arena.server("demo", &[], fields)}));
    let first = arena.run(
        &[],
        &[],
        vec![
            vec![call("tool_search", json!({"query": "echo text back"}))],
            vec![call("mcp__demo__echo", json!({"text": "loaded"}))],
        ],
    );
    first.settled();
    let results = first.results();
    assert_eq!(results[0].0, "tool_search");
    assert!(results[0].1.contains("mcp__demo__echo"), "{results:?}");
    assert_eq!(
        results[1],
        (
            "mcp__demo__echo".to_owned(),
            "echo: loaded".to_owned(),
            false
        )
    );

    // Resumed: the first turn may call the loaded tool at once; it is declared again without
    // a new search.
    let resumed = arena.run(
        &["--continue"],
        &[],
        vec![vec![call(
            "mcp__demo__echo",
            json!({"text": "still loaded"}),
        )]],
    );
    resumed.settled();
    assert_eq!(
        resumed.results(),
        [(
            "mcp__demo__echo".to_owned(),
            "echo: still loaded".to_owned(),
            false
        )]
    );
}

#[test]
fn a_servers_log_messages_go_to_mcp_log_and_not_to_the_output() {
    let arena = McpArena::new();
    arena.global(json!({"demo": arena.server("demo", &[], json!({}))}));
    let run = arena.run(&[], &[], vec![vec![call("mcp__demo__log", json!({}))]]);
    run.settled();
    let log = std::fs::read_to_string(arena.rho_home.join("mcp.log")).unwrap();
    assert!(
        log.contains("demo") && log.contains("mylog") && log.contains("hello"),
        "{log}"
    );
    assert!(
        !run.measured.stderr.contains("hello"),
        "{}",
        run.measured.stderr
    );
    assert!(!run.measured.stdout.contains("mylog"));
}

#[test]
fn elicitation_with_nobody_to_ask_accepts_the_forms_defaults() {
    let arena = McpArena::new();
    arena.global(json!({"demo": arena.server("demo", &[], json!({}))}));
    let run = arena.run(&[], &[], vec![vec![call("mcp__demo__elicit", json!({}))]]);
    run.settled();
    assert_eq!(
        run.results(),
        [(
            "mcp__demo__elicit".to_owned(),
            r#"{"action": "accept", "content": {"age": 36, "name": "Ada"}}"#.to_owned(),
            false
        )]
    );
}
