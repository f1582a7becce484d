//! Pi's flags end to end: every flag parses, Pi's multi-letter short flags and `-p <msg>` are
//! read as Pi reads them, and bad values or not-yet-supported flags exit 2 with one line.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

fn rho(home: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_rho"));
    command
        .current_dir(home)
        .env_clear()
        .env("RHO_HOME", home)
        .env("HOME", home)
        .stdin(Stdio::null());
    command
}

/// A tempdir with a faux script of `turns` answers.
fn faux(turns: Value) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.json");
    std::fs::write(&script, json!({ "turns": turns }).to_string()).unwrap();
    (dir, script)
}

fn json_lines(output: &Output) -> Vec<Value> {
    String::from_utf8(output.stdout.clone())
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// The texts of the user messages the run sent, in order.
fn user_texts(output: &Output) -> Vec<String> {
    json_lines(output)
        .iter()
        .filter(|l| l["type"] == "message_end" && l["message"]["role"] == "user")
        .map(|l| {
            l["message"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

/// Exit 2, nothing on stdout, exactly `expected` (one line) on stderr.
fn assert_fails_with(output: Output, expected: &str) {
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(output.stdout.is_empty());
    assert_eq!(stderr, format!("{expected}\n"));
}

#[test]
fn every_pi_flag_and_rhos_own_flags_parse_and_the_run_completes() {
    let (dir, script) = faux(json!([[{"type": "text", "text": "Done."}]]));
    let output = rho(dir.path())
        .args(["-p", "--faux-script"])
        .arg(&script)
        .args([
            "--mode",
            "text",
            "--no-session",
            "--thinking",
            "high",
            "--system-prompt",
            "Be brief.",
            "--append-system-prompt",
            "One.",
            "--append-system-prompt",
            "Two.",
            "-e",
            "ext.js",
            "--extension",
            "ext2.js",
            "-ne",
            "--skill",
            "skills/a",
            "-ns",
            "--prompt-template",
            "t.md",
            "-np",
            "--theme",
            "t.json",
            "--no-themes",
            "-nc",
            "--verbose",
            "--offline",
            "--permission",
            "workspace-write",
            "--allow-dir",
            "/tmp",
            "--allow-dir",
            "/var/tmp",
            "--no-network",
            "-t",
            "read,ls",
            "--max-turns",
            "4",
            "--max-cost",
            "1.5",
            "--max-tokens",
            "9000",
            "hi",
        ])
        .output()
        .unwrap();
    // `--verbose` reports the skill and template paths that do not exist; nothing else.
    let root = dir.path().display();
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        format!(
            "Warning: skill path does not exist ({root}/skills/a)\n\
             Error: Prompt template path does not exist ({root}/t.md)\n"
        )
    );
    assert_eq!(String::from_utf8(output.stdout).unwrap(), "Done.\n");
    assert_eq!(output.status.code(), Some(0));
}

#[test]
fn multi_letter_short_flags_are_pis_long_flags() {
    let (dir, script) = faux(json!([
        [{"type": "tool_call", "name": "read", "arguments": {"path": "note.txt"}}],
        [{"type": "text", "text": "Done."}]
    ]));
    std::fs::write(dir.path().join("note.txt"), "hello").unwrap();
    let tool_result = |flag: &str| {
        let output = rho(dir.path())
            .args(["--mode", "json", flag, "--faux-script"])
            .arg(&script)
            .arg("go")
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0));
        json_lines(&output)
            .iter()
            .find(|l| l["type"] == "message_end" && l["message"]["role"] == "toolResult")
            .map(|l| l["message"]["content"][0]["text"].clone())
            .unwrap()
    };
    assert_eq!(tool_result("-nt"), "Tool read not found");
    assert_eq!(tool_result("-nbt"), "Tool read not found");
    assert_eq!(tool_result("-nc"), "hello");
}

#[test]
fn print_takes_the_next_argument_as_a_message_even_when_it_starts_with_three_dashes() {
    let (dir, script) = faux(json!([
        [{"type": "text", "text": "1"}],
        [{"type": "text", "text": "2"}],
        [{"type": "text", "text": "3"}]
    ]));
    let output = rho(dir.path())
        .args(["--mode", "json", "--faux-script"])
        .arg(&script)
        .args(["first", "-p", "---rule---", "third"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(user_texts(&output), ["first", "---rule---", "third"]);
}

#[test]
fn bad_values_exit_2_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| rho(dir.path()).args(args).output().unwrap();
    assert_fails_with(
        run(&["--permission", "root", "-p", "hi"]),
        "Error: invalid value 'root' for '--permission <LEVEL>': expected one of read-only, workspace-write, full (see rho --help)",
    );
    assert_fails_with(
        run(&["--max-turns", "many", "-p", "hi"]),
        "Error: invalid value 'many' for '--max-turns <N>': invalid digit found in string (see rho --help)",
    );
    assert_fails_with(
        run(&["--max-cost=-1", "-p", "hi"]),
        "Error: --max-cost must be a non-negative number of US dollars, got -1",
    );
    assert_fails_with(
        run(&["-x", "-p", "hi"]),
        "Error: unexpected argument '-x' found (see rho --help)",
    );
    assert_fails_with(
        run(&["--api-key", "sk-secret", "-p", "hi"]),
        "Error: --api-key requires a model to be specified via --model, --provider/--model, or --models",
    );
}

#[test]
fn help_shows_pis_usage_and_examples_and_v_prints_the_version() {
    let dir = tempfile::tempdir().unwrap();
    let help = rho(dir.path()).arg("--help").output().unwrap();
    assert_eq!(help.status.code(), Some(0));
    let text = String::from_utf8(help.stdout).unwrap();
    assert!(
        text.contains("Usage: rho [options] [@files...] [messages...]"),
        "{text}"
    );
    assert!(text.contains("--no-builtin-tools"), "{text}");
    assert!(
        text.contains("rho -p @prompt.md @image.png \"What color is the sky?\""),
        "{text}"
    );
    let version = rho(dir.path()).arg("-v").output().unwrap();
    assert_eq!(version.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(version.stdout).unwrap(),
        format!("rho {}\n", env!("CARGO_PKG_VERSION"))
    );
}
