//! What one MCP tool call costs rho above the server's own time: the same `tools/call` of the
//! scripted server's `echo` made by a bare client (one line written to the server's stdin, one
//! line read back: the server's own time plus two pipe hops, the floor), by rho's `Server`
//! (rmcp, progress subscription, timeout), and the conversion of the result into the tool
//! result the model sees.
//!
//! Run: `cargo bench -p rho-mcp --bench call`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;

use criterion::Criterion;
use rho_mcp::config::validate;
use rho_mcp::convert::{Conversion, OutputFiles, call_result};
use rho_mcp::log::McpLog;
use rho_mcp::{Defaults, McpContext, NoCredentials, Scope, Server, ServerEntry};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

fn script() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/servers/scripted.py")
        .display()
        .to_string()
}

fn line(value: Value) -> String {
    format!("{value}\n")
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    let mut group = criterion.benchmark_group("mcp call");

    // The floor: a bare client on the server's pipes.
    let mut child = Command::new("python3")
        .arg(script())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut answer = String::new();
    stdin
        .write_all(
            line(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "floor", "version": "1"}}}))
            .as_bytes(),
        )
        .unwrap();
    stdout.read_line(&mut answer).unwrap();
    stdin
        .write_all(
            line(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).as_bytes(),
        )
        .unwrap();
    let call = line(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "hello"}}}));
    group.bench_function("bare client (floor)", |b| {
        b.iter(|| {
            stdin.write_all(call.as_bytes()).unwrap();
            stdin.flush().unwrap();
            answer.clear();
            stdout.read_line(&mut answer).unwrap();
        });
    });
    drop(stdin);
    child.wait().unwrap();

    // rho's client on a server of its own.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let server = runtime.block_on(async {
        let (signals, _receiver) = tokio::sync::mpsc::unbounded_channel();
        let context = Arc::new(McpContext {
            cwd: dir.path().to_path_buf(),
            log: Arc::new(McpLog::new(dir.path().join("mcp.log"))),
            elicitor: Arc::new(Defaults),
            signals,
            tool_environment: Arc::new(rho_gate::ToolEnvironment::default()),
            credentials: Arc::new(NoCredentials),
            http: rho_http::HttpClient::shared(),
            auth: None,
        });
        let config = validate("demo", json!({"command": "python3", "args": [script()]})).unwrap();
        let entry = ServerEntry {
            name: "demo".into(),
            config,
            source: dir.path().join("mcp.json"),
            scope: Scope::Global,
            override_source: None,
        };
        let server = Server::new(entry, context);
        server.ensure_connected().await.unwrap();
        server
    });
    let mut arguments = Map::new();
    arguments.insert("text".into(), "hello".into());
    let cancel = CancellationToken::new();
    group.bench_function("rho's Server::call_tool", |b| {
        b.iter(|| {
            runtime
                .block_on(server.call_tool("echo", arguments.clone(), &cancel, |_| {}))
                .unwrap()
        });
    });
    let result = runtime
        .block_on(server.call_tool("echo", arguments.clone(), &cancel, |_| {}))
        .unwrap();
    group.bench_function("the result converted for the model", |b| {
        let conversion = Conversion {
            server: "demo",
            tool: "echo",
            offers_resources: true,
            saver: &OutputFiles,
        };
        b.iter(|| call_result(result.clone(), &conversion).unwrap());
    });
    group.finish();
    runtime.block_on(server.shutdown());
    criterion.final_summary();
}
