//! A real stdio server (`tests/servers/scripted.py`, a process speaking MCP) driven through
//! `Server`: connect, list, call, progress, timeouts and aborts that say `notifications/
//! cancelled`, a server that crashes, exits at start, hangs, floods stderr or writes garbage,
//! reconnection, `tools/list_changed`, logging to `mcp.log`, elicitation, and shutdown that
//! stops the whole process group.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rho_mcp::config::validate;
use rho_mcp::log::McpLog;
use rho_mcp::{
    Defaults, McpContext, NoCredentials, Phase, Scope, Server, ServerEntry, ServerSignal,
};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/servers/scripted.py")
}

/// A scripted server with `args`, its wire log and `extra` config fields, in a temp dir.
pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub server: Arc<Server>,
    pub signals: mpsc::UnboundedReceiver<ServerSignal>,
}

impl Fixture {
    pub fn wire(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("wire.log")).unwrap_or_default()
    }

    /// Waits (bounded) until the wire log holds `text`.
    pub async fn wait_wire(&self, text: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let wire = self.wire();
            if wire.contains(text) || Instant::now() > deadline {
                return wire;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

pub fn fixture(args: &[&str], extra: Value) -> Fixture {
    fixture_with(args, extra, rho_gate::ToolEnvironment::default())
}

pub fn fixture_with(
    args: &[&str],
    extra: Value,
    tool_environment: rho_gate::ToolEnvironment,
) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let argv: Vec<String> = std::iter::once(script().display().to_string())
        .chain(args.iter().map(|a| (*a).to_owned()))
        .collect();
    let mut entry = json!({
        "command": "python3",
        "args": argv,
        "env": {"WIRE_LOG": dir.path().join("wire.log").display().to_string(), "PID_FILE": dir.path().join("pid").display().to_string()},
    });
    if let (Value::Object(entry), Value::Object(extra)) = (&mut entry, extra) {
        entry.extend(extra);
    }
    let config = validate("demo", entry).unwrap();
    let (tx, signals) = mpsc::unbounded_channel();
    let context = Arc::new(McpContext {
        cwd: dir.path().to_path_buf(),
        log: Arc::new(McpLog::new(dir.path().join("mcp.log"))),
        elicitor: Arc::new(Defaults),
        signals: tx,
        tool_environment: Arc::new(tool_environment),
        credentials: Arc::new(NoCredentials),
        http: rho_http::HttpClient::shared(),
        auth: None,
    });
    let entry = ServerEntry {
        name: "demo".to_owned(),
        config,
        source: dir.path().join("mcp.json"),
        scope: Scope::Global,
        override_source: None,
    };
    Fixture {
        server: Server::new(entry, context),
        dir,
        signals,
    }
}

async fn call(server: &Arc<Server>, tool: &str, args: Value) -> Result<Value, String> {
    let Value::Object(args) = args else {
        panic!("not an object")
    };
    server
        .call_tool(tool, args, &CancellationToken::new(), |_| {})
        .await
}

#[tokio::test]
async fn a_stdio_server_connects_lists_its_tools_and_answers_calls() {
    let f = fixture(&[], json!({}));
    f.server.ensure_connected().await.unwrap();
    let snapshot = f.server.snapshot();
    assert_eq!(snapshot.phase, Phase::Connected);
    assert_eq!(snapshot.tools[0].name, "echo");
    assert_eq!(snapshot.tools.len(), 17);
    assert_eq!(
        snapshot.instructions.as_deref(),
        Some("Scripted test server.\nSecond line.")
    );
    assert!(snapshot.has_resources);
    let echoed = call(&f.server, "echo", json!({"text": "hi"}))
        .await
        .unwrap();
    assert_eq!(
        echoed,
        json!({"content": [{"type": "text", "text": "echo: hi"}], "isError": false})
    );
    // The server saw rho's handshake: 2025-11-25, rho's name, roots and elicitation, and the
    // call's progress token.
    let wire = f.wire();
    let first: Value = serde_json::from_str(wire.lines().next().unwrap()).unwrap();
    assert_eq!(first["params"]["protocolVersion"], "2025-11-25");
    assert_eq!(first["params"]["clientInfo"]["name"], "rho");
    assert!(first["params"]["capabilities"]["elicitation"].is_object());
    assert!(first["params"]["capabilities"]["roots"].is_object());
    assert!(wire.contains("\"progressToken\""), "{wire}");
    f.server.shutdown().await;
}

#[tokio::test]
async fn progress_is_reported_and_restarts_the_timeout() {
    let f = fixture(&[], json!({"timeout": 0.3}));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let Value::Object(args) = json!({"steps": 10}) else {
        unreachable!()
    };
    // Ten notifications 50 ms apart: 0.5 s in all, past the 0.3 s timeout, which each one
    // starts again.
    let done = f
        .server
        .call_tool("progress", args, &CancellationToken::new(), move |text| {
            sink.lock().unwrap().push(text);
        })
        .await
        .unwrap();
    assert_eq!(done["content"][0]["text"], "done");
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 10);
    assert_eq!(seen[0], "Progress 1/10");
    assert_eq!(seen[9], "almost");
    f.server.shutdown().await;
}

