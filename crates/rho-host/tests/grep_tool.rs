//! The `grep` tool: Pi's schema, texts, limits and notices, on real files in tempdirs.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use rho_agent::{ToolError, ToolOutput};
use rho_host::tools::GrepTool;
use rho_host::tools::truncate::truncate_head;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    // A `.git` marks a repository, so .gitignore applies as it does for rg.
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    for (rel, text) in files {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

async fn grep(dir: &Path, args: Value) -> Result<ToolOutput, ToolError> {
    GrepTool::new(dir)
        .grep(&args, &CancellationToken::new())
        .await
}

#[tokio::test]
async fn matches_print_as_relative_path_line_and_text_in_path_order() {
    let dir = tree(&[
        ("b.txt", "needle b\r\n"),
        ("a/z.txt", "x\nneedle z\n"),
        (".hidden", "needle hidden\n"),
        ("ignored.log", "needle ignored\n"),
        (".gitignore", "*.log\n"),
    ]);
    let out = grep(dir.path(), json!({"pattern": "needle"}))
        .await
        .unwrap();
    assert_eq!(
        out,
        ToolOutput::text(".hidden:1: needle hidden\na/z.txt:2: needle z\nb.txt:1: needle b")
    );
}

#[tokio::test]
async fn no_match_says_no_matches_found() {
    let dir = tree(&[("a.txt", "hay\n")]);
    let out = grep(dir.path(), json!({"pattern": "needle"}))
        .await
        .unwrap();
    assert_eq!(out, ToolOutput::text("No matches found"));
}

#[tokio::test]
async fn a_missing_path_fails_with_its_absolute_form() {
    let dir = tree(&[]);
    let err = grep(dir.path(), json!({"pattern": "x", "path": "nope"}))
        .await
        .unwrap_err();
    let expected = format!("Path not found: {}", dir.path().join("nope").display());
    assert_eq!(err, ToolError::new(expected));
}

#[tokio::test]
async fn a_searched_file_is_shown_by_its_name_with_context_lines() {
    let dir = tree(&[("src/lib.rs", "one\ntwo\nneedle\nfour\nfive\n")]);
    let args = json!({"pattern": "needle", "path": "src/lib.rs", "context": 1});
    let out = grep(dir.path(), args).await.unwrap();
    assert_eq!(
        out,
        ToolOutput::text("lib.rs-2- two\nlib.rs:3: needle\nlib.rs-4- four")
    );
}

#[tokio::test]
async fn ignore_case_literal_and_glob_filter_like_rg_flags() {
    let dir = tree(&[("a.ts", "A.B\naxb\n"), ("b.rs", "a.b\n")]);
    let literal = json!({"pattern": "a.b", "literal": true, "ignoreCase": true, "glob": "*.ts"});
    let out = grep(dir.path(), literal).await.unwrap();
    assert_eq!(out, ToolOutput::text("a.ts:1: A.B"));
}

#[tokio::test]
async fn the_match_limit_stops_the_search_and_says_how_to_get_more() {
    let dir = tree(&[("a.txt", "n1\nn2\nn3\n")]);
    let out = grep(dir.path(), json!({"pattern": "n", "limit": 2}))
        .await
        .unwrap();
    assert_eq!(
        out,
        ToolOutput {
            details: Some(json!({"matchLimitReached": 2})),
            ..ToolOutput::text(
                "a.txt:1: n1\na.txt:2: n2\n\n[2 matches limit reached. Use limit=4 for more, or refine pattern]"
            )
        }
    );
}

#[tokio::test]
async fn a_limit_below_one_still_returns_one_match() {
    let dir = tree(&[("a.txt", "n1\nn2\n")]);
    let out = grep(dir.path(), json!({"pattern": "n", "limit": 0}))
        .await
        .unwrap();
    assert_eq!(
        out,
        ToolOutput {
            details: Some(json!({"matchLimitReached": 1})),
            ..ToolOutput::text(
                "a.txt:1: n1\n\n[1 matches limit reached. Use limit=2 for more, or refine pattern]"
            )
        }
    );
}

#[tokio::test]
async fn long_lines_are_cut_at_500_chars_with_a_notice() {
    let long = format!("needle{}", "é".repeat(600));
    let dir = tree(&[("a.txt", &long)]);
    let out = grep(dir.path(), json!({"pattern": "needle"}))
        .await
        .unwrap();
    let shown: String = long.chars().take(500).collect();
    assert_eq!(
        out,
        ToolOutput {
            details: Some(json!({"linesTruncated": true})),
            ..ToolOutput::text(format!(
                "a.txt:1: {shown}... [truncated]\n\n[Some lines truncated to 500 chars. Use read tool to see full lines]"
            ))
        }
    );
}

#[tokio::test]
async fn output_over_50kb_is_cut_and_every_notice_is_joined_in_pis_order() {
    let line = format!("needle {}", "x".repeat(600));
    let text = vec![line.as_str(); 200].join("\n");
    let dir = tree(&[("a.txt", &text)]);
    let out = grep(dir.path(), json!({"pattern": "needle", "limit": 150}))
        .await
        .unwrap();
    let shown: String = line.chars().take(500).collect();
    let rows: Vec<String> = (1..=150)
        .map(|n| format!("a.txt:{n}: {shown}... [truncated]"))
        .collect();
    let truncation = truncate_head(&rows.join("\n"), 9_007_199_254_740_991, 51200);
    let notice = "[150 matches limit reached. Use limit=300 for more, or refine pattern. 50.0KB limit reached. Some lines truncated to 500 chars. Use read tool to see full lines]";
    assert_eq!(
        out,
        ToolOutput {
            details: Some(json!({
                "matchLimitReached": 150,
                "truncation": serde_json::to_value(&truncation).unwrap(),
                "linesTruncated": true
            })),
            ..ToolOutput::text(format!("{}\n\n{notice}", truncation.content))
        }
    );
}

#[tokio::test]
async fn an_invalid_regex_fails_with_the_parser_message() {
    let dir = tree(&[("a.txt", "x\n")]);
    let err = grep(dir.path(), json!({"pattern": "a("}))
        .await
        .unwrap_err();
    assert_eq!(
        err,
        ToolError::new("regex parse error:\n    a(\n     ^\nerror: unclosed group")
    );
}

#[tokio::test]
async fn a_cancelled_call_is_aborted() {
    let dir = tree(&[("a.txt", "x\n")]);
    let cancel = CancellationToken::new();
    cancel.cancel();
    let err = GrepTool::new(dir.path())
        .grep(&json!({"pattern": "x"}), &cancel)
        .await
        .unwrap_err();
    assert_eq!(err, ToolError::new("Operation aborted"));
}

#[test]
fn line_truncation_counts_utf16_units_and_never_splits_a_character() {
    use rho_host::tools::grep::truncate_line;
    assert_eq!(truncate_line("abc", 3), ("abc".to_owned(), false));
    assert_eq!(
        truncate_line("abcd", 3),
        ("abc... [truncated]".to_owned(), true)
    );
    // "😀" is two UTF-16 units: JavaScript's slice keeps half of it, which Node writes as U+FFFD.
    assert_eq!(
        truncate_line("ab😀c", 3),
        ("ab\u{FFFD}... [truncated]".to_owned(), true)
    );
    assert_eq!(
        truncate_line("a😀bc", 3),
        ("a😀... [truncated]".to_owned(), true)
    );
}
