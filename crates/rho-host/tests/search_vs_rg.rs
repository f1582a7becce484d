//! rho's `grep`/`find` against the real `rg`/`fd`, run with Pi's flags and post-processed the way
//! Pi's `grep.js`/`find.js` do. Needs `rg` and `fd` (`fdfind` on Debian) on PATH: CI installs the
//! `ripgrep` and `fd-find` packages. A missing binary fails the test; it never skips.
//!
//! Two deliberate additions to Pi's flags: `rg --sort path` and fd's sorted buffering make the
//! reference order deterministic (rho always answers in path order). fd < 9 lacks
//! `--no-require-git`; the find tree is a git repository, so the flag changes nothing there.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Command;

use rho_host::tools::{FindTool, GrepTool};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// The first of `names` that runs, or a panic telling which package to install.
fn binary(names: &[&str], package: &str) -> String {
    for name in names {
        if Command::new(name).arg("--version").output().is_ok() {
            return (*name).to_owned();
        }
    }
    panic!(
        "none of {names:?} found on PATH: install the `{package}` package (apt-get install {package})"
    );
}

/// A tree with nested dirs, .gitignore, hidden files, a binary file, long and unicode lines.
fn build_tree(dir: &Path, git: bool) {
    let write = |rel: &str, bytes: &[u8]| {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    };
    if git {
        write(".git/HEAD", b"ref: refs/heads/main\n");
    }
    write(".gitignore", b"ignored.txt\nbuild/\n");
    write("ignored.txt", b"needle ignored\n");
    write("build/out.txt", b"needle in build\n");
    write(".hidden/secret.txt", b"a needle hidden\n");
    write(".env", b"NEEDLE=1\n");
    write(
        "src/main.rs",
        b"fn main() {\r\n    needle();\r\n}\r\n// a.b needle\r\n",
    );
    write(
        "src/nested/deep/file.ts",
        b"one\ntwo needle\nthree\nfour\nneedle five\n",
    );
    write("src/util.spec.ts", b"describe('needle')\n");
    write("binary.bin", b"needle\0\x01\x02needle\n");
    let long = format!("start needle {}\n", "x".repeat(600));
    write("long.txt", long.as_bytes());
    let emoji = format!("{}😀 needle tail\n", "y".repeat(499));
    let unicode = format!("héllo needle ünïcode 日本語\n{emoji}");
    write("unicode.txt", unicode.as_bytes());
    write("docs/README.md", b"Needle uppercase\nsecond line\n");
    write("a.txt", b"needle a\n");
    write("a/b.txt", b"needle b\n");
}

/// `truncateLine` from Pi's truncate.js, on UTF-16 code units.
fn js_truncate_line(line: &str) -> (String, bool) {
    let units: Vec<u16> = line.encode_utf16().collect();
    if units.len() <= 500 {
        return (line.to_owned(), false);
    }
    let kept = String::from_utf16_lossy(&units[..500]);
    (format!("{kept}... [truncated]"), true)
}

