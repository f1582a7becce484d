//! The `find` tool: Pi's schema, texts, limits and notices, on real files in tempdirs.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use rho_agent::{ToolError, ToolOutput};
use rho_host::tools::FindTool;
use rho_host::tools::truncate::truncate_head;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

fn tree(files: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for rel in files {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "x").unwrap();
    }
    dir
}

async fn find(dir: &Path, args: Value) -> Result<ToolOutput, ToolError> {
    FindTool::new(dir)
        .find(&args, &CancellationToken::new())
        .await
}

#[tokio::test]
async fn results_are_relative_sorted_and_directories_end_with_a_slash() {
    let dir = tree(&[
        "src/lib.rs",
        "src/deep/mod.rs",
        "main.rs",
        ".hidden.rs",
        "src/x.txt",
    ]);
    let out = find(dir.path(), json!({"pattern": "*.rs"})).await.unwrap();
    assert_eq!(
        out,
        ToolOutput::text(".hidden.rs\nmain.rs\nsrc/deep/mod.rs\nsrc/lib.rs")
    );
    let out = find(dir.path(), json!({"pattern": "de*"})).await.unwrap();
    assert_eq!(out, ToolOutput::text("src/deep/"));
}

#[tokio::test]
async fn a_pattern_with_a_slash_is_anchored_at_the_search_dir() {
    let dir = tree(&[
        "src/a.spec.ts",
        "src/sub/b.spec.ts",
        "lib/src/c.spec.ts",
        "d.spec.ts",
    ]);
    // Pi 1.6 (find.js): `<escaped search dir>/<pattern>`, so `src/` means the top one.
    let out = find(dir.path(), json!({"pattern": "src/*.spec.ts"}))
        .await
        .unwrap();
    assert_eq!(out, ToolOutput::text("src/a.spec.ts"));
    let out = find(dir.path(), json!({"pattern": "./src/*.spec.ts"}))
        .await
        .unwrap();
    assert_eq!(out, ToolOutput::text("src/a.spec.ts"));
    let out = find(dir.path(), json!({"pattern": "**/src/*.spec.ts"}))
        .await
        .unwrap();
    assert_eq!(out, ToolOutput::text("lib/src/c.spec.ts\nsrc/a.spec.ts"));
    // An all-lower-case path pattern ignores case.
    let out = find(dir.path(), json!({"pattern": "SRC/*.spec.ts"}))
        .await
        .unwrap();
    assert_eq!(out, ToolOutput::text("No files found matching pattern"));
}

#[tokio::test]
async fn gitignore_applies_even_outside_a_git_repository() {
    let dir = tree(&["keep.txt", "drop.txt"]);
    std::fs::write(dir.path().join(".gitignore"), "drop.txt\n").unwrap();
    let out = find(dir.path(), json!({"pattern": "*.txt"})).await.unwrap();
    assert_eq!(out, ToolOutput::text("keep.txt"));
}

#[tokio::test]
async fn smart_case_makes_lowercase_patterns_case_insensitive() {
    let dir = tree(&["A.RS", "b.rs"]);
    let out = find(dir.path(), json!({"pattern": "*.rs"})).await.unwrap();
    assert_eq!(out, ToolOutput::text("A.RS\nb.rs"));
    let out = find(dir.path(), json!({"pattern": "*.RS"})).await.unwrap();
    assert_eq!(out, ToolOutput::text("A.RS"));
}

#[tokio::test]
async fn nothing_found_says_so() {
    let dir = tree(&["a.txt"]);
    let out = find(dir.path(), json!({"pattern": "*.rs"})).await.unwrap();
    assert_eq!(out, ToolOutput::text("No files found matching pattern"));
}

#[tokio::test]
async fn the_result_limit_says_how_to_get_more() {
    let dir = tree(&["a.txt", "b.txt", "c.txt"]);
    let out = find(dir.path(), json!({"pattern": "*.txt", "limit": 2}))
        .await
        .unwrap();
    assert_eq!(
        out,
        ToolOutput {
            details: Some(json!({"resultLimitReached": 2})),
            ..ToolOutput::text(
                "a.txt\nb.txt\n\n[2 results limit reached. Use limit=4 for more, or refine pattern]"
            )
        }
    );
}

#[tokio::test]
async fn the_limit_is_at_least_one_and_floored_and_an_exact_fit_has_no_notice() {
    let dir = tree(&["a.txt", "b.txt"]);
    let out = find(dir.path(), json!({"pattern": "*", "limit": 0}))
        .await
        .unwrap();
    assert_eq!(
        out,
        ToolOutput {
            details: Some(json!({"resultLimitReached": 1})),
            ..ToolOutput::text(
                "a.txt\n\n[1 results limit reached. Use limit=2 for more, or refine pattern]"
            )
        }
    );
    let out = find(dir.path(), json!({"pattern": "*", "limit": 2.9}))
        .await
        .unwrap();
    assert_eq!(out, ToolOutput::text("a.txt\nb.txt"));
}

#[tokio::test]
async fn output_over_50kb_is_cut_with_a_notice() {
    let names: Vec<String> = (0..600)
        .map(|i| format!("{i:04}{}.txt", "n".repeat(100)))
        .collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let dir = tree(&refs);
    let out = find(dir.path(), json!({"pattern": "*.txt"})).await.unwrap();
    let truncation = truncate_head(&names.join("\n"), 9_007_199_254_740_991, 51200);
    assert_eq!(
        out,
        ToolOutput {
            details: Some(json!({"truncation": serde_json::to_value(&truncation).unwrap()})),
            ..ToolOutput::text(format!("{}\n\n[50.0KB limit reached]", truncation.content))
        }
    );
}

#[tokio::test]
async fn a_search_path_that_is_not_a_directory_fails_like_fd() {
    let dir = tree(&["a.txt"]);
    let err = find(dir.path(), json!({"pattern": "*", "path": "a.txt"}))
        .await
        .unwrap_err();
    let expected = format!(
        "[fd error]: Search path '{}' is not a directory.\n[fd error]: No valid search paths given.",
        dir.path().join("a.txt").display()
    );
    assert_eq!(err, ToolError::new(expected));
}

#[tokio::test]
async fn a_bad_glob_fails_like_fd() {
    let dir = tree(&["a.txt"]);
    let err = find(dir.path(), json!({"pattern": "[a"}))
        .await
        .unwrap_err();
    assert_eq!(
        err,
        ToolError::new(
            "[fd error]: error parsing glob '[a': unclosed character class; missing ']'"
        )
    );
}

#[tokio::test]
async fn a_cancelled_call_is_aborted() {
    let dir = tree(&["a.txt"]);
    let cancel = CancellationToken::new();
    cancel.cancel();
    let err = FindTool::new(dir.path())
        .find(&json!({"pattern": "*"}), &cancel)
        .await
        .unwrap_err();
    assert_eq!(err, ToolError::new("Operation aborted"));
}
