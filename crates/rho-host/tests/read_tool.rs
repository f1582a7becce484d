//! The `read` tool against real files in a temporary directory (pi-reference §6.1).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use rho_agent::{ToolError, ToolOutput};
use rho_host::tools::ReadTool;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, text).unwrap();
}

async fn read(cwd: &Path, args: Value) -> Result<ToolOutput, ToolError> {
    ReadTool::new(cwd)
        .read_file(&args, &CancellationToken::new())
        .await
}

async fn read_ok(cwd: &Path, args: Value) -> ToolOutput {
    read(cwd, args).await.unwrap()
}

async fn read_err(cwd: &Path, args: Value) -> String {
    read(cwd, args).await.unwrap_err().0
}

/// The one text block, which is also the result's `structuredContent` (Pi 1.6's `toReadOutput`).
fn only_text(output: &ToolOutput) -> &str {
    assert_eq!(output.content.len(), 1);
    let text = output.content[0].as_text().unwrap();
    assert_eq!(
        output.structured_content,
        Some(Value::String(text.to_owned()))
    );
    text
}

fn numbered_lines(from: usize, to: usize) -> Vec<String> {
    (from..=to).map(|n| format!("line {n}")).collect()
}

#[tokio::test]
async fn a_small_file_is_returned_as_it_is_without_details() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "hello.txt", "hello\nworld\n");
    let out = read_ok(dir.path(), json!({"path": "hello.txt"})).await;
    assert_eq!(only_text(&out), "hello\nworld\n");
    assert_eq!(out.details, None);
    assert_eq!(out.is_error, None);
}

#[tokio::test]
async fn offset_and_limit_select_lines_and_announce_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "ten.txt", &numbered_lines(1, 10).join("\n"));
    let out = read_ok(
        dir.path(),
        json!({"path": "ten.txt", "offset": 3, "limit": 2}),
    )
    .await;
    assert_eq!(
        only_text(&out),
        "line 3\nline 4\n\n[6 more lines in file. Use offset=5 to continue.]"
    );
    assert_eq!(out.details, None);

    let to_end = read_ok(
        dir.path(),
        json!({"path": "ten.txt", "offset": 9, "limit": 2}),
    )
    .await;
    assert_eq!(only_text(&to_end), "line 9\nline 10");
}

#[tokio::test]
async fn fractional_offset_and_limit_are_floored() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "ten.txt", &numbered_lines(1, 10).join("\n"));
    let out = read_ok(
        dir.path(),
        json!({"path": "ten.txt", "offset": 2.9, "limit": 1.5}),
    )
    .await;
    assert_eq!(
        only_text(&out),
        "line 2\n\n[8 more lines in file. Use offset=3 to continue.]"
    );
}

#[tokio::test]
async fn an_offset_beyond_the_end_fails_with_the_line_count() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "two.txt", "a\nb\n");
    assert_eq!(
        read_err(dir.path(), json!({"path": "two.txt", "offset": 4})).await,
        "Offset 4 is beyond end of file (3 lines total)"
    );
    // The trailing newline makes a third, empty line, which can still be read.
    let last = read_ok(dir.path(), json!({"path": "two.txt", "offset": 3})).await;
    assert_eq!(only_text(&last), "");
}

#[tokio::test]
async fn a_long_file_stops_at_2000_lines_with_a_continuation_notice() {
    let dir = tempfile::tempdir().unwrap();
    let lines = numbered_lines(1, 2500);
    write(dir.path(), "long.txt", &format!("{}\n", lines.join("\n")));

    let out = read_ok(dir.path(), json!({"path": "long.txt"})).await;
    let expected = format!(
        "{}\n\n[Showing lines 1-2000 of 2501. Use offset=2001 to continue.]",
        lines[..2000].join("\n")
    );
    assert_eq!(only_text(&out), expected);
    let truncation = &out.details.as_ref().unwrap()["truncation"];
    assert_eq!(truncation["truncated"], true);
    assert_eq!(truncation["truncatedBy"], "lines");
    // Pi 1.6 (read.js): the notice counts `split("\n")` lines, truncateHead's details do not
    // count the empty line after the trailing newline.
    assert_eq!(truncation["totalLines"], 2500);
    assert_eq!(truncation["outputLines"], 2000);
    assert_eq!(truncation["content"], lines[..2000].join("\n"));

    let rest = read_ok(dir.path(), json!({"path": "long.txt", "offset": 2001})).await;
    assert_eq!(only_text(&rest), format!("{}\n", lines[2000..].join("\n")));
    assert_eq!(rest.details, None);
}

#[tokio::test]
async fn a_file_over_50kb_stops_at_the_byte_limit_on_a_whole_line() {
    let dir = tempfile::tempdir().unwrap();
    let line = "x".repeat(100);
    let lines = vec![line.as_str(); 1000];
    write(dir.path(), "wide.txt", &lines.join("\n"));

    // 100 bytes + 505 × 101 bytes = 51105 ≤ 51200; one more line would pass the limit.
    let out = read_ok(dir.path(), json!({"path": "wide.txt"})).await;
    let expected = format!(
        "{}\n\n[Showing lines 1-506 of 1000 (50.0KB limit). Use offset=507 to continue.]",
        lines[..506].join("\n")
    );
    assert_eq!(only_text(&out), expected);
    let truncation = &out.details.as_ref().unwrap()["truncation"];
    assert_eq!(truncation["truncatedBy"], "bytes");
    assert_eq!(truncation["outputBytes"], 51105);
    assert_eq!(truncation["totalBytes"], 100_999);

    let next = read_ok(
        dir.path(),
        json!({"path": "wide.txt", "offset": 507, "limit": 3}),
    )
    .await;
    assert_eq!(
        only_text(&next),
        format!("{line}\n{line}\n{line}\n\n[491 more lines in file. Use offset=510 to continue.]")
    );
}

