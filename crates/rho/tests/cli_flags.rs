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
            "max",
            "--system-prompt",
            "Be brief.",
            "--append-system-prompt",
            "One.",
            "--append-system-prompt",
            "Two.",
            "-ne",
            "--no-mcp",
            "-a",
            "-na",
            "--approve",
            "-n",
            "A name",
            "--session-id",
            "my-id.1",
            "--use-theme",
            "dark",
            "--tui-mode",
            "fullscreen",
            "--skill",
            "skills/a",
            "-ns",
            "--prompt-template",
            "t.md",
            "-np",
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
            "-xt",
            "ls",
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

#[test]
fn pis_flag_checks_exit_2_in_pis_words() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| rho(dir.path()).args(args).output().unwrap();
    let cases: [(&[&str], &str); 14] = [
        (&["--mode"], "Error: --mode requires text, json, or rpc"),
        (
            &["--mode", "xml", "-p", "hi"],
            "Error: Invalid mode \"xml\". Valid values: text, json, rpc",
        ),
        (&["-p", "hi", "-n"], "Error: --name requires a value"),
        (
            &["-n", "  ", "-p", "hi"],
            "Error: --name requires a non-empty value",
        ),
        (
            &["-t", "read,+grep", "-p", "hi"],
            "Error: -t: tool names cannot be mixed with +name or -name entries",
        ),
        (
            &["--tools", "+gr*", "-p", "hi"],
            "Error: --tools: +name and -name entries take exact tool names, not patterns: +gr*",
        ),
        (
            &["--session-id", "-bad", "-p", "hi"],
            "Error: Session id must be non-empty, contain only alphanumeric characters, '-', '_', and '.', and start and end with an alphanumeric character",
        ),
        (
            &["--session-id", "ok", "-c", "--session", "x", "-p", "hi"],
            "Error: --session-id cannot be combined with --session, --continue",
        ),
        (
            &["--provider", "openai", "-p", "hi"],
            "Error: --provider requires --model (for example: --provider openai --model <pattern>)",
        ),
        (
            &["-e", "ext.js", "-p", "hi"],
            "Error: -e/--extension: rho cannot load extensions yet",
        ),
        (
            &["--theme", "t.json", "-p", "hi"],
            "Error: --theme: rho's terminal UI has no themes to load",
        ),
        (
            &["--tui-mode", "wide", "-p", "hi"],
            "Error: Invalid TUI mode \"wide\". Valid values: regular, fullscreen",
        ),
        (
            &["--tui-mode", "regular", "-p", "hi"],
            "Error: --tui-mode regular is not supported: rho's terminal UI is full-screen only",
        ),
        (
            &["--use-theme", "solarized", "-p", "hi"],
            "Error: Theme \"solarized\" not found: rho has the dark and light themes (and auto, or dark/light, to follow the terminal)",
        ),
    ];
    for (args, expected) in cases {
        assert_fails_with(run(args), expected);
    }
}

#[test]
fn an_invalid_thinking_level_is_pis_warning_and_is_ignored() {
    let (dir, script) = faux(json!([[{"type": "text", "text": "Done."}]]));
    let output = rho(dir.path())
        .args(["--thinking", "bogus", "--faux-script"])
        .arg(&script)
        .args(["-p", "hi"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        "Warning: Invalid thinking level \"bogus\". Valid values: off, minimal, low, medium, high, xhigh, max\n"
    );
}

#[test]
fn tools_patterns_modifiers_and_excludes_choose_the_tools() {
    let (dir, script) = faux(json!([
        [
            {"type": "tool_call", "name": "grep", "arguments": {"pattern": "x"}},
            {"type": "tool_call", "name": "write", "arguments": {"path": "w.txt", "content": "x"}},
            {"type": "tool_call", "name": "ls", "arguments": {}}
        ],
        [{"type": "text", "text": "Done."}]
    ]));
    let not_found = |args: &[&str]| -> Vec<String> {
        let output = rho(dir.path())
            .args(["--mode", "json", "--no-session"])
            .args(args)
            .arg("--faux-script")
            .arg(&script)
            .arg("go")
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0));
        json_lines(&output)
            .iter()
            .filter(|l| l["type"] == "message_end" && l["message"]["role"] == "toolResult")
            .filter_map(|l| {
                l["message"]["content"][0]["text"]
                    .as_str()
                    .map(str::to_owned)
            })
            .filter(|text| text.ends_with("not found"))
            .collect()
    };
    assert_eq!(
        not_found(&["--tools", "+grep,-write"]),
        ["Tool write not found", "Tool ls not found"]
    );
    assert_eq!(not_found(&["-t", "read,gr*,l*"]), ["Tool write not found"]);
    assert_eq!(
        not_found(&["-t", "*", "-xt", "w*,grep"]),
        ["Tool grep not found", "Tool write not found"]
    );
    // The settings' defaultTools are the defaults `+name`/`-name` edit; a Pi setting rho lacks
    // is named once.
    let settings = json!({"defaultTools": ["read", "ls"], "cacheWarming": "idle"});
    std::fs::write(dir.path().join("settings.json"), settings.to_string()).unwrap();
    let output = rho(dir.path())
        .args(["--mode", "json", "--no-session", "-t", "+grep"])
        .arg("--faux-script")
        .arg(&script)
        .arg("go")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        "Warning: settings key \"cacheWarming\" is not supported by rho; ignored\n"
    );
    assert_eq!(not_found(&["-t", "+grep"]), ["Tool write not found"]);
    assert_eq!(
        not_found(&[]),
        ["Tool grep not found", "Tool write not found"]
    );
}
