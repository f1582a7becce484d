//! rho beside Pi 1.6.0 itself: the shared `side_by_side.py` runs both on the same scenarios
//! over Chat Completions, Responses and Anthropic against the loopback mock LLM and compares
//! their `--mode json` streams field by field (`--strict`, its default; rho's documented
//! additions aside):
//!
//! - the public scenarios of `shared/peers/scenarios` (check-file, text-only, two-tools);
//! - rho's own, `tests/scenarios/`, for what those do not reach: Pi 1.6's recorded extra
//!   scenarios (bad arguments, a long bash line, edit/write/ls, find/grep patterns, the bash
//!   environment's names), an image read, a trusted project skill;
//! - a retry with its `context_edit` (`tests/scenarios/retry/`), in two runs of the script,
//!   because the mock serves a fault once per scenario and process: Pi's stream from the first,
//!   rho's from the second.
//!
//! The first two also compare the request bodies both programs sent the mock (`requests.rs`).
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::peers::{mcp_servers, pi_16};

mod requests;

fn peers_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/peers")
}

fn scenarios_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios")
}

/// This build's rho behind a wrapper that writes its full-output files' paths as Pi's
/// comparison expects them (`/tmp/rho-bash-<hex>.log`): rho keeps them in a private directory
/// of its own (`/tmp/rho-<uid>/`), a deliberate difference from Pi's shared `/tmp`.
fn rho_for_comparison(dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let wrapper = dir.join("rho-compared");
    let script = format!(
        "#!/bin/bash\nset -o pipefail\n'{}' \"$@\" | sed -u -E 's#/rho-[0-9]+(-[0-9a-f]+)?/rho-bash-#/rho-bash-#g'\n",
        env!("CARGO_BIN_EXE_rho")
    );
    std::fs::write(&wrapper, script).unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    wrapper
}

/// Runs `side_by_side.py` with `args` (rho is this build's); the result rows it prints.
fn side_by_side(out: &Path, peers: &str, args: &[&str]) -> Vec<String> {
    std::fs::create_dir_all(out).unwrap();
    let output = Command::new("python3")
        .arg(peers_dir().join("side_by_side.py"))
        .arg("--rho")
        .arg(rho_for_comparison(out))
        .args(["--peers", peers])
        .arg("--out")
        .arg(out)
        .args(args)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        !stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
        .lines()
        .filter(|l| !l.starts_with("outputs in"))
        .map(str::to_owned)
        .collect()
}

fn assert_all_same(rows: &[String], expected: usize) {
    assert_eq!(rows.len(), expected, "{rows:#?}");
    for row in rows {
        assert!(row.contains("pi=0 rho=0"), "{row}");
        assert!(row.contains("same (strict)"), "{row}");
    }
}

/// The request bodies of the run in `out` are the same, and at least `expected` pairs were
/// compared.
fn assert_same_requests(out: &Path, expected: usize) {
    let (problems, compared) = requests::compare(out);
    assert!(problems.is_empty(), "{problems:#?}");
    assert!(compared >= expected, "{compared} request pairs compared");
}

#[test]
fn rho_prints_the_same_json_events_as_pi_1_6_on_every_scenario_and_api() {
    if pi_16().is_none() {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let runs = out.path().join("runs");
    let rows = side_by_side(&runs, "pi", &["--apis", "chat,responses,anthropic"]);
    assert_all_same(&rows, 9);
    assert_same_requests(&runs, 15);
}

#[test]
fn rho_prints_the_same_json_events_as_pi_1_6_on_rhos_own_scenarios() {
    if pi_16().is_none() {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let scenarios = scenarios_dir();
    let runs = out.path().join("runs");
    let rows = side_by_side(&runs, "pi", &["--scenarios", scenarios.to_str().unwrap()]);
    let count = std::fs::read_dir(&scenarios)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension() == Some("json".as_ref()))
        .count();
    assert!(count >= 7, "{count} scenarios");
    assert_all_same(&rows, count * 3);
    assert_same_requests(&runs, count * 3 * 2);
}

/// rho's MCP scenarios (`tests/scenarios-mcp/`) made runnable: a `"@scripted.py"` file is the
/// scripted server of rho-mcp's tests.
fn mcp_scenarios(into: &Path) -> usize {
    let server = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../rho-mcp/tests/servers/scripted.py"),
    )
    .unwrap();
    std::fs::create_dir_all(into).unwrap();
    let source = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios-mcp");
    let mut count = 0;
    for entry in std::fs::read_dir(source).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let text = text.replace("\"@scripted.py\"", &serde_json::to_string(&server).unwrap());
        std::fs::write(into.join(path.file_name().unwrap()), text).unwrap();
        count += 1;
    }
    count
}

/// MCP beside Pi 1.6: a direct and a deferred server (the scripted one), and the reference
/// servers `server-everything` and `server-filesystem` from npm; events and requests the same
/// on every API.
#[test]
fn rho_and_pi_1_6_agree_on_mcp_servers_direct_deferred_and_the_reference_ones() {
    if pi_16().is_none() || mcp_servers().is_none() {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let scenarios = out.path().join("scenarios");
    let count = mcp_scenarios(&scenarios);
    assert_eq!(count, 4);
    let runs = out.path().join("runs");
    let rows = side_by_side(
        &runs,
        "pi",
        &[
            "--scenarios",
            scenarios.to_str().unwrap(),
            "--apis",
            "chat,responses,anthropic",
        ],
    );
    assert_all_same(&rows, count * 3);
    assert_same_requests(&runs, count * 3 * 2);
}

#[test]
fn a_retried_attempt_gives_the_same_events_as_pi_1_6_on_every_api() {
    if pi_16().is_none() {
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let scenarios = scenarios_dir().join("retry");
    let scenarios = scenarios.to_str().unwrap();
    let with_pi = out.path().join("with-pi");
    let alone = out.path().join("alone");
    side_by_side(&with_pi, "pi", &["--scenarios", scenarios]);
    let rows = side_by_side(&alone, "none", &["--scenarios", scenarios]);
    assert_eq!(rows.len(), 3, "{rows:#?}");
    for api in ["chat", "responses", "anthropic"] {
        let file = format!("retry-{api}-{api}.jsonl");
        let pi = with_pi.join(format!("pi-{file}"));
        let rho = alone.join(format!("rho-{file}"));
        // The retry really happened in both.
        for stream in [&pi, &rho] {
            let text = std::fs::read_to_string(stream).unwrap();
            assert!(text.contains(r#""type":"auto_retry_start""#), "{stream:?}");
            assert!(text.contains(r#""type":"context_edit""#), "{stream:?}");
        }
        let compared = Command::new("python3")
            .arg(peers_dir().join("compare.py"))
            .args([&pi, &rho])
            .arg("--strict")
            .output()
            .unwrap();
        let verdict = String::from_utf8_lossy(&compared.stdout);
        assert!(verdict.contains("same (strict)"), "{api}: {verdict}");
    }
}