#[tokio::test]
async fn a_timeout_and_an_abort_fail_the_call_and_tell_the_server() {
    let f = fixture(&[], json!({"timeout": 0.3}));
    let error = call(&f.server, "slow", json!({"seconds": 1}))
        .await
        .unwrap_err();
    assert_eq!(error, "MCP request timed out after 300ms");
    let wire = f.wait_wire("Request timed out").await;
    assert!(
        wire.contains(r#""method":"notifications/cancelled""#)
            && wire.contains("Request timed out"),
        "{wire}"
    );

    let cancel = CancellationToken::new();
    let stop = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        stop.cancel();
    });
    let Value::Object(args) = json!({"seconds": 0.2}) else {
        unreachable!()
    };
    let error = f
        .server
        .call_tool("slow", args, &cancel, |_| {})
        .await
        .unwrap_err();
    assert_eq!(error, "MCP request aborted");
    let wire = f.wait_wire("AbortError").await;
    assert!(
        wire.contains("AbortError: This operation was aborted"),
        "{wire}"
    );
    // The server is still connected and answers.
    assert!(call(&f.server, "echo", json!({"text": "x"})).await.is_ok());
    f.server.shutdown().await;
}

#[tokio::test]
async fn a_server_that_dies_mid_call_fails_the_call_and_is_started_again_on_the_next() {
    let f = fixture(&[], json!({}));
    let error = call(&f.server, "crash", json!({})).await.unwrap_err();
    assert_eq!(error, "MCP connection closed");
    // The call may see the drop before the process's end is noticed; once it is, the state
    // says why, with the server's stderr.
    let deadline = Instant::now() + Duration::from_secs(5);
    let has_tail = |s: &rho_mcp::Snapshot| {
        s.error
            .as_deref()
            .is_some_and(|e| e.contains("crashing on purpose"))
    };
    while !has_tail(&f.server.snapshot()) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let snapshot = f.server.snapshot();
    assert_eq!(snapshot.phase, Phase::Disconnected);
    assert!(
        snapshot
            .error
            .as_deref()
            .unwrap()
            .contains("crashing on purpose"),
        "{snapshot:?}"
    );
    let echoed = call(&f.server, "echo", json!({"text": "again"}))
        .await
        .unwrap();
    assert_eq!(echoed["content"][0]["text"], "echo: again");
    f.server.shutdown().await;
}

#[tokio::test]
async fn servers_that_exit_hang_or_answer_garbage_fail_with_the_reason() {
    let exits = fixture(&["--exit-at-start"], json!({}));
    let error = exits.server.ensure_connected().await.unwrap_err();
    assert!(
        error.starts_with("MCP server \"demo\" failed to connect: ")
            && error.ends_with("\ncannot start: no database"),
        "{error}"
    );
    assert_eq!(exits.server.snapshot().phase, Phase::Failed);

    let hangs = fixture(&["--hang-initialize"], json!({"timeout": 0.5}));
    let started = Instant::now();
    let error = hangs.server.ensure_connected().await.unwrap_err();
    assert_eq!(
        error,
        "MCP server \"demo\" failed to connect: MCP request timed out after 500ms"
    );
    assert!(started.elapsed() < Duration::from_secs(5));

    let floods = fixture(&["--flood-stderr"], json!({}));
    floods.server.ensure_connected().await.unwrap();
    floods.server.shutdown().await;

    // A line that is not JSON is skipped; the handshake goes on.
    let garbage = fixture(&["--garbage"], json!({"timeout": 2}));
    garbage.server.ensure_connected().await.unwrap();
    garbage.server.shutdown().await;

    let missing = fixture(&[], json!({"command": "/nonexistent/bin"}));
    assert_eq!(
        missing.server.ensure_connected().await.unwrap_err(),
        "MCP server \"demo\" failed to connect: spawn /nonexistent/bin ENOENT"
    );
}

