//! The offline local model through the real binary: `rho model install`, a clear message when
//! the model file is missing, and the main job end to end with no key — the model reads the
//! file it was asked about, and `rho verify` accepts the log.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn rho(home: &Path, cwd: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rho"))
        .current_dir(cwd)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("RHO_HOME", home)
        .env("HOME", home)
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn a_missing_local_model_names_the_command_that_installs_it() {
    let home = tempfile::tempdir().unwrap();
    let output = rho(
        home.path(),
        home.path(),
        &["--model", "local/smollm", "-p", "hi"],
    );
    assert_eq!(output.status.code(), Some(2));
    let expected = format!(
        "Error: no model file at {}: run `rho model install` to install the local model\n",
        home.path()
            .join("models/SmolLM2-135M-Instruct.Q4_1.gguf")
            .display()
    );
    assert_eq!(String::from_utf8(output.stderr).unwrap(), expected);
}

#[test]
fn without_any_key_or_model_the_error_says_how_to_get_either() {
    let home = tempfile::tempdir().unwrap();
    let output = rho(home.path(), home.path(), &["-p", "hi"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.starts_with("Error: No models available."),
        "{stderr}"
    );
    assert!(
        stderr.ends_with("Or install the offline model: rho model install\n"),
        "{stderr}"
    );
}

#[test]
fn an_unknown_model_command_is_refused() {
    let home = tempfile::tempdir().unwrap();
    let output = rho(home.path(), home.path(), &["model", "uninstall"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        "Error: unknown model command \"uninstall\" (see rho model --help)\n"
    );
}

fn sample_workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/workspace")
}

#[test]
fn with_no_key_the_installed_local_model_reads_the_file_and_answers() {
    let home = Path::new(env!("CARGO_TARGET_TMPDIR")).join("rho-cli-local-home");
    std::fs::create_dir_all(&home).unwrap();
    let install = rho(&home, &home, &["model", "install"]);
    assert_eq!(install.status.code(), Some(0), "{install:?}");

    let output = rho(
        &home,
        &sample_workspace(),
        &[
            "--mode",
            "json",
            "--no-session",
            "Check src/geometry.rs and report the named functions",
        ],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("using the offline local model SmolLM2-135M-Instruct"));
    let log = home.join("local-run.jsonl");
    std::fs::write(&log, &output.stdout).unwrap();
    let lines: Vec<serde_json::Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let read = lines
        .iter()
        .find(|l| l["type"] == "tool_execution_end" && l["toolName"] == "read")
        .expect("a read call executed");
    assert_eq!(read["isError"], false);
    let settled = lines.last().unwrap();
    assert_eq!(
        (&settled["type"], &settled["reason"]),
        (&"agent_settled".into(), &"completed".into())
    );
    let verify = rho(&home, &home, &["verify", log.to_str().unwrap()]);
    assert_eq!(verify.status.code(), Some(0), "{verify:?}");
}
