//! The numbered line diff `edit` returns in `details.diff` (Pi's `generateDiffString`).
//!
//! Pi diffs with jsdiff 8's `diffLines` (no options: no edit-length cap, no timeout). Among the
//! many shortest line diffs, jsdiff's Myers variant picks one by its own tie-breaking, which shows
//! in the output (which of two identical `}` lines is "removed", whether additions come before
//! removals), so rho reimplements that exact search instead of using a generic diff crate.

use std::collections::HashMap;
use std::rc::Rc;

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

/// What a run of tokens on a diff path does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Same,
    Removed,
    Added,
}

/// One run on a diff path, linked to the run before it. Runs are shared between the paths that
/// branch from them (as jsdiff's `lastComponent` objects are), hence `Rc`.
struct Component {
    kind: Kind,
    count: usize,
    prev: Option<Rc<Component>>,
}

impl Drop for Component {
    // Paths can be thousands of runs long; unlink iteratively so dropping one cannot overflow
    // the stack through recursive drops.
    fn drop(&mut self) {
        let mut next = self.prev.take();
        while let Some(rc) = next {
            next = match Rc::try_unwrap(rc) {
                Ok(mut component) => component.prev.take(),
                Err(_) => None,
            };
        }
    }
}

/// The furthest-reaching path on one diagonal: `old_pos` is the index of the last old token
/// consumed (`-1` before any), as in jsdiff.
#[derive(Clone)]
struct DiffPath {
    old_pos: isize,
    last: Option<Rc<Component>>,
}

impl DiffPath {
    /// jsdiff's `addToPath`: one more added or removed token, merged into a run of that kind.
    fn step(&self, kind: Kind) -> DiffPath {
        let old_pos = self.old_pos + isize::from(kind == Kind::Removed);
        let component = match &self.last {
            Some(last) if last.kind == kind => Component {
                kind,
                count: last.count + 1,
                prev: last.prev.clone(),
            },
            last => Component {
                kind,
                count: 1,
                prev: last.clone(),
            },
        };
        DiffPath {
            old_pos,
            last: Some(Rc::new(component)),
        }
    }

    /// jsdiff's `extractCommon`: follows the diagonal while tokens match; returns the new
    /// position (index of the last new token consumed).
    fn slide(&mut self, old: &[u32], new: &[u32], diagonal: isize) -> isize {
        let mut old_pos = self.old_pos;
        let mut new_pos = old_pos - diagonal;
        let mut common = 0;
        while let (Some(a), Some(b)) = (token(old, old_pos + 1), token(new, new_pos + 1)) {
            if a != b {
                break;
            }
            old_pos += 1;
            new_pos += 1;
            common += 1;
        }
        if common > 0 {
            self.last = Some(Rc::new(Component {
                kind: Kind::Same,
                count: common,
                prev: self.last.take(),
            }));
        }
        self.old_pos = old_pos;
        new_pos
    }
}

/// The token at `index`, if it is in range.
fn token(tokens: &[u32], index: isize) -> Option<u32> {
    usize::try_from(index)
        .ok()
        .and_then(|i| tokens.get(i))
        .copied()
}

/// jsdiff's `Diff.diff` search over interned tokens: runs of kinds and lengths, in order.
fn myers(old: &[u32], new: &[u32]) -> Vec<(Kind, usize)> {
    let (old_len, new_len) = (old.len() as isize, new.len() as isize);
    let max_edit = old_len + new_len;
    // Diagonals -max_edit-1 ..= max_edit+1 are read; index = diagonal + offset.
    let offset = max_edit + 1;
    let mut best: Vec<Option<DiffPath>> = vec![None; (2 * offset + 1) as usize];
    let slot = |diagonal: isize| (diagonal + offset) as usize;

    let mut start = DiffPath {
        old_pos: -1,
        last: None,
    };
    let new_pos = start.slide(old, new, 0);
    if start.old_pos + 1 >= old_len && new_pos + 1 >= new_len {
        return runs(start.last);
    }
    best[slot(0)] = Some(start);

    // Once a path touches the right (bottom) edge, diagonals beyond it are never worth
    // visiting again (jsdiff's min/maxDiagonalToConsider).
    let (mut min_diagonal, mut max_diagonal) = (isize::MIN, isize::MAX);
    for edit_length in 1..=max_edit {
        let mut diagonal = min_diagonal.max(-edit_length);
        while diagonal <= max_diagonal.min(edit_length) {
            let remove_path = best[slot(diagonal - 1)].take();
            let add_path = best[slot(diagonal + 1)].as_ref();
            let can_add = add_path.is_some_and(|p| {
                let new_after = p.old_pos - diagonal;
                0 <= new_after && new_after < new_len
            });
            let can_remove = remove_path
                .as_ref()
                .is_some_and(|p| p.old_pos + 1 < old_len);
            // jsdiff extends the path that got further through the old text; on a tie, or when
            // insertion would leave the graph, it takes the removal.
            let prefer_add = match (add_path, &remove_path) {
                _ if !can_remove => true,
                (Some(add), Some(remove)) => can_add && remove.old_pos < add.old_pos,
                _ => false,
            };
            let mut base = match (prefer_add, add_path, &remove_path) {
                (true, Some(add), _) if can_add => add.step(Kind::Added),
                (false, _, Some(remove)) if can_remove => remove.step(Kind::Removed),
                _ => {
                    // Neither move stays inside the edit graph: this diagonal is a dead end.
                    best[slot(diagonal)] = None;
                    diagonal += 2;
                    continue;
                }
            };
            let new_pos = base.slide(old, new, diagonal);
            if base.old_pos + 1 >= old_len && new_pos + 1 >= new_len {
                return runs(base.last);
            }
            if base.old_pos + 1 >= old_len {
                max_diagonal = max_diagonal.min(diagonal - 1);
            }
            if new_pos + 1 >= new_len {
                min_diagonal = min_diagonal.max(diagonal + 1);
            }
            best[slot(diagonal)] = Some(base);
            diagonal += 2;
        }
    }
    // Unreachable: a path of old_len + new_len edits always reaches the end. Fall back to
    // "everything replaced" rather than panicking.
    [(Kind::Removed, old.len()), (Kind::Added, new.len())]
        .into_iter()
        .filter(|&(_, count)| count > 0)
        .collect()
}

