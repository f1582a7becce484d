//! Keys in RPC mode: `--api-key` reaches the session's requests, and a `!command` key that is
//! still running when SIGTERM comes is killed with its whole process group while the session is
//! flushed (issue 21).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::{Duration, Instant};

use rho_testkit::{MockResponse, MockServer};
use serde_json::{Value, json};

use crate::rpc_protocol::harness::Rpc;

fn answer(text: &str) -> MockResponse {
    let chunk = |delta: Value, finish: Option<&str>| {
        json!({"id": "c1", "model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
            .to_string()
    };
    MockResponse::sse(&[
        &chunk(json!({"role": "assistant", "content": text}), None),
        &chunk(json!({}), Some("stop")),
        "[DONE]",
    ])
}

fn write_models(home: &Path, server: &MockServer, providers: &[(&str, &str)]) {
    let mut all = serde_json::Map::new();
    for (name, key) in providers {
        all.insert(
            (*name).to_owned(),
            json!({"baseUrl": format!("{}/v1", server.base_url()), "api": "openai-completions",
                   "apiKey": key, "models": [{"id": "m"}]}),
        );
    }
    std::fs::create_dir_all(home).unwrap();
    std::fs::write(
        home.join("models.json"),
        json!({"providers": all}).to_string(),
    )
    .unwrap();
}

/// The processes of group `pgid` that still run (zombies, killed and not yet reaped, do not).
fn running_in_group(pgid: i32) -> Vec<i32> {
    let mut running = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid pgrp …`; comm may hold spaces, so split after its `)`.
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.first() != Some(&"Z") && fields.get(2) == Some(&pgid.to_string().as_str()) {
            running.push(pid);
        }
    }
    running
}

fn settle(rpc: &mut Rpc) {
    rpc.until(|line| line["type"] == "agent_settled");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn the_api_key_flag_reaches_the_requests_of_an_rpc_session() {
    let server = MockServer::start(vec![answer("one")]).await;
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    write_models(&home, &server, &[("mock", "sk-from-models-json")]);
    let mut rpc = Rpc::start_with(
        dir.path(),
        &home,
        &[
            "--provider",
            "mock",
            "--model",
            "m",
            "--api-key",
            "sk-from-the-flag",
            "--no-session",
        ],
    );
    rpc.send(json!({"id": "p", "type": "prompt", "message": "hi"}));
    settle(&mut rpc);
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        requests[0].header("authorization"),
        Some("Bearer sk-from-the-flag")
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn sigterm_during_a_slow_key_command_exits_143_flushed_and_kills_its_process_group() {
    let server = MockServer::start(vec![answer("noted")]).await;
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let pid_file = dir.path().join("key.pid");
    let slow = format!("!echo $$ > {}; sleep 60; echo sk-slow", pid_file.display());
    write_models(&home, &server, &[("mock", "sk-fast"), ("slow", &slow)]);
    let mut rpc = Rpc::start_with(
        dir.path(),
        &home,
        &[
            "--provider",
            "mock",
            "--model",
            "m",
            "--session-dir",
            "sessions",
        ],
    );
    rpc.send(json!({"id": "p", "type": "prompt", "message": "remember this"}));
    settle(&mut rpc);
    // The switch resolves the slow provider's key: its command runs until killed.
    rpc.send(json!({"id": "s", "type": "set_model", "provider": "slow", "modelId": "m"}));
    let started = Instant::now();
    let pgid = loop {
        if let Ok(text) = std::fs::read_to_string(&pid_file)
            && let Ok(pid) = text.trim().parse::<i32>()
        {
            break pid;
        }
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the key command never ran"
        );
        std::thread::sleep(Duration::from_millis(10));
    };
    rpc.signal("TERM");
    let status = rpc.wait_for_exit(Duration::from_secs(20));
    assert_eq!(status.code(), Some(143));
    // A SIGKILL takes effect when the process is next scheduled.
    let deadline = Instant::now() + Duration::from_secs(10);
    while !running_in_group(pgid).is_empty() && Instant::now() < deadline {
        std::thread::yield_now();
    }
    assert_eq!(
        running_in_group(pgid),
        Vec::<i32>::new(),
        "the key command's process group outlived rho"
    );
    let files: Vec<_> = std::fs::read_dir(dir.path().join("sessions"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1);
    let text = std::fs::read_to_string(&files[0]).unwrap();
    assert!(
        text.contains("remember this") && text.contains("noted"),
        "{text}"
    );
}
