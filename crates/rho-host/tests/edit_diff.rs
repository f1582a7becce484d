#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The `edit` tool's numbered diff against Pi 0.73.1's `generateDiffString` (jsdiff 8.0.4's
//! `diffLines`). `data/edit_diff_cases.jsonl` holds old/new texts with the `diff` and
//! `firstChangedLine` Pi's own code produced for them under node: random code-like files with
//! many repeated lines and tiny alphabets (most of them cases where a generic Myers diff picks a
//! different, equally short diff), CRLF and lone-CR lines, missing final newlines, empty and
//! identical texts, and one ~1000-line file with many changes.

use rho_host::tools::edit::diff::{CONTEXT_LINES, DiffText, diff_text};
use rho_host::tools::edit::patch::patch_text;
use serde_json::Value;

/// One recorded case: the inputs and Pi's result.
struct Case {
    old: String,
    new: String,
    expected: DiffText,
}

fn recorded_cases() -> Vec<Case> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/edit_diff_cases.jsonl"
    );
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .filter(|line| !line.is_empty())
        .map(|line| {
            let case: Value = serde_json::from_str(line).unwrap();
            let text = |key: &str| case[key].as_str().unwrap().to_owned();
            Case {
                old: text("old"),
                new: text("new"),
                expected: DiffText {
                    diff: text("diff"),
                    first_changed_line: case
                        .get("firstChangedLine")
                        .map(|n| usize::try_from(n.as_u64().unwrap()).unwrap()),
                },
            }
        })
        .collect()
}

#[test]
fn every_recorded_case_gets_pis_exact_diff_and_first_changed_line() {
    let cases = recorded_cases();
    assert_eq!(cases.len(), 53, "the data file lost or gained cases");
    for (i, case) in cases.iter().enumerate() {
        assert_eq!(
            diff_text(&case.old, &case.new, CONTEXT_LINES),
            case.expected,
            "case {i} (line {} of the data file)",
            i + 1
        );
    }
}

#[test]
fn jsdiffs_choice_among_equally_short_diffs_is_kept() {
    // Recorded from Pi: two `}` and two `line3` lines, several shortest diffs; jsdiff keeps the
    // first `line3` and shows the additions ahead of the first common line.
    let old = "line0\n}\nline3\n}\nline3\n";
    let new = "line9\nline3\n\nline0\nline3\nline0\n";
    let expected = DiffText {
        diff: "+1 line9\n+2 line3\n+3 \n 1 line0\n-2 }\n 3 line3\n-4 }\n-5 line3\n+6 line0"
            .to_owned(),
        first_changed_line: Some(1),
    };
    assert_eq!(diff_text(old, new, CONTEXT_LINES), expected);
}

#[test]
fn identical_texts_have_an_empty_diff_and_no_first_changed_line() {
    let expected = DiffText {
        diff: String::new(),
        first_changed_line: None,
    };
    assert_eq!(diff_text("a\n}\n", "a\n}\n", CONTEXT_LINES), expected);
    assert_eq!(diff_text("", "", CONTEXT_LINES), expected);
}

#[test]
fn a_long_unchanged_file_with_one_change_in_the_middle_shows_only_its_context() {
    // Expected text recorded from Pi.
    let old: String = (1..=5000).map(|i| format!("l{i}\n")).collect();
    let new = old.replace("l2500\n", "changed\n");
    let expected = DiffText {
        diff: [
            "      ...",
            " 2496 l2496",
            " 2497 l2497",
            " 2498 l2498",
            " 2499 l2499",
            "-2500 l2500",
            "+2500 changed",
            " 2501 l2501",
            " 2502 l2502",
            " 2503 l2503",
            " 2504 l2504",
            "      ...",
        ]
        .join("\n"),
        first_changed_line: Some(2500),
    };
    assert_eq!(diff_text(&old, &new, CONTEXT_LINES), expected);
}

/// `data/edit_patch_cases.jsonl`: the same old/new texts with the patch Pi 1.6.0's
/// `generateUnifiedPatch("src/f.txt", old, new)` (jsdiff 8.0.4, 4 context lines, file headers
/// only) produced for them under Node 22.
#[test]
fn every_recorded_case_gets_pis_exact_unified_patch() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/edit_patch_cases.jsonl"
    );
    let text = std::fs::read_to_string(path).unwrap();
    let mut checked = 0;
    for (i, line) in text.lines().filter(|line| !line.is_empty()).enumerate() {
        let case: Value = serde_json::from_str(line).unwrap();
        let field = |key: &str| case[key].as_str().unwrap();
        assert_eq!(
            patch_text("src/f.txt", field("old"), field("new"), CONTEXT_LINES),
            field("patch"),
            "case {i} (line {} of the data file)",
            i + 1
        );
        checked += 1;
    }
    assert_eq!(checked, 53, "the data file lost or gained cases");
}
