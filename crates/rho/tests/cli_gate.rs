//! The gate end to end: the sandbox fallback where the kernel lacks Landlock (forced through
//! `RHO_SANDBOX_FORCE_UNAVAILABLE`), and rule files whose examples fail their own rule.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::{Output, Stdio};

use serde_json::{Value, json};

const WARNING: &str = "bash sandbox unavailable (RHO_SANDBOX_FORCE_UNAVAILABLE is set); commands run unconfined, only the path gate of the file tools applies";

/// Runs `rho` in `dir/project` with a faux script and the sandbox forced unavailable.
async fn run_rho(dir: &Path, mode: &[&str], turns: Value) -> Output {
    run_rho_with(dir, mode, &[("RHO_SANDBOX_FORCE_UNAVAILABLE", "1")], turns).await
}

/// Runs `rho <mode>` in `dir/project` with a faux script, its own `TMPDIR` and `env`.
async fn run_rho_with(dir: &Path, mode: &[&str], env: &[(&str, &str)], turns: Value) -> Output {
    let script = dir.join("script.json");
    std::fs::write(&script, json!({ "turns": turns }).to_string()).unwrap();
    std::fs::create_dir_all(dir.join("tmp")).unwrap();
    tokio::process::Command::new(crate::gate_attacks::harness::rho_bin())
        .current_dir(dir.join("project"))
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("RHO_HOME", dir.join("home"))
        .env("TMPDIR", dir.join("tmp"))
        .envs(env.iter().copied())
        .args(mode)
        .arg("--faux-script")
        .arg(&script)
        .arg("go")
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap()
}

/// A project beside an outside directory holding `secret.txt`.
fn layout() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("project")).unwrap();
    std::fs::create_dir_all(dir.path().join("outside")).unwrap();
    std::fs::write(dir.path().join("outside/secret.txt"), "classified").unwrap();
    dir
}

fn bash(command: &str) -> Value {
    json!({"type": "tool_call", "name": "bash", "arguments": {"command": command}})
}

#[tokio::test]
async fn without_landlock_rho_warns_once_says_so_in_details_and_keeps_the_path_gate() {
    let dir = layout();
    let secret = dir.path().join("outside/secret.txt");
    let turns = json!([
        [bash("echo one"), bash("echo two")],
        [{"type": "tool_call", "name": "read", "arguments": {"path": secret}}, bash("echo three")],
        [{"type": "text", "text": "done"}]
    ]);
    let output = run_rho(dir.path(), &["--mode", "json"], turns).await;
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr, format!("rho: {WARNING}\n"));

    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(!stdout.contains("classified"));
    let results: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|event| event["type"] == "message_end" && event["message"]["role"] == "toolResult")
        .map(|event| event["message"].clone())
        .collect();
    let summary: Vec<(String, bool, Value)> = results
        .iter()
        .map(|m| {
            let text = m["content"][0]["text"].as_str().unwrap();
            (text.to_owned(), m["isError"] == true, m["details"].clone())
        })
        .collect();
    let ran = |text: &str| (text.to_owned(), false, json!({"sandbox": WARNING}));
    let root = dir.path().join("project").canonicalize().unwrap();
    let refusal = format!(
        "Path {} is outside the allowed directories: {}. Use --allow-dir to allow it.",
        secret.canonicalize().unwrap().display(),
        root.display()
    );
    assert_eq!(
        summary,
        [
            ran("one\n"),
            ran("two\n"),
            (refusal, true, json!({})),
            ran("three\n"),
        ]
    );
}

#[tokio::test]
async fn print_mode_prints_the_warning_once_on_stderr() {
    let dir = layout();
    let turns = json!([
        [bash("echo one")],
        [bash("echo two")],
        [{"type": "text", "text": "done"}]
    ]);
    let output = run_rho(dir.path(), &["-p"], turns).await;
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(String::from_utf8(output.stdout).unwrap(), "done\n");
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        format!("rho: {WARNING}\n")
    );
}

#[tokio::test]
async fn a_rule_example_that_fails_its_rule_stops_rho_before_the_model_naming_the_rule() {
    let dir = layout();
    let rules = dir.path().join("project/.rho/rules.toml");
    std::fs::create_dir_all(rules.parent().unwrap()).unwrap();
    let text = "[[rule]]\ndecision = \"allow\"\nprefix = \"ls\"\n\n[[rule]]\ndecision = \"deny\"\nprefix = \"git push\"\nmatch = [\"git pull\"]\n";
    std::fs::write(&rules, text).unwrap();
    let output = run_rho(
        dir.path(),
        &["-p", "--approve"],
        json!([[{"type": "text", "text": "hi"}]]),
    )
    .await;
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    assert_eq!(String::from_utf8(output.stdout).unwrap(), "");
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        format!(
            "Error: Rule example fails in {}, rule 2 (\"git push\"): \"git pull\" should match the rule but does not\n",
            rules.display()
        )
    );
}

/// The sandbox's private directories made in `dir/tmp`.
fn sandbox_dirs(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir.join("tmp"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("rho-sandbox-"))
        .collect()
}

#[tokio::test]
async fn the_sandbox_is_prepared_on_the_first_bash_call_and_not_for_a_run_without_one() {
    let dir = layout();
    let text_only = json!([[{"type": "text", "text": "hi"}]]);
    let output = run_rho_with(dir.path(), &["-p"], &[], text_only).await;
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(sandbox_dirs(dir.path()), Vec::<String>::new());

    // A command sees its private TMPDIR: the sandbox was prepared for it (and removed at exit).
    let turns = json!([[bash("echo \"$TMPDIR\"")], [{"type": "text", "text": "done"}]]);
    let events = run_rho_with(dir.path(), &["--mode", "json"], &[], turns).await;
    let stdout = String::from_utf8(events.stdout).unwrap();
    let tmp = dir.path().join("tmp").canonicalize().unwrap();
    let private = format!("{}/rho-sandbox-", tmp.display());
    assert!(stdout.contains(&private), "{stdout}");
    assert_eq!(sandbox_dirs(dir.path()), Vec::<String>::new());
}

#[tokio::test]
async fn a_kernel_without_namespaces_is_warned_about_at_start_up_even_before_bash_runs() {
    let dir = layout();
    let output = run_rho_with(
        dir.path(),
        &["-p"],
        &[("RHO_SANDBOX_FORCE_NO_NAMESPACES", "1")],
        json!([[{"type": "text", "text": "hi"}]]),
    )
    .await;
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        "rho: bash sandbox: no namespaces (RHO_SANDBOX_FORCE_NO_NAMESPACES is set): .rho/, RHO_HOME and git's config and hooks are read-only to the file tools only, rho's credential files are readable by commands, metadata (chmod, chown, times) of files outside the workspace can be changed, and /dev/shm is unavailable\n"
    );
    assert_eq!(sandbox_dirs(dir.path()), Vec::<String>::new());
}