#[tokio::test]
async fn shutdown_stops_the_whole_process_group_even_a_server_that_ignores_sigterm() {
    let f = fixture(&["--linger"], json!({}));
    f.server.ensure_connected().await.unwrap();
    let pid: i32 = std::fs::read_to_string(f.dir.path().join("pid"))
        .unwrap()
        .parse()
        .unwrap();
    let started = Instant::now();
    f.server.shutdown().await;
    // SAFETY: signal 0 only checks that the process exists.
    let alive = unsafe { libc::kill(pid, 0) } == 0;
    assert!(!alive, "the server outlived the shutdown");
    // Closed stdin, 0.5 s, SIGTERM (ignored), 2 s, SIGKILL.
    assert!(
        started.elapsed() >= Duration::from_millis(2400),
        "{:?}",
        started.elapsed()
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(f.server.snapshot().phase, Phase::Closed);
}

#[tokio::test]
async fn list_changes_logging_and_elicitation_reach_rho() {
    let mut f = fixture(&[], json!({}));
    call(&f.server, "grow", json!({})).await.unwrap();
    let signal = tokio::time::timeout(Duration::from_secs(5), f.signals.recv()).await;
    assert_eq!(
        signal.unwrap(),
        Some(ServerSignal::ToolsChanged("demo".to_owned()))
    );
    f.server.refresh_tools().await;
    let names: Vec<String> = f
        .server
        .snapshot()
        .tools
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert_eq!(names.last().map(String::as_str), Some("added"));

    call(&f.server, "log", json!({})).await.unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    let log_path = f.dir.path().join("mcp.log");
    while !log_path.exists() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let log = std::fs::read_to_string(&log_path).unwrap();
    assert!(
        log.ends_with(" [demo] warning mylog: hello\n    world\n"),
        "{log}"
    );

    let answer = call(&f.server, "elicit", json!({})).await.unwrap();
    assert_eq!(
        answer["content"][0]["text"],
        r#"{"action": "accept", "content": {"age": 36, "name": "Ada"}}"#
    );
    f.server.shutdown().await;
}

#[tokio::test]
async fn a_server_gets_rhos_environment_as_tools_get_it_plus_its_own_env() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("env.txt");
    // A rule that drops HOME and USER as if they were keys: the server's own `env` may still
    // hand it a value on purpose, resolved from rho's environment.
    let settings: rho_gate::ToolEnvironmentSettings =
        serde_json::from_value(json!({"exclude": ["HOME", "USER"]})).unwrap();
    let rule = rho_gate::ToolEnvironment::new(&settings, &[]).unwrap();
    let f = fixture_with(
        &[],
        json!({"command": "sh", "args": ["-c", format!("env > {} && exec python3 {}", out.display(), script().display())],
               "env": {"GIVEN": "!printf given", "HOME_TOO": "${HOME}"}}),
        rule,
    );
    f.server.ensure_connected().await.unwrap();
    let env = std::fs::read_to_string(&out).unwrap();
    let names: Vec<&str> = env
        .lines()
        .filter_map(|l| l.split_once('=').map(|(k, _)| k))
        .collect();
    assert!(env.contains("GIVEN=given\n"), "{env}");
    assert!(env.contains("PI_CODING_AGENT=true\n"));
    assert!(
        names.contains(&"HOME_TOO") && names.contains(&"PATH"),
        "{names:?}"
    );
    assert!(
        !names.contains(&"HOME") && !names.contains(&"USER"),
        "{names:?}"
    );
    f.server.shutdown().await;
}
