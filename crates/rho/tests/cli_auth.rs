//! `rho auth login|logout|status`: keys stored in Pi's auth.json format with mode 0600, used by
//! runs, and never printed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use rho_testkit::{MockResponse, MockServer};
use serde_json::{Value, json};

const KEY: &str = "sk-ant-very-secret-4242";

fn auth(home: &Path, args: &[&str], stdin: &str, env: &[(&str, &str)]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rho"))
        .env_clear()
        .env("RHO_HOME", home)
        .envs(env.iter().copied())
        .arg("auth")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    for stream in [&output.stdout, &output.stderr] {
        assert!(
            !String::from_utf8_lossy(stream).contains(KEY),
            "the key was printed"
        );
    }
    output
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn login_stores_the_piped_key_in_pis_format_with_mode_0600_creating_rho_home() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("new/home");
    let output = auth(&home, &["login", "anthropic"], &format!("  {KEY}\n"), &[]);
    let file = home.join("auth.json");
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout),
        format!("Stored the API key for anthropic in {}\n", file.display())
    );
    let stored: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(
        stored,
        json!({"anthropic": {"type": "api_key", "key": KEY}})
    );
    assert_eq!(mode(&file), 0o600);
    assert_eq!(mode(&home), 0o700);
}

#[test]
fn status_lists_providers_with_a_key_and_where_it_comes_from_and_logout_removes_it() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    std::fs::write(
        home.join("auth.json"),
        json!({"openai": {"type": "api_key", "key": "sk-other"}}).to_string(),
    )
    .unwrap();
    assert_eq!(
        auth(home, &["login", "anthropic"], KEY, &[]).status.code(),
        Some(0)
    );
    let env = [("OPENAI_API_KEY", KEY), ("GEMINI_API_KEY", "")];
    let status = auth(home, &["status"], "", &env);
    assert_eq!(status.status.code(), Some(0));
    assert_eq!(
        text(&status.stdout),
        "anthropic: auth.json\nopenai: auth.json, env OPENAI_API_KEY\n"
    );

    let logout = auth(home, &["logout", "anthropic"], "", &[]);
    assert_eq!(
        text(&logout.stdout),
        format!(
            "Removed the key for anthropic from {}\n",
            home.join("auth.json").display()
        )
    );
    let stored: Value =
        serde_json::from_str(&std::fs::read_to_string(home.join("auth.json")).unwrap()).unwrap();
    assert_eq!(
        stored,
        json!({"openai": {"type": "api_key", "key": "sk-other"}})
    );
    assert_eq!(mode(&home.join("auth.json")), 0o600);
    assert_eq!(
        auth(home, &["logout", "openai"], "", &[]).status.code(),
        Some(0)
    );
    assert_eq!(
        text(&auth(home, &["status"], "", &[]).stdout),
        "No API keys configured.\n"
    );
}

#[test]
fn bad_logins_exit_2_with_one_line_and_leave_auth_json_alone() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path();
    let empty = auth(home, &["login", "anthropic"], "\n", &[]);
    assert_eq!(empty.status.code(), Some(2));
    assert_eq!(
        text(&empty.stderr),
        "Error: no API key on standard input (pipe it in: echo \"$KEY\" | rho auth login anthropic)\n"
    );
    let unknown = auth(home, &["login", "nope"], KEY, &[]);
    assert_eq!(unknown.status.code(), Some(2));
    assert_eq!(
        text(&unknown.stderr),
        "Error: Unknown provider \"nope\". Use --list-models to see available providers/models.\n"
    );
    assert!(!home.join("auth.json").exists());
    std::fs::write(home.join("auth.json"), "{broken").unwrap();
    let broken = auth(home, &["login", "anthropic"], KEY, &[]);
    assert_eq!(broken.status.code(), Some(2));
    assert_eq!(text(&broken.stderr).lines().count(), 1);
    assert_eq!(
        std::fs::read_to_string(home.join("auth.json")).unwrap(),
        "{broken"
    );
    let no_command = auth(home, &[], "", &[]);
    assert_eq!(no_command.status.code(), Some(2));
    assert_eq!(text(&no_command.stderr).lines().count(), 1);
}

#[tokio::test]
async fn a_run_uses_the_key_stored_by_login_over_the_models_json_key() {
    let chunk = json!({"id": "c", "model": "m", "choices": [{"index": 0, "delta": {"content": "ok"}, "finish_reason": "stop"}]});
    let server = MockServer::start(vec![MockResponse::sse(&[&chunk.to_string(), "[DONE]"])]).await;
    let dir = tempfile::tempdir().unwrap();
    let models = json!({"providers": {"mock": {
        "baseUrl": format!("{}/v1", server.base_url()),
        "api": "openai-completions",
        "apiKey": "models-json-key",
        "models": [{"id": "m"}]
    }}});
    std::fs::write(dir.path().join("models.json"), models.to_string()).unwrap();
    assert_eq!(
        auth(dir.path(), &["login", "mock"], KEY, &[]).status.code(),
        Some(0)
    );
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_rho"))
        .current_dir(dir.path())
        .env_clear()
        .env("RHO_HOME", dir.path())
        .args(["-p", "--model", "mock/m", "hi"])
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    assert_eq!(text(&output.stdout), "ok\n");
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
}
