#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The `edit` tool (pi-reference §6.3, §10 item 22) on real files. Expected diffs were produced
//! by Pi 0.73.1's own `edit-diff.js` (with jsdiff 8) on the same inputs.

use std::path::Path;
use std::sync::Arc;

use rho_agent::{AgentTool, ToolError, ToolOutput};
use rho_host::tools::edit::apply::normalize_for_fuzzy_match;
use rho_host::tools::{EditTool, MutationQueue};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

fn tool(dir: &Path) -> EditTool {
    EditTool::new(dir, Arc::new(MutationQueue::default()))
}

/// A file `f.txt` holding `bytes` in a fresh directory.
fn file_with(bytes: &[u8]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("f.txt"), bytes).unwrap();
    dir
}

fn on_disk(dir: &tempfile::TempDir) -> Vec<u8> {
    std::fs::read(dir.path().join("f.txt")).unwrap()
}

/// Edits `f.txt`; a success's `details.patch` is checked for its headers and taken out (its
/// exact text is `edit_diff`'s business), so results compare whole.
async fn edit(dir: &Path, edits: Value) -> Result<ToolOutput, ToolError> {
    let mut result = tool(dir)
        .edit_file(
            &json!({"path": "f.txt", "edits": edits}),
            &CancellationToken::new(),
        )
        .await;
    if let Ok(ToolOutput {
        details: Some(Value::Object(details)),
        ..
    }) = &mut result
    {
        let patch = details.shift_remove("patch").unwrap();
        assert!(
            patch
                .as_str()
                .unwrap()
                .starts_with("--- f.txt\n+++ f.txt\n@@ -"),
            "{patch}"
        );
    }
    result
}

/// A successful result with Pi's text and details.
fn success(blocks: usize, diff: &str, first_changed_line: usize) -> ToolOutput {
    ToolOutput {
        details: Some(json!({"diff": diff, "firstChangedLine": first_changed_line})),
        ..ToolOutput::text(format!("Successfully replaced {blocks} block(s) in f.txt."))
    }
}

/// Edits `content` (which must stay unchanged on failure) and returns the error text.
async fn failure(content: &str, edits: Value) -> String {
    let dir = file_with(content.as_bytes());
    let error = edit(dir.path(), edits).await.unwrap_err();
    assert_eq!(
        on_disk(&dir),
        content.as_bytes(),
        "a failed edit must not write"
    );
    error.0
}

#[tokio::test]
async fn one_edit_replaces_its_block_and_returns_the_numbered_diff() {
    let dir = file_with(b"one\ntwo\n");
    let output = edit(
        dir.path(),
        json!([{"oldText": "one\ntwo", "newText": "uno\ndos"}]),
    )
    .await
    .unwrap();
    assert_eq!(output, success(1, "-1 one\n-2 two\n+1 uno\n+2 dos", 1));
    assert_eq!(on_disk(&dir), b"uno\ndos\n");
}

#[tokio::test]
async fn the_diff_shows_four_context_lines_and_skips_the_rest() {
    let content: String = (1..=20).map(|i| format!("line {i}\n")).collect();
    let dir = file_with(content.as_bytes());
    let output = edit(
        dir.path(),
        json!([
            {"oldText": "line 3\n", "newText": "line three\n"},
            {"oldText": "line 15\nline 16\n", "newText": "line 15a\n"}
        ]),
    )
    .await
    .unwrap();
    let diff = [
        "  1 line 1",
        "  2 line 2",
        "- 3 line 3",
        "+ 3 line three",
        "  4 line 4",
        "  5 line 5",
        "  6 line 6",
        "  7 line 7",
        "    ...",
        " 11 line 11",
        " 12 line 12",
        " 13 line 13",
        " 14 line 14",
        "-15 line 15",
        "-16 line 16",
        "+15 line 15a",
        " 17 line 17",
        " 18 line 18",
        " 19 line 19",
        " 20 line 20",
    ]
    .join("\n");
    assert_eq!(output, success(2, &diff, 3));
    let expected: String = content
        .replace("line 3\n", "line three\n")
        .replace("line 15\nline 16\n", "line 15a\n");
    assert_eq!(on_disk(&dir), expected.as_bytes());
}

