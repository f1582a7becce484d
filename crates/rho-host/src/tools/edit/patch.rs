//! The unified patch `edit` returns in `details.patch` (Pi 1.6): jsdiff 8's
//! `formatPatch(structuredPatch(path, path, old, new, …, {context}), FILE_HEADERS_ONLY)`, built
//! from the same line diff as `details.diff`.

use super::diff::{Run, runs_of};

/// One `@@` hunk.
struct Hunk {
    old_start: usize,
    old_lines: usize,
    new_start: usize,
    new_lines: usize,
    /// Lines with their sign, each still ending in `\n` unless it is a text's unterminated last.
    lines: Vec<String>,
}

/// The patch of `old` against `new` with `context` unchanged lines around changes, headed
/// `--- <path>` / `+++ <path>`; every line ends in `\n`, and a last line without one is followed
/// by `\ No newline at end of file`.
pub fn patch_text(path: &str, old: &str, new: &str, context: usize) -> String {
    let mut runs = runs_of(old, new);
    // jsdiff appends an empty run so the last hunk is always closed.
    runs.push(Run::Same(Vec::new()));
    let count = runs.len();
    let mut hunks = Vec::new();
    let (mut old_range_start, mut new_range_start) = (0, 0);
    let mut current: Vec<String> = Vec::new();
    let (mut old_line, mut new_line) = (1, 1);
    let prefixed = |sign: char, lines: &[&str]| -> Vec<String> {
        lines.iter().map(|line| format!("{sign}{line}")).collect()
    };
    for (index, run) in runs.iter().enumerate() {
        match run {
            Run::Added(lines) | Run::Removed(lines) => {
                if old_range_start == 0 {
                    old_range_start = old_line;
                    new_range_start = new_line;
                    if let Some(Run::Same(before)) = index.checked_sub(1).map(|i| &runs[i]) {
                        let shown = before.len().min(context);
                        current = prefixed(' ', &before[before.len() - shown..]);
                        old_range_start -= current.len();
                        new_range_start -= current.len();
                    }
                }
                let added = matches!(run, Run::Added(_));
                current.extend(prefixed(if added { '+' } else { '-' }, lines));
                if added {
                    new_line += lines.len();
                } else {
                    old_line += lines.len();
                }
            }
            Run::Same(lines) => {
                if old_range_start != 0 {
                    if lines.len() <= context * 2 && index + 2 < count {
                        current.extend(prefixed(' ', lines));
                    } else {
                        let shown = lines.len().min(context);
                        current.extend(prefixed(' ', &lines[..shown]));
                        hunks.push(Hunk {
                            old_start: old_range_start,
                            old_lines: old_line - old_range_start + shown,
                            new_start: new_range_start,
                            new_lines: new_line - new_range_start + shown,
                            lines: std::mem::take(&mut current),
                        });
                        old_range_start = 0;
                        new_range_start = 0;
                    }
                }
                old_line += lines.len();
                new_line += lines.len();
            }
        }
    }
    let mut out = format!("--- {path}\n+++ {path}\n");
    for hunk in hunks {
        // An empty side names the line before it, as jsdiff's formatPatch does.
        let old_start = hunk.old_start - usize::from(hunk.old_lines == 0);
        let new_start = hunk.new_start - usize::from(hunk.new_lines == 0);
        out.push_str(&format!(
            "@@ -{old_start},{} +{new_start},{} @@\n",
            hunk.old_lines, hunk.new_lines
        ));
        for line in hunk.lines {
            match line.strip_suffix('\n') {
                Some(whole) => {
                    out.push_str(whole);
                    out.push('\n');
                }
                None => {
                    out.push_str(&line);
                    out.push_str("\n\\ No newline at end of file\n");
                }
            }
        }
    }
    out
}
