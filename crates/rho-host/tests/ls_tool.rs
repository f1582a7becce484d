//! The `ls` tool: Pi's schema, order, texts, limits and notices, on real directories.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use rho_agent::{AgentTool, ToolError, ToolOutput};
use rho_host::tools::LsTool;
use rho_host::tools::truncate::truncate_head;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

async fn ls(dir: &Path, args: Value) -> Result<ToolOutput, ToolError> {
    LsTool::new(dir)
        .list(&args, &CancellationToken::new())
        .await
}

fn touch(dir: &Path, names: &[&str]) {
    for name in names {
        std::fs::write(dir.join(name), "x").unwrap();
    }
}

#[test]
fn ls_declares_pis_name_description_and_schema() {
    let tool = LsTool::new("/");
    assert_eq!(tool.name(), "ls");
    assert_eq!(
        tool.description(),
        "List directory contents. Returns entries sorted alphabetically, with '/' suffix for directories. Includes dotfiles. Output is truncated to 500 entries or 50KB (whichever is hit first)."
    );
    assert_eq!(
        tool.parameters(),
        &json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Directory to list (default: current directory)"},
                "limit": {"type": "number", "description": "Maximum number of entries to return (default: 500)"}
            }
        })
    );
}

#[tokio::test]
async fn entries_sort_like_javascript_locale_compare_with_dotfiles_and_dir_slashes() {
    let dir = tempfile::tempdir().unwrap();
    // The order Node 22 (ICU, en-US) gives for `a.toLowerCase().localeCompare(b.toLowerCase())`.
    touch(
        dir.path(),
        &[
            "_a", "a", "b", "1", "-x", "#x", "~t", "é", "f", "a.b", "ab", "a_b", "a-b", "Z",
        ],
    );
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    let out = ls(dir.path(), json!({})).await.unwrap();
    let expected = [
        "_a", "-x", ".git/", "#x", "~t", "1", "a", "a_b", "a-b", "a.b", "ab", "b", "é", "f", "Z",
    ];
    assert_eq!(out, ToolOutput::text(expected.join("\n")));
}

#[tokio::test]
async fn an_empty_directory_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let out = ls(dir.path(), json!({"path": "."})).await.unwrap();
    assert_eq!(out, ToolOutput::text("(empty directory)"));
}

#[tokio::test]
async fn the_entry_limit_says_how_to_get_more() {
    let dir = tempfile::tempdir().unwrap();
    touch(dir.path(), &["a", "b", "c"]);
    let out = ls(dir.path(), json!({"limit": 2})).await.unwrap();
    assert_eq!(
        out,
        ToolOutput {
            details: Some(json!({"entryLimitReached": 2})),
            ..ToolOutput::text("a\nb\n\n[2 entries limit reached. Use limit=4 for more]")
        }
    );
}

#[tokio::test]
async fn the_limit_is_at_least_one_and_floored() {
    let dir = tempfile::tempdir().unwrap();
    touch(dir.path(), &["a", "b", "c"]);
    // Pi 1.6 (ls.js): `max(1, floor(limit ?? 500))`.
    let out = ls(dir.path(), json!({"limit": 0})).await.unwrap();
    assert_eq!(
        out,
        ToolOutput {
            details: Some(json!({"entryLimitReached": 1})),
            ..ToolOutput::text("a\n\n[1 entries limit reached. Use limit=2 for more]")
        }
    );
    let out = ls(dir.path(), json!({"limit": 2.9})).await.unwrap();
    assert_eq!(
        out,
        ToolOutput {
            details: Some(json!({"entryLimitReached": 2})),
            ..ToolOutput::text("a\nb\n\n[2 entries limit reached. Use limit=4 for more]")
        }
    );
}

#[tokio::test]
async fn output_over_50kb_is_cut_with_a_notice() {
    let dir = tempfile::tempdir().unwrap();
    let names: Vec<String> = (0..400)
        .map(|i| format!("{i:04}{}", "n".repeat(150)))
        .collect();
    for name in &names {
        std::fs::write(dir.path().join(name), "x").unwrap();
    }
    let out = ls(dir.path(), json!({})).await.unwrap();
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
async fn dangling_symlinks_are_skipped() {
    let dir = tempfile::tempdir().unwrap();
    touch(dir.path(), &["real"]);
    std::os::unix::fs::symlink(dir.path().join("gone"), dir.path().join("link")).unwrap();
    let out = ls(dir.path(), json!({})).await.unwrap();
    assert_eq!(out, ToolOutput::text("real"));
}

#[tokio::test]
async fn missing_paths_and_files_fail_with_pis_texts() {
    let dir = tempfile::tempdir().unwrap();
    touch(dir.path(), &["file"]);
    let err = ls(dir.path(), json!({"path": "nope"})).await.unwrap_err();
    let missing = format!("Path not found: {}", dir.path().join("nope").display());
    assert_eq!(err, ToolError::new(missing));
    let err = ls(dir.path(), json!({"path": "file"})).await.unwrap_err();
    let not_dir = format!("Not a directory: {}", dir.path().join("file").display());
    assert_eq!(err, ToolError::new(not_dir));
}

#[tokio::test]
async fn a_cancelled_call_is_aborted() {
    let dir = tempfile::tempdir().unwrap();
    let cancel = CancellationToken::new();
    cancel.cancel();
    let err = LsTool::new(dir.path())
        .list(&json!({}), &cancel)
        .await
        .unwrap_err();
    assert_eq!(err, ToolError::new("Operation aborted"));
}
