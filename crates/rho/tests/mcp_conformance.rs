//! The official MCP client conformance suite (`@modelcontextprotocol/conformance` 0.1.16) judges
//! rho's MCP client: for each core scenario the suite starts its server and runs
//! `scripts/mcp-conformance-client`, which runs the rho binary with that server in its
//! `mcp.json` and a scripted model calling the scenario's tool. The suite exits 0 only when every
//! check passed with no warning, the client finished in time and exited 0 (a client may fail
//! `auth/scope-retry-limit` with a non-zero exit: the suite allows it).
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

/// The authorization scenarios of the 2025-06-18 and 2025-11-25 specs: `rho mcp login` signs
/// in (the suite's authorization server completes the browser step by redirect; the client's
/// "browser" follows it to rho's loopback callback), then the run calls the server's tool.
macro_rules! authorization {
    ($($test:ident => $scenario:literal,)*) => {
        $(
            #[test]
            fn $test() {
                passes($scenario);
            }
        )*
    };
}

authorization! {
    auth_metadata_default => "auth/metadata-default",
    auth_metadata_found_by_probing_and_at_the_oidc_path => "auth/metadata-var1",
    auth_metadata_at_the_root_and_an_issuer_with_a_path => "auth/metadata-var2",
    auth_metadata_at_a_custom_location_named_by_the_challenge => "auth/metadata-var3",
    auth_a_client_id_metadata_document_where_the_server_takes_one => "auth/basic-cimd",
    auth_scope_from_the_challenge => "auth/scope-from-www-authenticate",
    auth_scope_from_the_resources_scopes_supported => "auth/scope-from-scopes-supported",
    auth_scope_left_out_when_nothing_names_one => "auth/scope-omitted-when-undefined",
    auth_a_step_up_signs_in_again_with_the_scopes_asked_for => "auth/scope-step-up",
    auth_sign_ins_stop_after_three_attempts => "auth/scope-retry-limit",
    auth_a_registered_secret_sent_with_basic_authentication => "auth/token-endpoint-auth-basic",
    auth_a_registered_secret_sent_in_the_form => "auth/token-endpoint-auth-post",
    auth_a_public_client_sends_no_secret => "auth/token-endpoint-auth-none",
    auth_a_pre_registered_client_from_the_configuration => "auth/pre-registration",
}