#[tokio::test]
async fn the_diff_keeps_up_to_eight_lines_between_changes_and_numbers_added_lines_in_the_new_file()
{
    let dir = file_with(b"a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n");
    let output = edit(
        dir.path(),
        json!([{"oldText": "a\n", "newText": ""}, {"oldText": "j\n", "newText": "J\n"}]),
    )
    .await
    .unwrap();
    let diff = "- 1 a\n  2 b\n  3 c\n  4 d\n  5 e\n  6 f\n  7 g\n  8 h\n  9 i\n-10 j\n+ 9 J";
    assert_eq!(output, success(2, diff, 1));
    assert_eq!(on_disk(&dir), b"b\nc\nd\ne\nf\ng\nh\ni\nJ\n");
}

#[tokio::test]
async fn a_last_line_without_newline_counts_as_changed_when_a_line_is_appended() {
    let dir = file_with(b"x\ny");
    let output = edit(dir.path(), json!([{"oldText": "y", "newText": "y\nz"}]))
        .await
        .unwrap();
    assert_eq!(output, success(1, " 1 x\n-2 y\n+2 y\n+3 z", 2));
    assert_eq!(on_disk(&dir), b"x\ny\nz");
}

#[tokio::test]
async fn every_edit_is_matched_against_the_original_content() {
    // Applied one after another, "a"→"b" then "b"→"c" would give "c\nc\nc\n".
    let dir = file_with(b"a\nb\nc\n");
    let output = edit(
        dir.path(),
        json!([{"oldText": "a", "newText": "b"}, {"oldText": "b", "newText": "c"}]),
    )
    .await
    .unwrap();
    assert_eq!(output, success(2, "-1 a\n 2 b\n 3 c\n+3 c", 1));
    assert_eq!(on_disk(&dir), b"b\nc\nc\n");
}

#[tokio::test]
async fn crlf_files_are_matched_with_lf_and_written_back_with_crlf() {
    let dir = file_with(b"first\r\nsecond\r\nthird\r\n");
    let output = edit(
        dir.path(),
        json!([{"oldText": "first\nsecond", "newText": "1st\r\n2nd\nextra"}]),
    )
    .await
    .unwrap();
    assert_eq!(
        output,
        success(
            1,
            "-1 first\n-2 second\n+1 1st\n+2 2nd\n+3 extra\n 3 third",
            1
        )
    );
    assert_eq!(on_disk(&dir), b"1st\r\n2nd\r\nextra\r\nthird\r\n");
}

#[tokio::test]
async fn a_bom_is_kept_and_never_has_to_be_matched() {
    let dir = file_with(b"\xEF\xBB\xBFhello\r\nworld\r\n");
    let output = edit(dir.path(), json!([{"oldText": "hello", "newText": "hi"}]))
        .await
        .unwrap();
    assert_eq!(output, success(1, "-1 hello\n+1 hi\n 2 world", 1));
    assert_eq!(on_disk(&dir), b"\xEF\xBB\xBFhi\r\nworld\r\n");
}

#[tokio::test]
async fn a_file_whose_first_line_ends_in_lf_is_written_with_lf_and_lone_cr_becomes_lf() {
    let dir = file_with(b"a\nb\r\nc\rd");
    let output = edit(dir.path(), json!([{"oldText": "d", "newText": "D"}]))
        .await
        .unwrap();
    assert_eq!(output, success(1, " 1 a\n 2 b\n 3 c\n-4 d\n+4 D", 4));
    assert_eq!(on_disk(&dir), b"a\nb\nc\nD");
}

#[tokio::test]
async fn a_fuzzy_match_rewrites_the_whole_file_in_normalised_form() {
    let content = "let s = \u{201C}hi\u{201D};   \nx \u{2014} y\n";
    let dir = file_with(content.as_bytes());
    let output = edit(
        dir.path(),
        json!([{"oldText": "let s = \"hi\";", "newText": "let s = \"bye\";"}]),
    )
    .await
    .unwrap();
    assert_eq!(
        output,
        success(1, "-1 let s = \"hi\";\n+1 let s = \"bye\";\n 2 x - y", 1)
    );
    assert_eq!(on_disk(&dir), b"let s = \"bye\";\nx - y\n");
}

