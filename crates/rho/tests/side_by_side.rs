//! rho beside Pi 1.6.0 itself: the shared `side_by_side.py` runs both on the same scenarios
//! (check-file, text-only, two-tools) over Chat Completions, Responses and Anthropic against the
//! loopback mock LLM and compares their `--mode json` streams field by field (`--strict`, its
//! default; rho's documented additions aside).
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::process::Command;

use crate::peers::pi_16;

#[test]
fn rho_prints_the_same_json_events_as_pi_1_6_on_every_scenario_and_api() {
    if pi_16().is_none() {
        return;
    }
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/peers/side_by_side.py");
    let out = tempfile::tempdir().unwrap();
    let output = Command::new("python3")
        .arg(&script)
        .args(["--rho", env!("CARGO_BIN_EXE_rho")])
        .args(["--apis", "chat,responses,anthropic"])
        .arg("--out")
        .arg(out.path().join("runs"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let rows: Vec<&str> = stdout
        .lines()
        .filter(|l| !l.starts_with("outputs in"))
        .collect();
    assert_eq!(
        rows.len(),
        9,
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    for row in rows {
        assert!(row.contains("pi=0 rho=0"), "{row}");
        assert!(row.contains("same (strict)"), "{row}");
    }
}
