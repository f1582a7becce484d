//! Project trust end to end: an untrusted project's `.rho/` files are ignored in print, JSON and
//! RPC modes with one notice on stderr naming them; `--approve` applies them; nothing inside
//! the project can mark it trusted.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

use rho_testkit::{MockResponse, MockServer};
use serde_json::{Value, json};

const NOTICE: &str = "rho: project not trusted; ignored .rho/settings.json, .rho/rules.toml, .rho/mcp.json, .rho/hooks, .rho/extensions, .rho/skills, .rho/prompts, .rho/SYSTEM.md, .rho/APPEND_SYSTEM.md (run with --approve to use them)\n";

fn answer() -> MockResponse {
    let chunk = json!({"id": "c", "model": "m", "choices": [{"index": 0, "delta": {"content": "ok"}, "finish_reason": "stop"}]});
    MockResponse::sse(&[&chunk.to_string(), "[DONE]"])
}

/// RHO_HOME (`home/`: provider `mock` with models `a` and `b`, default `a`) and a project whose
/// `.rho/` has one of each file, its settings asking for model `b`, full permission and trust,
/// and a `trust.json` of its own claiming trust.
fn layout(server: &MockServer) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let rho = dir.path().join("project/.rho");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(rho.join("skills/deploy")).unwrap();
    std::fs::create_dir_all(rho.join("prompts")).unwrap();
    let models = json!({"providers": {"mock": {
        "baseUrl": format!("{}/v1", server.base_url()),
        "api": "openai-completions",
        "apiKey": "sk-test",
        "models": [{"id": "a"}, {"id": "b"}]
    }}});
    std::fs::write(home.join("models.json"), models.to_string()).unwrap();
    let global = json!({"defaultProvider": "mock", "defaultModel": "a"});
    std::fs::write(home.join("settings.json"), global.to_string()).unwrap();
    let project = json!({"defaultModel": "b", "defaultProjectTrust": "always",
        "permission": "full", "allowDirs": ["/"]});
    std::fs::write(rho.join("settings.json"), project.to_string()).unwrap();
    let rules = "[[rule]]\ndecision = \"deny\"\nprefix = \"git push\"\n";
    std::fs::write(rho.join("rules.toml"), rules).unwrap();
    std::fs::write(
        rho.join("skills/deploy/SKILL.md"),
        "---\nname: deploy\ndescription: Ships the build.\n---\nRun make deploy.\n",
    )
    .unwrap();
    std::fs::write(rho.join("prompts/fix.md"), "Fix it properly.\n").unwrap();
    std::fs::write(rho.join("mcp.json"), r#"{"mcpServers": {}}"#).unwrap();
    std::fs::create_dir_all(rho.join("hooks")).unwrap();
    std::fs::create_dir_all(rho.join("extensions")).unwrap();
    std::fs::write(rho.join("SYSTEM.md"), "Project system prompt.\n").unwrap();
    std::fs::write(rho.join("APPEND_SYSTEM.md"), "Project append.\n").unwrap();
    let canonical = std::fs::canonicalize(dir.path().join("project")).unwrap();
    let claim = json!({ canonical.to_str().unwrap(): true });
    std::fs::write(rho.join("trust.json"), claim.to_string()).unwrap();
    dir
}

fn rho(dir: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_rho"));
    command
        .current_dir(dir.join("project"))
        .env_clear()
        .env("RHO_HOME", dir.join("home"))
        .env("HOME", dir.join("home"));
    command
}

/// The model, system prompt and user text of the one request.
fn request(server: &MockServer) -> (String, String, String) {
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let body: Value = requests[0].body_json().unwrap();
    let messages = body["messages"].as_array().unwrap();
    let user = messages.last().unwrap();
    let text = match &user["content"] {
        Value::String(text) => text.clone(),
        blocks => blocks[0]["text"].as_str().unwrap().to_owned(),
    };
    (
        body["model"].as_str().unwrap().to_owned(),
        messages[0]["content"].as_str().unwrap().to_owned(),
        text,
    )
}