/// The runs of a path, first to last.
fn runs(mut last: Option<Rc<Component>>) -> Vec<(Kind, usize)> {
    let mut out = Vec::new();
    while let Some(component) = last {
        out.push((component.kind, component.count));
        last = component.prev.clone();
    }
    out.reverse();
    out
}

/// jsdiff's line tokens: each line keeps its `\n` (so a last line without one differs from one
/// with it); splitting on `\n` alone also keeps `\r\n` endings whole, as jsdiff does.
fn lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// A run of the line diff with its lines as jsdiff's tokens (each keeps its `\n`): what
/// `structuredPatch` reads.
pub(super) enum Run<'a> {
    /// Lines in both texts.
    Same(Vec<&'a str>),
    /// Lines only in the old text.
    Removed(Vec<&'a str>),
    /// Lines only in the new text.
    Added(Vec<&'a str>),
}

/// The line diff of `old` and `new` as jsdiff's `diffLines` reports it, lines with their `\n`.
pub(super) fn runs_of<'a>(old: &'a str, new: &'a str) -> Vec<Run<'a>> {
    let strip = |line: &'a str| line;
    diff_runs(old, new, strip, Run::Same, Run::Removed, Run::Added)
}

/// The line diff of `old` and `new` as jsdiff's `diffLines` reports it.
fn parts<'a>(old: &'a str, new: &'a str) -> Vec<Part<'a>> {
    let strip = |line: &'a str| line.strip_suffix('\n').unwrap_or(line);
    diff_runs(old, new, strip, Part::Unchanged, Part::Removed, Part::Added)
}

/// The Myers runs of the line tokens of `old` and `new`, each line passed through `line` and
/// each run built by the constructor of its kind.
fn diff_runs<'a, T>(
    old: &'a str,
    new: &'a str,
    line: impl Fn(&'a str) -> &'a str,
    same: impl Fn(Vec<&'a str>) -> T,
    removed: impl Fn(Vec<&'a str>) -> T,
    added: impl Fn(Vec<&'a str>) -> T,
) -> Vec<T> {
    let (old_lines, new_lines) = (lines(old), lines(new));
    // Compare small integers instead of strings; equal lines get equal ids.
    let mut ids: HashMap<&str, u32> = HashMap::new();
    let mut intern = |line: &'a str| {
        let next = ids.len() as u32;
        *ids.entry(line).or_insert(next)
    };
    let old_ids: Vec<u32> = old_lines.iter().map(|l| intern(l)).collect();
    let new_ids: Vec<u32> = new_lines.iter().map(|l| intern(l)).collect();

    let (mut old_at, mut new_at) = (0, 0);
    let mut parts = Vec::new();
    for (kind, count) in myers(&old_ids, &new_ids) {
        let take = |lines: &[&'a str], at: usize| -> Vec<&'a str> {
            lines
                .get(at..at + count)
                .unwrap_or_default()
                .iter()
                .map(|l| line(l))
                .collect()
        };
        match kind {
            Kind::Same => {
                parts.push(same(take(&new_lines, new_at)));
                old_at += count;
                new_at += count;
            }
            Kind::Removed => {
                parts.push(removed(take(&old_lines, old_at)));
                old_at += count;
            }
            Kind::Added => {
                parts.push(added(take(&new_lines, new_at)));
                new_at += count;
            }
        }
    }
    parts
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