/// Pi 1.6's grep.js on `rg`'s JSON output (the text only; notices as Pi appends them): rg runs
/// inside a searched directory with `--context`, and the limit keeps the last match's trailing
/// context and needs one more match for its notice.
fn pi_grep(rg: &str, cwd: &Path, args: &Value) -> String {
    let search_path = cwd.join(args["path"].as_str().unwrap_or("."));
    let search_path = std::fs::canonicalize(&search_path).unwrap_or(search_path);
    let is_dir = search_path.is_dir();
    let limit = args["limit"].as_f64().unwrap_or(100.0).floor().max(1.0) as usize;
    let context = args["context"].as_f64().unwrap_or(0.0).max(0.0).floor() as u64;
    let mut cmd = Command::new(rg);
    cmd.args([
        "--no-config",
        "--json",
        "--line-number",
        "--color=never",
        "--hidden",
        "--sort",
        "path",
    ]);
    if args["ignoreCase"] == json!(true) {
        cmd.arg("--ignore-case");
    }
    if args["literal"] == json!(true) {
        cmd.arg("--fixed-strings");
    }
    if let Some(glob) = args["glob"].as_str() {
        let (negation, mut rest) = glob.strip_prefix('!').map_or(("", glob), |r| ("!", r));
        while let Some(after) = rest.strip_prefix("./") {
            rest = after;
        }
        cmd.args(["--glob", &format!("{negation}{rest}")]);
    }
    if context > 0 {
        cmd.args(["--context", &context.to_string()]);
    }
    cmd.arg("--").arg(args["pattern"].as_str().unwrap());
    if is_dir {
        cmd.current_dir(&search_path).arg(".");
    } else {
        cmd.current_dir(cwd).arg(&search_path);
    }
    let output = cmd.output().unwrap();
    let code = output.status.code().unwrap();
    let format_path = |file: &str| {
        let file = Path::new(file);
        let relative = if is_dir {
            file.strip_prefix(".").unwrap_or(file)
        } else {
            Path::new("")
        };
        if is_dir && !relative.as_os_str().is_empty() && !relative.starts_with("..") {
            relative.to_str().unwrap().to_owned()
        } else {
            file.file_name().unwrap().to_str().unwrap().to_owned()
        }
    };
    let mut lines = Vec::new();
    let mut truncated_any = false;
    let mut push = |file: &str, number: u64, text: &str, is_match: bool| {
        let text = text.strip_suffix('\n').unwrap_or(text);
        let text = text.strip_suffix('\r').unwrap_or(text);
        let (text, cut) = js_truncate_line(text);
        truncated_any |= cut;
        let shown = format_path(file);
        lines.push(if is_match {
            format!("{shown}:{number}: {text}")
        } else {
            format!("{shown}-{number}- {text}")
        });
    };
    let (mut match_count, mut limit_hit, mut reached) = (0, false, false);
    let (mut trailing_end, mut last_file) = (0, String::new());
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let event: Value = serde_json::from_str(line).unwrap();
        let is_match = event["type"] == "match";
        if !is_match && event["type"] != "context" {
            continue;
        }
        let data = &event["data"];
        let file = data["path"]["text"].as_str().unwrap().to_owned();
        let number = data["line_number"].as_u64().unwrap();
        let text = data["lines"]["text"].as_str().unwrap_or("").to_owned();
        if !limit_hit {
            push(&file, number, &text, is_match);
            last_file = file;
            if is_match {
                match_count += 1;
                if match_count >= limit {
                    limit_hit = true;
                    trailing_end = number + context;
                }
            }
            continue;
        }
        let in_window = file == last_file && number <= trailing_end;
        if in_window {
            push(&file, number, &text, false);
        }
        reached |= is_match;
        if reached && !(in_window && number < trailing_end) {
            break;
        }
    }
    if !reached && code != 0 && code != 1 {
        return format!("ERROR: {}", String::from_utf8_lossy(&output.stderr).trim());
    }
    if match_count == 0 {
        return "No matches found".to_owned();
    }
    let mut notices = Vec::new();
    if reached {
        notices.push(format!(
            "{limit} matches limit reached. Use limit={} for more, or refine pattern",
            limit * 2
        ));
    }
    if truncated_any {
        notices
            .push("Some lines truncated to 500 chars. Use read tool to see full lines".to_owned());
    }
    let mut text = lines.join("\n");
    if !notices.is_empty() {
        text.push_str(&format!("\n\n[{}]", notices.join(". ")));
    }
    text
}

/// Pi 1.6's find.js on `fd`'s output: a relative path pattern anchored at the search directory,
/// one result more than the limit asked for.
fn pi_find(fd: &str, cwd: &Path, args: &Value) -> String {
    let search_path = cwd.join(args["path"].as_str().unwrap_or("."));
    let search_path = std::fs::canonicalize(&search_path).unwrap_or(search_path);
    let limit = args["limit"].as_f64().unwrap_or(1000.0).floor().max(1.0) as usize;
    let mut pattern = args["pattern"].as_str().unwrap();
    while let Some(rest) = pattern.strip_prefix("./") {
        pattern = rest;
    }
    let help = Command::new(fd).arg("--help").output().unwrap();
    let mut cmd = Command::new(fd);
    cmd.args(["--color=never", "--hidden"]);
    if String::from_utf8_lossy(&help.stdout).contains("--no-require-git") {
        cmd.arg("--no-require-git");
    }
    cmd.args(["--glob", "--max-results", &(limit + 1).to_string()]);
    let mut effective = pattern.to_owned();
    if pattern.contains('/') {
        cmd.arg("--full-path");
        if !pattern.starts_with('/') {
            let root = search_path.to_str().unwrap().trim_end_matches('/');
            let escaped: String = root
                .chars()
                .flat_map(|c| {
                    let escape = matches!(c, '\\' | '*' | '?' | '[' | ']' | '{' | '}');
                    escape.then_some('\\').into_iter().chain([c])
                })
                .collect();
            effective = format!("{escaped}/{pattern}");
            if pattern.to_lowercase() == pattern {
                cmd.arg("--ignore-case");
            }
        }
    }
    cmd.arg("--").arg(&effective).arg(&search_path);
    let output = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    if !output.status.success() && stdout.is_empty() {
        return format!("ERROR: {}", String::from_utf8_lossy(&output.stderr).trim());
    }
    if stdout.is_empty() {
        return "No files found matching pattern".to_owned();
    }
    let prefix = format!("{}/", search_path.display());
    let mut lines: Vec<String> = stdout
        .lines()
        .map(|l| l.trim().strip_prefix(&prefix).unwrap().to_owned())
        .collect();
    let reached = lines.len() > limit;
    lines.truncate(limit);
    let mut text = lines.join("\n");
    if reached {
        text.push_str(&format!(
            "\n\n[{limit} results limit reached. Use limit={} for more, or refine pattern]",
            limit * 2
        ));
    }
    text
}