#[tokio::test]
async fn one_fuzzy_edit_makes_every_edit_apply_to_the_normalised_content() {
    let content = "a\u{00A0}=\u{00A0}1;\u{2009}\ncaf\u{0065}\u{0301} = \u{2018}x\u{2019};\n";
    let dir = file_with(content.as_bytes());
    edit(
        dir.path(),
        json!([
            {"oldText": "a = 1;", "newText": "a = 2;"},
            {"oldText": "caf\u{00E9}", "newText": "tea"}
        ]),
    )
    .await
    .unwrap();
    assert_eq!(on_disk(&dir), "a = 2;\ntea = 'x';\n".as_bytes());
}

#[test]
fn the_fuzzy_normalisation_is_pis() {
    assert_eq!(
        normalize_for_fuzzy_match(
            "\u{FB01}ne \u{2018}a\u{201B} \u{201C}b\u{201F}\t \u{3000}\n\u{2010}\u{2015}\u{2212}x\u{2007}y\u{205F}z\u{FEFF}\n end\u{85}"
        ),
        "fine 'a' \"b\"\n---x y z\n end\u{85}"
    );
}

#[tokio::test]
async fn not_found_texts_are_pis() {
    assert_eq!(
        failure("abc\n", json!([{"oldText": "xyz", "newText": "q"}])).await,
        "Could not find the exact text in f.txt. The old text must match exactly including all whitespace and newlines."
    );
    assert_eq!(
        failure(
            "abc\n",
            json!([{"oldText": "a", "newText": "q"}, {"oldText": "xyz", "newText": "q"}])
        )
        .await,
        "Could not find edits[1] in f.txt. The oldText must match exactly including all whitespace and newlines."
    );
}

#[tokio::test]
async fn duplicate_texts_are_counted_in_the_fuzzy_space() {
    assert_eq!(
        failure("foo\nfoo\n", json!([{"oldText": "foo", "newText": "bar"}])).await,
        "Found 2 occurrences of the text in f.txt. The text must be unique. Please provide more context to make it unique."
    );
    // "x \n" and "x\n" differ exactly but are the same once trailing spaces are stripped.
    assert_eq!(
        failure(
            "a\nx \nx\nx\n",
            json!([{"oldText": "a", "newText": "b"}, {"oldText": "x\n", "newText": "y\n"}])
        )
        .await,
        "Found 3 occurrences of edits[1] in f.txt. Each oldText must be unique. Please provide more context to make it unique."
    );
}

#[tokio::test]
async fn overlapping_edits_are_named_in_file_order() {
    assert_eq!(
        failure(
            "abcdef\n",
            json!([{"oldText": "abc", "newText": "x"}, {"oldText": "bcd", "newText": "y"}])
        )
        .await,
        "edits[0] and edits[1] overlap in f.txt. Merge them into one edit or target disjoint regions."
    );
    assert_eq!(
        failure(
            "abcdef\n",
            json!([{"oldText": "cde", "newText": "x"}, {"oldText": "abc", "newText": "y"}])
        )
        .await,
        "edits[1] and edits[0] overlap in f.txt. Merge them into one edit or target disjoint regions."
    );
}

#[tokio::test]
async fn edits_that_change_nothing_are_refused() {
    assert_eq!(
        failure("same\n", json!([{"oldText": "same", "newText": "same"}])).await,
        "No changes made to f.txt. The replacement produced identical content. This might indicate an issue with special characters or the text not existing as expected."
    );
    assert_eq!(
        failure(
            "a b\n",
            json!([{"oldText": "a", "newText": "a"}, {"oldText": "b", "newText": "b"}])
        )
        .await,
        "No changes made to f.txt. The replacements produced identical content."
    );
}

#[tokio::test]
async fn an_empty_old_text_is_refused() {
    assert_eq!(
        failure("abc\n", json!([{"oldText": "", "newText": "x"}])).await,
        "oldText must not be empty in f.txt."
    );
    assert_eq!(
        failure(
            "abc\n",
            json!([{"oldText": "a", "newText": "x"}, {"oldText": "", "newText": "x"}])
        )
        .await,
        "edits[1].oldText must not be empty in f.txt."
    );
}

