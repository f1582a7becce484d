//! OAuth sign-in through the rho binary against a loopback MCP server with its own
//! authorization server (`rho-mcp/tests/servers/oauth_server.py`), for what the conformance
//! suite does not reach: tokens stored privately per name and URL, an expired token refreshed
//! before the call, a revoked refresh token asking for a new sign-in (and `/mcp` saying so),
//! one URL under two names signed in apart, logout deleting only its own tokens, the redirect
//! pasted by hand over RPC, and a sign-in done by another rho picked up by a running session.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::mcp_runs::harness::{McpArena, call};
use crate::rpc_protocol::harness::Rpc;

/// The loopback server, stopped when dropped.
pub(crate) struct OAuthServer {
    child: Child,
    port: u16,
}

impl OAuthServer {
    pub(crate) fn start(dir: &Path) -> OAuthServer {
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../rho-mcp/tests/servers/oauth_server.py");
        let port_file = dir.join("oauth.port");
        let child = Command::new("python3")
            .arg(script)
            .arg(&port_file)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let started = Instant::now();
        let port = loop {
            if let Ok(text) = std::fs::read_to_string(&port_file)
                && let Ok(port) = text.trim().parse()
            {
                break port;
            }
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "the OAuth server did not start"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        OAuthServer { child, port }
    }

    pub(crate) fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    /// One request; the status line and the headers and body as text.
    fn request(&self, method: &str, path: &str) -> String {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        write!(
            stream,
            "{method} {path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
        )
        .unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        response
    }

    fn log(&self) -> Value {
        let response = self.request("GET", "/control/log");
        let body = response.split("\r\n\r\n").nth(1).unwrap_or("{}");
        serde_json::from_str(body).unwrap()
    }

    fn revoke(&self) {
        self.request("POST", "/control/revoke");
    }

    /// Where the authorization endpoint sends the browser for `authorization_url`.
    fn redirect_of(&self, authorization_url: &str) -> String {
        let path = authorization_url
            .split_once(&format!("127.0.0.1:{}", self.port))
            .map(|(_, path)| path.to_owned())
            .unwrap();
        let response = self.request("GET", &path);
        response
            .lines()
            .find_map(|line| line.strip_prefix("location: "))
            .unwrap()
            .trim()
            .to_owned()
    }
}

impl Drop for OAuthServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A "browser" that follows the redirects back to rho's loopback callback.
pub(crate) fn browser(dir: &Path) -> PathBuf {
    let path = dir.join("browser");
    std::fs::write(
        &path,
        "#!/bin/sh\nexec curl -sS -L -o /dev/null --max-time 20 \"$1\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// `rho mcp <args>` with the following browser: (exit code, stdout, stderr).
fn rho_mcp(arena: &McpArena, args: &[&str]) -> (i32, String, String) {
    let browser = browser(&arena.base);
    let output = arena
        .rho(&[("BROWSER", browser.to_str().unwrap())])
        .arg("mcp")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn auth_file(arena: &McpArena) -> Value {
    serde_json::from_str(&std::fs::read_to_string(arena.rho_home.join("mcp-auth.json")).unwrap())
        .unwrap()
}

/// Makes every stored access token expired (rho then refreshes it before using it).
fn expire_tokens(arena: &McpArena) {
    let mut file = auth_file(arena);
    for entry in file.as_object_mut().unwrap().values_mut() {
        entry["tokensExpireAt"] = json!(1000);
    }
    std::fs::write(arena.rho_home.join("mcp-auth.json"), file.to_string()).unwrap();
}

fn whoami(arena: &McpArena, server: &str) -> (String, bool, String) {
    let run = arena.run(
        &[],
        &[],
        vec![vec![call(&format!("mcp__{server}__whoami"), json!({}))]],
    );
    run.settled();
    let (_, text, error) = run.results().remove(0);
    (text, error, run.measured.stderr.clone())
}

#[test]
fn a_sign_in_stores_private_tokens_and_an_expired_token_is_refreshed_before_the_call() {
    let arena = McpArena::new();
    let server = OAuthServer::start(&arena.base);
    arena.global(json!({"srv": {"url": server.url(), "exposure": "direct"}}));

    let (code, out, err) = rho_mcp(&arena, &["login", "srv", "--timeout", "30"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("Sign in to MCP server \"srv\" in your browser:\nhttp://127.0.0.1:"),
        "{out}"
    );
    assert!(
        out.ends_with("Signed in to MCP server \"srv\" (1 tools).\n"),
        "{out}"
    );
    let path = arena.rho_home.join("mcp-auth.json");
    assert_eq!(
        std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let stored = &auth_file(&arena)[format!("mcp__srv|{}", server.url())];
    assert_eq!(stored["tokens"]["access_token"], "at-1", "{stored}");
    assert_eq!(stored["clientInformation"]["client_id"], "client-1");

    assert_eq!(whoami(&arena, "srv").0, "token at-1");
    expire_tokens(&arena);
    assert_eq!(whoami(&arena, "srv").0, "token at-2");
    assert_eq!(server.log()["refresh"], 1);
    // The tokens reach only mcp-auth.json: the refresh tokens (which the server never echoes,
    // unlike its whoami tool the access token) are in no event, message, log or session file.
    let run = arena.run(&[], &[], vec![vec![call("mcp__srv__whoami", json!({}))]]);
    for output in [&run.measured.stdout, &run.measured.stderr, &out, &err] {
        assert!(
            !output.contains("rt-1") && !output.contains("rt-2"),
            "{output}"
        );
    }
    for file in crate::hook_runs::harness::files_under(&arena.base) {
        if file.file_name().is_some_and(|n| n == "mcp-auth.json") {
            continue;
        }
        let text = String::from_utf8_lossy(&std::fs::read(&file).unwrap()).into_owned();
        assert!(
            !text.contains("rt-1") && !text.contains("rt-2"),
            "a refresh token in {}",
            file.display()
        );
    }
    let stored = &auth_file(&arena)[format!("mcp__srv|{}", server.url())];
    assert_eq!(stored["tokens"]["access_token"], "at-2");
    // Signed in already: nothing to do.
    let (code, out, _) = rho_mcp(&arena, &["login", "srv"]);
    assert_eq!(
        (code, out.trim()),
        (0, "Already signed in to MCP server \"srv\" (1 tools).")
    );
}

#[test]
fn a_revoked_refresh_token_asks_for_a_new_sign_in_and_slash_mcp_says_so() {
    let arena = McpArena::new();
    let server = OAuthServer::start(&arena.base);
    arena.global(json!({"srv": {"url": server.url(), "exposure": "direct"}}));
    assert_eq!(rho_mcp(&arena, &["login", "srv"]).0, 0);
    expire_tokens(&arena);
    server.revoke();

    let (text, error, stderr) = whoami(&arena, "srv");
    assert!(error && text.contains("not found"), "{text}");
    assert!(stderr.contains("srv: needs sign-in"), "{stderr}");
    assert_eq!(server.log()["refresh_rejected"], 1);
    // The dead tokens are gone from the file: every rho sees that a sign-in is needed.
    let stored = &auth_file(&arena)[format!("mcp__srv|{}", server.url())];
    assert!(stored.get("tokens").is_none(), "{stored}");

    let script = arena.base.join("text.json");
    std::fs::write(
        &script,
        json!({"turns": [[{"type": "text", "text": "ok"}]]}).to_string(),
    )
    .unwrap();
    let status = arena
        .rho(&[])
        .args(["-p", "--no-session", "--faux-script"])
        .arg(&script)
        .arg("/mcp")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&status.stdout),
        "srv: needs sign-in, run /mcp login srv (direct)\n"
    );

    let (code, out, err) = rho_mcp(&arena, &["login", "srv"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.ends_with("Signed in to MCP server \"srv\" (1 tools).\n"),
        "{out}"
    );
    assert_eq!(whoami(&arena, "srv").0, "token at-2");
}

#[test]
fn one_url_under_two_names_signs_in_apart_and_logout_deletes_only_its_own() {
    let arena = McpArena::new();
    let server = OAuthServer::start(&arena.base);
    arena.global(json!({
        "a": {"url": server.url(), "exposure": "direct"},
        "b": {"url": server.url(), "exposure": "direct"},
    }));
    assert_eq!(rho_mcp(&arena, &["login", "a"]).0, 0);
    let (code, out, _) = rho_mcp(&arena, &["list"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("a: connected, 1 tool (direct, global)\n"),
        "{out}"
    );
    assert!(out.contains("b: needs sign-in (direct, global)\n"), "{out}");
    assert!(out.contains("  sign in with: rho mcp login b\n"), "{out}");

    assert_eq!(rho_mcp(&arena, &["login", "b"]).0, 0);
    let file = auth_file(&arena);
    let (key_a, key_b) = (
        format!("mcp__a|{}", server.url()),
        format!("mcp__b|{}", server.url()),
    );
    assert_eq!(file[&key_a]["tokens"]["access_token"], "at-1");
    assert_eq!(file[&key_b]["tokens"]["access_token"], "at-2");
    assert_eq!(whoami(&arena, "b").0, "token at-2");

    let (code, out, _) = rho_mcp(&arena, &["logout", "a"]);
    assert_eq!((code, out.trim()), (0, "Signed out of MCP server \"a\"."));
    let file = auth_file(&arena);
    assert!(
        file.get(&key_a).is_none() && file.get(&key_b).is_some(),
        "{file}"
    );
    let (code, out, _) = rho_mcp(&arena, &["logout", "a"]);
    assert_eq!(
        (code, out.trim()),
        (0, "No stored credentials for MCP server \"a\".")
    );
    assert_eq!(whoami(&arena, "b").0, "token at-2");
    let (code, _, err) = rho_mcp(&arena, &["login", "c"]);
    assert_eq!(code, 1);
    assert_eq!(
        err.trim(),
        "No MCP server named \"c\". Did you mean \"a\"? Configured: a, b."
    );
}

#[test]
fn rpc_signs_in_with_a_pasted_redirect_and_a_session_picks_up_a_sign_in_made_elsewhere() {
    let arena = McpArena::new();
    let server = OAuthServer::start(&arena.base);
    arena.global(json!({
        "srv": {"url": server.url(), "exposure": "direct"},
        "other": {"url": server.url(), "exposure": "direct"},
    }));
    let script = arena.base.join("script.json");
    std::fs::write(
        &script,
        json!({"turns": [], "fallback": [{"type": "tool_call", "name": "mcp__other__whoami", "arguments": {}}]})
            .to_string(),
    )
    .unwrap();
    let script = script.display().to_string();
    // A "browser" that opens nothing: the redirect is pasted.
    let mut rpc = Rpc::start_with_env(
        &arena.project,
        &arena.rho_home,
        &["--no-session", "--faux-script", &script, "--max-turns", "1"],
        &[("BROWSER", "/bin/true")],
    );
    rpc.send(json!({"id": "in", "type": "prompt", "message": "/mcp login srv"}));
    let (shown, _) = rpc.until(|l| l["type"] == "extension_ui_request" && l["method"] == "notify");
    let message = shown["message"].as_str().unwrap();
    let authorization_url = message.lines().nth(1).unwrap();
    assert!(
        message.starts_with("Sign in to MCP server \"srv\" in your browser:"),
        "{message}"
    );
    let (asked, _) = rpc.until(|l| l["type"] == "extension_ui_request" && l["method"] == "input");
    assert_eq!(
        asked["placeholder"],
        "http://127.0.0.1:.../callback?code=..."
    );
    let redirect = server.redirect_of(authorization_url);
    rpc.send(json!({"type": "extension_ui_response", "id": asked["id"], "value": redirect}));
    let (done, _) = rpc.until(|l| l["type"] == "extension_ui_request" && l["method"] == "notify");
    assert_eq!(
        done["message"],
        "Signed in to MCP server \"srv\" (1 tools)."
    );
    assert_eq!(rpc.next()["data"]["disposition"], "handled");

    // Another rho signs `other` in; the session's next prompt connects it and calls its tool.
    let (code, _, err) = rho_mcp(&arena, &["login", "other"]);
    assert_eq!(code, 0, "{err}");
    rpc.send(json!({"id": "p", "type": "prompt", "message": "who am I?"}));
    let (end, _) = rpc.until(|l| l["type"] == "tool_execution_end");
    assert_eq!(end["result"]["content"][0]["text"], "token at-2", "{end}");
    rpc.until(|l| l["type"] == "agent_settled");
    assert!(rpc.close_stdin_and_wait(Duration::from_secs(20)).success());
}