fn assert_untrusted(server: &MockServer, stderr: &str) {
    assert_eq!(stderr, NOTICE);
    let (model, system, user) = request(server);
    assert_eq!(model, "a");
    assert!(!system.contains("Project system prompt."), "{system}");
    assert!(!system.contains("Project append."), "{system}");
    assert!(!system.contains("deploy"), "{system}");
    assert_eq!(user, "/fix");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn an_untrusted_projects_files_are_ignored_in_print_and_json_modes_with_one_notice() {
    for mode in [&["-p"][..], &["--mode", "json"][..]] {
        let server = MockServer::start(vec![answer()]).await;
        let dir = layout(&server);
        let output = rho(dir.path())
            .args(mode)
            .arg("/fix")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{output:?}");
        assert_untrusted(&server, &String::from_utf8(output.stderr).unwrap());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn an_untrusted_projects_files_are_ignored_in_rpc_mode_with_one_notice() {
    let server = MockServer::start(vec![answer()]).await;
    let dir = layout(&server);
    let mut child = rho(dir.path())
        .args(["--mode", "rpc", "--no-session"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(
        stdin,
        r#"{{"id": "p", "type": "prompt", "message": "/fix"}}"#
    )
    .unwrap();
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let line: Value = serde_json::from_str(&line.unwrap()).unwrap();
        if line["type"] == "agent_settled" || line["type"] == "agent_end" {
            break;
        }
    }
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    assert_untrusted(&server, &String::from_utf8(output.stderr).unwrap());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn approve_applies_the_projects_files_silently() {
    let server = MockServer::start(vec![answer()]).await;
    let dir = layout(&server);
    let output = rho(dir.path())
        .args(["-p", "--approve", "/fix"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(String::from_utf8(output.stderr).unwrap(), "");
    let (model, system, user) = request(&server);
    assert_eq!(model, "b");
    assert!(system.starts_with("Project system prompt."), "{system}");
    assert!(system.contains("Project append."), "{system}");
    assert_eq!(user.trim_end(), "Fix it properly.");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn the_trust_store_in_rho_home_trusts_and_no_approve_overrides_it() {
    let server = MockServer::start(vec![answer(), answer()]).await;
    let dir = layout(&server);
    std::fs::copy(
        dir.path().join("project/.rho/trust.json"),
        dir.path().join("home/trust.json"),
    )
    .unwrap();
    let output = rho(dir.path())
        .args(["-p", "-na", "/fix"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(output.stderr).unwrap(), NOTICE);
    let output = rho(dir.path())
        .args(["-p", "/fix"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(output.stderr).unwrap(), "");
    let bodies: Vec<String> = server
        .requests()
        .iter()
        .map(|request| request.body_json().unwrap()["model"].to_string())
        .collect();
    assert_eq!(bodies, ["\"a\"", "\"b\""]);
}

/// The tool results of a `--mode json` run, in order: (text, isError).
fn tool_results(stdout: &[u8]) -> Vec<(String, bool)> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|e| e["type"] == "message_end" && e["message"]["role"] == "toolResult")
        .map(|e| {
            let message = &e["message"];
            let text = message["content"][0]["text"]
                .as_str()
                .unwrap_or("")
                .to_owned();
            (text, message["isError"] == true)
        })
        .collect()
}

/// A trusted project's rule adds its `deny`; untrusted, the rule does not exist. Trusted or
/// not, its `permission: "full"` and `allowDirs: ["/"]` never let a tool write outside.
#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn a_trusted_projects_rules_deny_but_its_permission_and_allow_dirs_never_widen() {
    let server = MockServer::start(vec![]).await;
    let dir = layout(&server);
    let outside = dir.path().join("outside.txt");
    let script = dir.path().join("script.json");
    let turns = json!({"turns": [
        [
            {"type": "tool_call", "name": "bash", "arguments": {"command": "git push --dry-run"}},
            {"type": "tool_call", "name": "write",
             "arguments": {"path": outside.to_str().unwrap(), "content": "escaped"}}
        ],
        [{"type": "text", "text": "done"}]
    ]});
    std::fs::write(&script, turns.to_string()).unwrap();
    let run = |trust: &str| {
        rho(dir.path())
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .args(["--mode", "json", "--no-session", trust, "--faux-script"])
            .arg(&script)
            .arg("go")
            .stdin(Stdio::null())
            .output()
            .unwrap()
    };
    let refused_outside = format!(
        "Path {} is outside the allowed directories: {}. Use --allow-dir to allow it.",
        outside.display(),
        std::fs::canonicalize(dir.path().join("project"))
            .unwrap()
            .display()
    );
    let denied = "Command \"git push --dry-run\" is denied by a command rule";

    let untrusted = run("--no-approve");
    assert_eq!(String::from_utf8_lossy(&untrusted.stderr), NOTICE);
    let results = tool_results(&untrusted.stdout);
    assert_eq!(results.len(), 2, "{results:?}");
    assert!(!results[0].0.contains(denied), "{results:?}");
    assert_eq!(results[1], (refused_outside.clone(), true));

    let trusted = run("--approve");
    assert_eq!(String::from_utf8_lossy(&trusted.stderr), "");
    let results = tool_results(&trusted.stdout);
    assert!(results[0].0.starts_with(denied), "{results:?}");
    assert!(results[0].1);
    assert_eq!(results[1], (refused_outside, true));
    assert!(!outside.exists());
}

/// A trusted project may make the permission stricter than the user's.
#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn a_trusted_projects_stricter_permission_applies() {
    let server = MockServer::start(vec![]).await;
    let dir = layout(&server);
    let settings = dir.path().join("project/.rho/settings.json");
    std::fs::write(&settings, json!({"permission": "read-only"}).to_string()).unwrap();
    let script = dir.path().join("script.json");
    let turns = json!({"turns": [
        [{"type": "tool_call", "name": "write", "arguments": {"path": "new.txt", "content": "x"}}],
        [{"type": "text", "text": "done"}]
    ]});
    std::fs::write(&script, turns.to_string()).unwrap();
    let output = rho(dir.path())
        .args([
            "--mode",
            "json",
            "--no-session",
            "--approve",
            "--faux-script",
        ])
        .arg(&script)
        .arg("go")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let results = tool_results(&output.stdout);
    assert_eq!(
        results,
        [(
            "The write tool is not available in read-only mode (--permission read-only). Use --permission workspace-write to allow changes.".to_owned(),
            true
        )]
    );
    assert!(!dir.path().join("project/new.txt").exists());
}