#[tokio::test]
async fn missing_or_empty_edits_are_refused() {
    let expected = "Edit tool input is invalid. edits must contain at least one replacement.";
    assert_eq!(failure("abc\n", json!([])).await, expected);
    let dir = file_with(b"abc\n");
    let error = tool(dir.path())
        .edit_file(&json!({"path": "f.txt"}), &CancellationToken::new())
        .await
        .unwrap_err();
    assert_eq!(error, ToolError::new(expected));
}

#[tokio::test]
async fn a_missing_file_cannot_be_edited() {
    let dir = tempfile::tempdir().unwrap();
    let error = tool(dir.path())
        .edit_file(
            &json!({"path": "nope.txt", "edits": [{"oldText": "a", "newText": "b"}]}),
            &CancellationToken::new(),
        )
        .await
        .unwrap_err();
    assert_eq!(
        error,
        ToolError::new("Could not edit file: nope.txt. Error code: ENOENT.")
    );
    assert!(!dir.path().join("nope.txt").exists());
}

#[tokio::test]
async fn a_directory_passes_the_access_check_and_fails_to_read() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("f.txt")).unwrap();
    let error = edit(dir.path(), json!([{"oldText": "a", "newText": "b"}]))
        .await
        .unwrap_err();
    assert_eq!(
        error,
        ToolError::new("EISDIR: illegal operation on a directory, read")
    );
}

