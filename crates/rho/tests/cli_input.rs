//! The first prompt as Pi builds it: piped stdin, then `@file` contents in Pi's wrapping, then
//! the first message, joined with no separator (pi-reference §7.1).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

/// A tempdir with a faux script that answers every prompt with "ok".
fn workspace(prompts: usize) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.json");
    let turns: Vec<Value> = (0..prompts)
        .map(|_| json!([{"type": "text", "text": "ok"}]))
        .collect();
    std::fs::write(&script, json!({ "turns": turns }).to_string()).unwrap();
    (dir, script)
}

fn run(cwd: &Path, script: &Path, args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_rho"))
        .current_dir(cwd)
        .env_clear()
        .env("RHO_HOME", cwd)
        .args(["--mode", "json", "--faux-script"])
        .arg(script)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut pipe = child.stdin.take().unwrap();
    pipe.write_all(stdin.unwrap_or("").as_bytes()).unwrap();
    drop(pipe);
    child.wait_with_output().unwrap()
}

fn user_texts(output: &Output) -> Vec<String> {
    String::from_utf8(output.stdout.clone())
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .filter(|l| l["type"] == "message_end" && l["message"]["role"] == "user")
        .map(|l| {
            l["message"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

#[test]
fn file_arguments_are_inlined_before_the_first_message_and_stdin_comes_first() {
    let (dir, script) = workspace(2);
    std::fs::create_dir(dir.path().join("docs")).unwrap();
    std::fs::write(dir.path().join("docs/a.md"), "# A\nalpha").unwrap();
    std::fs::write(dir.path().join("b.txt"), "beta\n").unwrap();
    std::fs::write(dir.path().join("empty.txt"), "").unwrap();
    let output = run(
        dir.path(),
        &script,
        &[
            "@docs/a.md",
            "Summarise.",
            "@empty.txt",
            "Then stop.",
            "@b.txt",
        ],
        Some("  from stdin\n\n"),
    );
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let a = dir.path().join("docs/a.md");
    let b = dir.path().join("b.txt");
    assert_eq!(
        user_texts(&output),
        [
            format!(
                "from stdin<file name=\"{}\">\n# A\nalpha\n</file>\n<file name=\"{}\">\nbeta\n\n</file>\nSummarise.",
                a.display(),
                b.display()
            ),
            "Then stop.".to_owned()
        ]
    );
}

#[test]
fn piped_stdin_alone_is_the_prompt() {
    let (dir, script) = workspace(1);
    let output = run(dir.path(), &script, &[], Some("\n  what is 2+2?  \n"));
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(user_texts(&output), ["what is 2+2?"]);
}

#[test]
fn a_missing_file_argument_exits_2_with_one_line_naming_its_absolute_path() {
    let (dir, script) = workspace(1);
    let output = run(dir.path(), &script, &["@nope/missing.md", "hi"], None);
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        format!(
            "Error: File not found: {}\n",
            dir.path().join("nope/missing.md").display()
        )
    );
}

#[test]
fn an_image_file_argument_is_attached_to_the_first_message() {
    let (dir, script) = workspace(1);
    // The smallest valid PNG: 1×1, grey.
    let png: [u8; 67] = [
        0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44,
        0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x00, 0x00, 0x00, 0x00, 0x3a,
        0x7e, 0x9b, 0x55, 0x00, 0x00, 0x00, 0x0a, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x60,
        0x00, 0x00, 0x00, 0x02, 0x00, 0x01, 0x48, 0xaf, 0xa4, 0x71, 0x00, 0x00, 0x00, 0x00, 0x49,
        0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
    ];
    std::fs::write(dir.path().join("dot.png"), png).unwrap();
    let output = run(dir.path(), &script, &["@dot.png", "What is this?"], None);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let user = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str::<Value>(line).unwrap())
        .find(|l| l["type"] == "message_end" && l["message"]["role"] == "user")
        .unwrap();
    // The PNG is small enough to pass unresized: its bytes, base64-encoded.
    let shown = dir.path().join("dot.png");
    assert_eq!(
        user["message"]["content"],
        json!([
            {"type": "text", "text": format!("<file name=\"{}\"></file>\nWhat is this?", shown.display())},
            {"type": "image", "data": "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAAAAAA6fptVAAAACklEQVR4nGNgAAAAAgABSK+kcQAAAABJRU5ErkJggg==", "mimeType": "image/png"},
        ])
    );
}