#[tokio::test]
async fn a_first_line_over_50kb_points_to_sed() {
    let dir = tempfile::tempdir().unwrap();
    let huge = "y".repeat(60_000);
    write(dir.path(), "big.txt", &format!("short\n{huge}\nend"));

    let out = read_ok(dir.path(), json!({"path": "@big.txt", "offset": 2})).await;
    assert_eq!(
        only_text(&out),
        "[Line 2 is 58.6KB, exceeds 50.0KB limit. Use bash: sed -n '2p' @big.txt | head -c 51200]"
    );
    let truncation = &out.details.as_ref().unwrap()["truncation"];
    assert_eq!(truncation["firstLineExceedsLimit"], true);
    assert_eq!(truncation["truncatedBy"], "bytes");
    assert_eq!(truncation["content"], "");
    assert_eq!(truncation["outputLines"], 0);
}

#[tokio::test]
async fn a_missing_file_fails_like_node_access_with_the_absolute_path() {
    let dir = tempfile::tempdir().unwrap();
    let expected = format!(
        "ENOENT: no such file or directory, access '{}'",
        dir.path().join("missing.txt").display()
    );
    assert_eq!(
        read_err(dir.path(), json!({"path": "missing.txt"})).await,
        expected
    );
}

#[tokio::test]
async fn a_directory_fails_with_eisdir() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    assert_eq!(
        read_err(dir.path(), json!({"path": "sub"})).await,
        "EISDIR: illegal operation on a directory, read"
    );
}

#[tokio::test]
async fn relative_and_at_prefixed_paths_resolve_against_the_cwd() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "sub/file.txt", "inside");
    let absolute = dir.path().join("sub/file.txt");
    for path in [
        "sub/file.txt",
        "@sub/file.txt",
        "./sub/file.txt",
        absolute.to_str().unwrap(),
    ] {
        let out = read_ok(dir.path(), json!({ "path": path })).await;
        assert_eq!(only_text(&out), "inside", "path {path}");
    }
}

#[tokio::test]
async fn dot_dot_segments_are_normalised_against_the_cwd() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "top.txt", "top");
    write(dir.path(), "sub/deeper/keep", "");
    let cwd = dir.path().join("sub/deeper");
    let out = read_ok(&cwd, json!({"path": "../../top.txt"})).await;
    assert_eq!(only_text(&out), "top");

    let expected = format!(
        "ENOENT: no such file or directory, access '{}'",
        dir.path().join("sub/nope.txt").display()
    );
    assert_eq!(
        read_err(&cwd, json!({"path": "../x/../nope.txt"})).await,
        expected
    );
}

#[tokio::test]
async fn a_cancelled_token_aborts_the_operation() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.txt", "a");
    let cancel = CancellationToken::new();
    cancel.cancel();
    let err = ReadTool::new(dir.path())
        .read_file(&json!({"path": "a.txt"}), &cancel)
        .await
        .unwrap_err();
    assert_eq!(err, ToolError::new("Operation aborted"));
}

#[tokio::test]
async fn a_missing_or_non_string_path_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let expected = "Invalid arguments: \"path\" must be a string";
    assert_eq!(read_err(dir.path(), json!({})).await, expected);
    assert_eq!(read_err(dir.path(), json!({"path": 3})).await, expected);
    assert_eq!(read_err(dir.path(), json!(null)).await, expected);
    assert_eq!(
        read_err(dir.path(), json!({"path": "a", "offset": "2"})).await,
        "Invalid arguments: \"offset\" must be a number"
    );
}

#[tokio::test]
async fn invalid_utf8_is_decoded_lossily() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("bin"), b"ok\xff\n").unwrap();
    let out = read_ok(dir.path(), json!({"path": "bin"})).await;
    assert_eq!(only_text(&out), "ok\u{FFFD}\n");
}

#[tokio::test]
async fn zero_or_negative_offsets_start_at_the_top_and_a_zero_limit_selects_nothing() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "three.txt", "a\nb\nc");
    for offset in [0, -4] {
        let out = read_ok(dir.path(), json!({"path": "three.txt", "offset": offset})).await;
        assert_eq!(only_text(&out), "a\nb\nc");
    }
    for limit in [0, -1] {
        let out = read_ok(dir.path(), json!({"path": "three.txt", "limit": limit})).await;
        assert_eq!(
            only_text(&out),
            "\n\n[3 more lines in file. Use offset=1 to continue.]"
        );
    }
}

#[tokio::test]
async fn a_range_of_a_large_file_is_selected_while_reading() {
    // Pi 1.6 streams a file for offset/limit (selectLinesFromStream); the texts are those of
    // the whole-file path.
    let dir = tempfile::tempdir().unwrap();
    let lines = numbered_lines(1, 300_000);
    write(dir.path(), "big.txt", &format!("{}\n", lines.join("\n")));
    let out = read_ok(
        dir.path(),
        json!({"path": "big.txt", "offset": 150_000, "limit": 2}),
    )
    .await;
    assert_eq!(
        only_text(&out),
        "line 150000\nline 150001\n\n[150000 more lines in file. Use offset=150002 to continue.]"
    );
    assert_eq!(out.details, None);
    let err = read_err(dir.path(), json!({"path": "big.txt", "offset": 300_002})).await;
    assert_eq!(
        err,
        "Offset 300002 is beyond end of file (300001 lines total)"
    );
}
