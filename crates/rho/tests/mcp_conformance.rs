//! The official MCP client conformance suite (`@modelcontextprotocol/conformance` 0.1.16) judges
//! rho's MCP client: for each core scenario the suite starts its server and runs
//! `scripts/mcp-conformance-client`, which runs the rho binary with that server in its
//! `mcp.json` and a scripted model calling the scenario's tool. The suite exits 0 only when every
//! check passed with no warning, the client finished in time and exited 0.
#![allow(clippy::expect_used)]

use std::path::PathBuf;
use std::process::Command;

use crate::peers;

fn client_script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/mcp-conformance-client")
}

fn passes(scenario: &str) {
    let Some(suite) = peers::mcp_conformance() else {
        return;
    };
    let results = tempfile::tempdir().expect("a results directory");
    let output = Command::new(peers::node22())
        .arg(&suite)
        .args(["client", "--scenario", scenario, "--timeout", "60000"])
        .arg("--command")
        .arg(client_script())
        .arg("-o")
        .arg(results.path())
        .env("RHO", env!("CARGO_BIN_EXE_rho"))
        .output()
        .expect("the conformance suite runs");
    let said = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
    assert!(
        output.status.success(),
        "conformance scenario {scenario} failed ({}):\n{}\n{}",
        output.status,
        said(&output.stdout),
        said(&output.stderr)
    );
    // The suite says which checks it ran; at least one passed (a scenario that checked nothing
    // would prove nothing).
    assert!(
        said(&output.stderr).contains("SUCCESS") || said(&output.stdout).contains("SUCCESS"),
        "conformance scenario {scenario} reported no passing check"
    );
}

#[test]
fn the_client_initializes_with_a_2025_11_25_protocol_version_and_its_name() {
    passes("initialize");
}

#[test]
fn a_model_call_of_an_http_servers_tool_reaches_it_with_the_arguments() {
    passes("tools_call");
}

#[test]
fn a_headless_run_answers_elicitation_with_the_schemas_defaults() {
    passes("elicitation-sep1034-client-defaults");
}

#[test]
fn a_tool_call_survives_a_closed_sse_stream_by_resuming_after_the_servers_retry_delay() {
    passes("sse-retry");
}
