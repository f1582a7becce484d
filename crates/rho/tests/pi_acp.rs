//! The npm ACP adapter `pi-acp` (what Pi users run to reach Zed and other editors) with rho in
//! `pi`'s place: `tests/acp/run-pi-acp.mjs` is an ACP client (`@agentclientprotocol/sdk`) that
//! starts `pi-acp`, which starts `rho --mode rpc` (as `PI_ACP_PI_COMMAND`), over the shared
//! loopback mock LLM. It opens a session, runs a prompt with two `read` calls, loads the
//! session again in a new process and checks every ACP update and every RPC answer. With
//! `--direct` the same client and checks drive `rho acp` itself, with no adapter.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::process::Command;

use crate::peers::peer_home;

/// Where `.ci/run` installs the client's npm dependencies (from `tests/acp/package-lock.json`).
fn acp_modules() -> PathBuf {
    peer_home().join("acp-client")
}

/// Runs `tests/acp/run-pi-acp.mjs` with rho as the agent and `extra` arguments; its stdout,
/// after asserting every check passed.
fn run_script(extra: &[&str]) -> String {
    let node = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
        .then_some(())
        .ok_or_else(|| "node is not installed".to_owned());
    if rho_testkit::prerequisite::require("the ACP client needs Node", node).is_none() {
        return String::new();
    }
    let modules = acp_modules();
    assert!(
        modules.join("node_modules/pi-acp/package.json").is_file(),
        "pi-acp is not installed at {}; install it with: mkdir -p {0} && cp crates/rho/tests/acp/package*.json {0} && (cd {0} && npm ci)",
        modules.display()
    );
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let out = tempfile::tempdir().unwrap();
    let output = Command::new("node")
        .arg(here.join("tests/acp/run-pi-acp.mjs"))
        .arg("--modules")
        .arg(&modules)
        .arg("--agent-cmd")
        .arg(serde_json::json!([env!("CARGO_BIN_EXE_rho")]).to_string())
        .arg("--peers")
        .arg(here.join("../../../shared/peers"))
        .arg("--out")
        .arg(out.path())
        .args(extra)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

#[test]
fn pi_acp_runs_a_session_with_tool_calls_and_loads_it_again_over_rho() {
    let stdout = run_script(&[]);
    if stdout.is_empty() {
        return;
    }
    // Every check the script makes passed: the client, pi-acp and rho agreed throughout.
    assert!(stdout.ends_with("18 passed, 0 failed\n"), "{stdout}");
}

#[test]
fn rho_acp_passes_the_same_acp_checks_with_the_typescript_sdk_and_no_adapter() {
    let stdout = run_script(&["--direct"]);
    if stdout.is_empty() {
        return;
    }
    // The same client and checks, `rho acp` answering them itself (no RPC checks).
    assert!(stdout.ends_with("16 passed, 0 failed\n"), "{stdout}");
}
