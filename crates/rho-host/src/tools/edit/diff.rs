//! The numbered line diff `edit` returns in `details.diff` (Pi's `generateDiffString`).
//!
//! Pi diffs with jsdiff's `diffLines`; rho uses `similar`'s line diff (Myers, like jsdiff) and
//! regroups it the way jsdiff reports it: alternating runs of unchanged lines and change runs,
//! removals before additions.

use similar::{Algorithm, DiffTag, capture_diff_slices};

/// Unchanged lines shown around each change.
pub const CONTEXT_LINES: usize = 4;

/// The diff text and the first changed line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DiffText {
    /// Lines `+<n> text`, `-<n> text`, ` <n> text` and ` <pad> ...` joined by `\n`.
    pub diff: String,
    /// 1-based line number in the new text of the first change; `None` if nothing changed.
    pub first_changed_line: Option<usize>,
}

/// One run of lines of the same kind (the lines without their `\n`).
enum Part<'a> {
    Unchanged(Vec<&'a str>),
    Removed(Vec<&'a str>),
    Added(Vec<&'a str>),
}

impl Part<'_> {
    fn is_change(&self) -> bool {
        !matches!(self, Part::Unchanged(_))
    }
}

/// Splits the line diff of `old` and `new` into runs, removals before additions in each change.
fn parts<'a>(old: &'a str, new: &'a str) -> Vec<Part<'a>> {
    // Lines keep their `\n`, as in jsdiff, so a last line without one differs from one with it.
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    let strip = |line: &&'a str| line.strip_suffix('\n').unwrap_or(line);
    let mut parts = Vec::new();
    let (mut same, mut removed, mut added) = (Vec::new(), Vec::new(), Vec::new());
    for op in capture_diff_slices(Algorithm::Myers, &old_lines, &new_lines) {
        let (tag, old_range, new_range) = op.as_tag_tuple();
        let old_part = old_lines
            .get(old_range)
            .unwrap_or_default()
            .iter()
            .map(strip);
        let new_part = new_lines
            .get(new_range)
            .unwrap_or_default()
            .iter()
            .map(strip);
        if tag == DiffTag::Equal {
            flush_change(&mut parts, &mut removed, &mut added);
            same.extend(old_part);
            continue;
        }
        if !same.is_empty() {
            parts.push(Part::Unchanged(std::mem::take(&mut same)));
        }
        if matches!(tag, DiffTag::Delete | DiffTag::Replace) {
            removed.extend(old_part);
        }
        if matches!(tag, DiffTag::Insert | DiffTag::Replace) {
            added.extend(new_part);
        }
    }
    flush_change(&mut parts, &mut removed, &mut added);
    if !same.is_empty() {
        parts.push(Part::Unchanged(same));
    }
    parts
}

/// Ends a change run: its removals, then its additions.
fn flush_change<'a>(
    parts: &mut Vec<Part<'a>>,
    removed: &mut Vec<&'a str>,
    added: &mut Vec<&'a str>,
) {
    if !removed.is_empty() {
        parts.push(Part::Removed(std::mem::take(removed)));
    }
    if !added.is_empty() {
        parts.push(Part::Added(std::mem::take(added)));
    }
}

/// Writes numbered lines and skip markers, tracking both files' line numbers.
struct Writer {
    out: Vec<String>,
    width: usize,
    old_line: usize,
    new_line: usize,
}

impl Writer {
    fn numbered(&mut self, sign: char, number: usize, line: &str) {
        let width = self.width;
        self.out.push(format!("{sign}{number:>width$} {line}"));
    }

    fn context(&mut self, lines: &[&str]) {
        for line in lines {
            self.numbered(' ', self.old_line, line);
            self.old_line += 1;
            self.new_line += 1;
        }
    }

    fn skip(&mut self, count: usize) {
        self.out
            .push(format!(" {:>width$} ...", "", width = self.width));
        self.old_line += count;
        self.new_line += count;
    }
}

/// Pi's numbered diff of `old` against `new` with `context` unchanged lines around changes.
///
/// Line numbers are padded to the width of the larger line count; unchanged lines carry the
/// old file's number, removed lines the old one's, added lines the new one's.
pub fn diff_text(old: &str, new: &str, context: usize) -> DiffText {
    let parts = parts(old, new);
    let max_lines = old.split('\n').count().max(new.split('\n').count());
    let mut w = Writer {
        out: Vec::new(),
        width: max_lines.to_string().len(),
        old_line: 1,
        new_line: 1,
    };
    let mut first_changed_line = None;
    let mut last_was_change = false;

    for (i, part) in parts.iter().enumerate() {
        match part {
            Part::Added(lines) | Part::Removed(lines) => {
                first_changed_line.get_or_insert(w.new_line);
                let added = matches!(part, Part::Added(_));
                for line in lines {
                    if added {
                        w.numbered('+', w.new_line, line);
                        w.new_line += 1;
                    } else {
                        w.numbered('-', w.old_line, line);
                        w.old_line += 1;
                    }
                }
                last_was_change = true;
            }
            Part::Unchanged(lines) => {
                let next_is_change = parts.get(i + 1).is_some_and(Part::is_change);
                match (last_was_change, next_is_change) {
                    (true, true) if lines.len() <= context * 2 => w.context(lines),
                    (true, true) => {
                        w.context(&lines[..context]);
                        w.skip(lines.len() - 2 * context);
                        w.context(&lines[lines.len() - context..]);
                    }
                    (true, false) => {
                        let shown = context.min(lines.len());
                        w.context(&lines[..shown]);
                        if lines.len() > shown {
                            w.skip(lines.len() - shown);
                        }
                    }
                    (false, true) => {
                        let skipped = lines.len().saturating_sub(context);
                        if skipped > 0 {
                            w.skip(skipped);
                        }
                        w.context(&lines[skipped..]);
                    }
                    (false, false) => {
                        w.old_line += lines.len();
                        w.new_line += lines.len();
                    }
                }
                last_was_change = false;
            }
        }
    }
    DiffText {
        diff: w.out.join("\n"),
        first_changed_line,
    }
}