#[tokio::test]
async fn a_cancelled_call_fails_with_operation_aborted_and_leaves_the_file() {
    let dir = file_with(b"abc\n");
    let cancel = CancellationToken::new();
    cancel.cancel();
    let error = tool(dir.path())
        .edit_file(
            &json!({"path": "f.txt", "edits": [{"oldText": "abc", "newText": "x"}]}),
            &cancel,
        )
        .await
        .unwrap_err();
    assert_eq!(error, ToolError::new("Operation aborted"));
    assert_eq!(on_disk(&dir), b"abc\n");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_concurrent_edits_of_one_file_run_in_call_order() {
    let dir = file_with(b"value = one\n");
    let queue = Arc::new(MutationQueue::default());
    let tool = EditTool::new(dir.path(), Arc::clone(&queue));
    let cancel = CancellationToken::new();
    let first = json!({"path": "f.txt", "edits": [{"oldText": "one", "newText": "two"}]});
    // Only finds its text if the first edit has been written before it reads the file.
    let second = json!({"path": "./f.txt", "edits": [{"oldText": "two", "newText": "three"}]});
    let (a, b) = tokio::join!(
        tool.edit_file(&first, &cancel),
        tool.edit_file(&second, &cancel)
    );
    assert_eq!(
        a.unwrap().content,
        ToolOutput::text("Successfully replaced 1 block(s) in f.txt.").content
    );
    assert_eq!(
        b.unwrap().content,
        ToolOutput::text("Successfully replaced 1 block(s) in ./f.txt.").content
    );
    assert_eq!(on_disk(&dir), b"value = three\n");
    assert_eq!(queue.active_files(), 0);
}

#[test]
fn prepare_arguments_parses_stringified_edits() {
    let tool = tool(Path::new("/tmp"));
    let raw = json!({"path": "f.txt", "edits": "[{\"oldText\":\"a\",\"newText\":\"b\"}]"});
    assert_eq!(
        tool.prepare_arguments(raw),
        Ok(json!({"path": "f.txt", "edits": [{"oldText": "a", "newText": "b"}]}))
    );
    // Pi 1.6: one edit object, as a JSON string or as it is, becomes a one-item list.
    let single = json!({"path": "f.txt", "edits": "{\"oldText\":\"a\",\"newText\":\"b\"}"});
    assert_eq!(
        tool.prepare_arguments(single),
        Ok(json!({"path": "f.txt", "edits": [{"oldText": "a", "newText": "b"}]}))
    );
    let single = json!({"path": "f.txt", "edits": {"oldText": "a", "newText": "b"}});
    assert_eq!(
        tool.prepare_arguments(single),
        Ok(json!({"path": "f.txt", "edits": [{"oldText": "a", "newText": "b"}]}))
    );
    // Anything else is left for validation to reject.
    let not_an_edit = json!({"path": "f.txt", "edits": "{\"oldText\":\"a\"}"});
    assert_eq!(tool.prepare_arguments(not_an_edit.clone()), Ok(not_an_edit));
    let not_json = json!({"path": "f.txt", "edits": "[{"});
    assert_eq!(tool.prepare_arguments(not_json.clone()), Ok(not_json));
}

#[test]
fn prepare_arguments_turns_the_legacy_form_into_one_more_edit() {
    let tool = tool(Path::new("/tmp"));
    let legacy = json!({"path": "f.txt", "oldText": "a", "newText": "b"});
    let prepared = tool.prepare_arguments(legacy).unwrap();
    assert_eq!(
        serde_json::to_string(&prepared).unwrap(),
        r#"{"path":"f.txt","edits":[{"oldText":"a","newText":"b"}]}"#
    );

    let both = json!({"edits": [{"oldText": "x", "newText": "y"}], "oldText": "a", "newText": "b", "path": "f.txt"});
    let prepared = tool.prepare_arguments(both).unwrap();
    assert_eq!(
        serde_json::to_string(&prepared).unwrap(),
        r#"{"edits":[{"oldText":"x","newText":"y"},{"oldText":"a","newText":"b"}],"path":"f.txt"}"#
    );

    // Only both legacy strings together trigger the conversion.
    let partial = json!({"path": "f.txt", "oldText": "a"});
    assert_eq!(tool.prepare_arguments(partial.clone()), Ok(partial));
    assert_eq!(tool.prepare_arguments(json!("text")), Ok(json!("text")));
}

#[tokio::test]
async fn the_legacy_form_edits_the_file_after_preparation() {
    let dir = file_with(b"hello\n");
    let tool = tool(dir.path());
    let args = tool
        .prepare_arguments(json!({"path": "f.txt", "oldText": "hello", "newText": "bye"}))
        .unwrap();
    let output = tool
        .edit_file(&args, &CancellationToken::new())
        .await
        .unwrap();
    let expected = ToolOutput {
        details: Some(json!({
            "diff": "-1 hello\n+1 bye",
            "patch": "--- f.txt\n+++ f.txt\n@@ -1,1 +1,1 @@\n-hello\n+bye\n",
            "firstChangedLine": 1
        })),
        ..success(1, "", 1)
    };
    assert_eq!(output, expected);
    assert_eq!(on_disk(&dir), b"bye\n");
}

/// shared/fixtures/pi-1.6/json-edit.new.jsonl: Pi 1.6's whole details for one replacement,
/// `diff`, `patch` and `firstChangedLine` in that order.
#[tokio::test]
async fn details_carry_pis_unified_patch_after_the_diff() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    let source = "export function add(a: number, b: number): number {\n  return a + b;\n}\n\nexport function mul(a: number, b: number): number {\n  return a * b;\n}\n";
    std::fs::write(dir.path().join("src/math.ts"), source).unwrap();
    let result = tool(dir.path())
        .edit_file(
            &json!({"path": "src/math.ts", "edits": [{"oldText": "return a + b;", "newText": "return b + a;"}]}),
            &CancellationToken::new(),
        )
        .await
        .unwrap();
    let details = serde_json::to_string(&result.details).unwrap();
    assert_eq!(
        details,
        r#"{"diff":" 1 export function add(a: number, b: number): number {\n-2   return a + b;\n+2   return b + a;\n 3 }\n 4 \n 5 export function mul(a: number, b: number): number {\n 6   return a * b;\n   ...","patch":"--- src/math.ts\n+++ src/math.ts\n@@ -1,6 +1,6 @@\n export function add(a: number, b: number): number {\n-  return a + b;\n+  return b + a;\n }\n \n export function mul(a: number, b: number): number {\n   return a * b;\n","firstChangedLine":2}"#
    );
}