/// rho's text for a call, or `ERROR: <message>`.
fn text_of(result: Result<rho_agent::ToolOutput, rho_agent::ToolError>) -> String {
    match result {
        Ok(output) => match &output.content[0] {
            rho_ai::ContentBlock::Text(text) => text.text.clone(),
            other => panic!("unexpected block {other:?}"),
        },
        Err(error) => format!("ERROR: {}", error.0),
    }
}

fn grep_cases() -> Vec<Value> {
    vec![
        json!({"pattern": "needle"}),
        json!({"pattern": "NEEDLE", "ignoreCase": true}),
        json!({"pattern": "a.b", "literal": true}),
        json!({"pattern": "ne+dle\\s+\\w+"}),
        json!({"pattern": "needle", "glob": "*.ts"}),
        json!({"pattern": "needle", "glob": "src/**/*.ts"}),
        json!({"pattern": "needle", "glob": "!*.txt"}),
        json!({"pattern": "needle", "context": 1}),
        json!({"pattern": "needle", "context": 2, "path": "src"}),
        json!({"pattern": "needle", "limit": 3}),
        json!({"pattern": "needle", "limit": 2.7, "context": 3}),
        json!({"pattern": "needle", "glob": "./src/**/*.rs", "path": "."}),
        json!({"pattern": "needle", "glob": "nested/**/*.ts", "path": "src"}),
        json!({"pattern": "needle", "limit": 20}),
        json!({"pattern": "needle", "limit": 1, "path": "src"}),
        json!({"pattern": "needle", "path": "src/main.rs"}),
        json!({"pattern": "needle", "path": "binary.bin"}),
        json!({"pattern": "nothing-matches-this"}),
        json!({"pattern": "日本"}),
        json!({"pattern": "a("}),
    ]
}

async fn compare_grep(git: bool) {
    let rg = binary(&["rg"], "ripgrep");
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    build_tree(&root, git);
    let tool = GrepTool::new(&root);
    for args in grep_cases() {
        let expected = pi_grep(&rg, &root, &args);
        let actual = text_of(tool.grep(&args, &CancellationToken::new()).await);
        assert_eq!(actual, expected, "grep {args} (git repo: {git})");
    }
}

#[tokio::test]
async fn grep_matches_ripgrep_inside_a_git_repository() {
    compare_grep(true).await;
}

#[tokio::test]
async fn grep_matches_ripgrep_outside_a_git_repository_where_gitignore_does_not_apply() {
    compare_grep(false).await;
}

#[tokio::test]
async fn find_matches_fd() {
    let fd = binary(&["fd", "fdfind"], "fd-find");
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    build_tree(&root, true);
    let tool = FindTool::new(&root);
    let cases = [
        json!({"pattern": "*.ts"}),
        json!({"pattern": "*.TS"}),
        json!({"pattern": "*.md"}),
        json!({"pattern": "*"}),
        json!({"pattern": "src/**/*.ts"}),
        json!({"pattern": "src/*.ts"}),
        json!({"pattern": "**/deep/*"}),
        json!({"pattern": "deep"}),
        json!({"pattern": "*.txt", "path": "src"}),
        json!({"pattern": "*", "path": "src"}),
        json!({"pattern": "*.txt", "limit": 2}),
        json!({"pattern": "*.txt", "limit": 0.5}),
        json!({"pattern": "./src/*.ts"}),
        json!({"pattern": "nested/**", "path": "src"}),
        json!({"pattern": "SRC/*.ts"}),
        json!({"pattern": "nothing*"}),
        json!({"pattern": "[a"}),
        json!({"pattern": "*", "path": "missing"}),
    ];
    for args in cases {
        let expected = pi_find(&fd, &root, &args);
        let actual = text_of(tool.find(&args, &CancellationToken::new()).await);
        if args.get("limit").is_some() {
            // Which results fd keeps at its limit depends on thread timing; the count and
            // the notice do not.
            let shape = |text: &str| (text.lines().count(), text.lines().last().map(str::to_owned));
            assert_eq!(shape(&actual), shape(&expected), "find {args}: {actual}");
        } else {
            assert_eq!(actual, expected, "find {args}");
        }
    }
}
