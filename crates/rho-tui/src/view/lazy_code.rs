//! Code highlighted where it is seen. A finished reply is laid out with its code plain, each code
//! line remembered as a [`PendingCode`]; drawing then highlights only the rows on screen, so
//! opening a long session costs a screenful of grammar work, not the whole transcript's.
//!
//! A block is highlighted in fixed chunks of [`CHUNK`] lines, each from a fresh parser warmed up
//! on the [`LEAD`] lines before it. Starting mid-block can misread a construct longer than the
//! lead (a long block comment), but a chunk's colours never depend on where the reader scrolled
//! from, so nothing flickers, and every chunk is cached.

use std::cell::RefCell;
use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::ops::Range;
use std::rc::Rc;

use ratatui::text::{Line, Span};
use syntect::util::LinesWithEndings;

use super::highlight::{fresh, grammar, highlight_line, normalize, plain_line};
use super::text::{Break, wrap_spans};

/// Source lines highlighted together (and cached) as one piece.
pub const CHUNK: usize = 12;

/// Lines before a chunk run through the grammar to settle its state.
pub const LEAD: usize = 4;

/// Chunks kept before the cache starts over.
const CACHE_LIMIT: usize = 1024;

/// Highlighted chunks by block and chunk number.
type Chunks = HashMap<(u64, usize), Rc<Vec<Line<'static>>>>;

thread_local! {
    static CHUNKS: RefCell<Chunks> = RefCell::new(HashMap::new());
}

/// A finished code block's text and language.
#[derive(Debug, PartialEq)]
pub struct CodeSource {
    language: String,
    source: String,
    /// Where each line starts, then the end: line `i` is `source[bounds[i]..bounds[i + 1]]`.
    bounds: Vec<usize>,
    key: u64,
}

impl CodeSource {
    /// The block `source` fenced as `language`.
    pub fn new(language: &str, source: String) -> Self {
        let language = normalize(language);
        let mut hasher = DefaultHasher::new();
        language.hash(&mut hasher);
        source.hash(&mut hasher);
        let mut bounds = vec![0];
        let mut end = 0;
        for line in LinesWithEndings::from(&source) {
            end += line.len();
            bounds.push(end);
        }
        CodeSource {
            language,
            source,
            bounds,
            key: hasher.finish(),
        }
    }

    fn len(&self) -> usize {
        self.bounds.len() - 1
    }

    fn line(&self, i: usize) -> &str {
        let (Some(&start), Some(&end)) = (self.bounds.get(i), self.bounds.get(i + 1)) else {
            return "";
        };
        self.source.get(start..end).unwrap_or_default()
    }
}

/// One code line laid out plain: where its rows are and how to draw them highlighted.
#[derive(Clone, Debug, PartialEq)]
pub struct PendingCode {
    /// Its first row.
    pub row: usize,
    /// How many rows it wraps to.
    pub rows: usize,
    block: Rc<CodeSource>,
    line: usize,
    indent: Vec<Span<'static>>,
    width: usize,
}

impl PendingCode {
    /// Line `line` of `block`, laid out at `row` as `rows` rows of `width` behind `indent`.
    pub fn new(
        block: &Rc<CodeSource>,
        line: usize,
        row: usize,
        rows: usize,
        indent: Vec<Span<'static>>,
        width: usize,
    ) -> Self {
        PendingCode {
            row,
            rows,
            block: Rc::clone(block),
            line,
            indent,
            width,
        }
    }

    /// The same line `by` rows further down (its document placed below others).
    pub fn shifted(&self, by: usize) -> Self {
        PendingCode {
            row: self.row + by,
            ..self.clone()
        }
    }
}

/// Replaces the plain rows of the pending code lines that touch `rows` with highlighted ones.
/// `pending` is in row order.
pub fn fill(lines: &mut [Line<'static>], pending: &[PendingCode], rows: Range<usize>) {
    let start = pending.partition_point(|p| p.row + p.rows <= rows.start);
    let end = pending.partition_point(|p| p.row < rows.end);
    let Some(shown) = pending.get(start..end) else {
        return;
    };
    // Consecutive lines of one block are highlighted together.
    for group in shown.chunk_by(|a, b| Rc::ptr_eq(&a.block, &b.block)) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let highlighted = highlight_lines(&first.block, first.line..last.line + 1);
        for code in group {
            let Some(line) = highlighted.get(code.line - first.line) else {
                continue;
            };
            let wrapped = wrap_spans(
                &line.spans,
                code.width,
                &code.indent,
                &code.indent,
                Break::Columns,
            );
            // Same text, same wrapping; anything else would shift the rows below.
            if let Some(target) = lines.get_mut(code.row..code.row + code.rows)
                && wrapped.len() == target.len()
            {
                target.clone_from_slice(&wrapped);
            }
        }
    }
}

/// Lines `range` of `block`, highlighted chunk by chunk.
fn highlight_lines(block: &CodeSource, range: Range<usize>) -> Vec<Line<'static>> {
    let range = range.start..range.end.min(block.len());
    if range.is_empty() {
        return Vec::new();
    }
    let Some((assets, syntax)) = grammar(&block.language) else {
        return range.map(|i| plain_line(block.line(i))).collect();
    };
    let mut out = Vec::new();
    let last_chunk = range.end.saturating_sub(1) / CHUNK;
    for chunk in range.start / CHUNK..=last_chunk {
        let lines = CHUNKS.with(|cache| {
            if let Some(lines) = cache.borrow().get(&(block.key, chunk)) {
                return Rc::clone(lines);
            }
            let start = chunk * CHUNK;
            let end = (start + CHUNK).min(block.len());
            let (mut parse, mut state) = fresh(assets, syntax);
            let mut lines = Vec::new();
            for i in start.saturating_sub(LEAD)..end {
                let line = highlight_line(assets, &mut parse, &mut state, block.line(i));
                if i >= start {
                    lines.push(line);
                }
            }
            let lines = Rc::new(lines);
            let mut cache = cache.borrow_mut();
            if cache.len() >= CACHE_LIMIT {
                cache.clear();
            }
            cache.insert((block.key, chunk), Rc::clone(&lines));
            lines
        });
        let first = chunk * CHUNK;
        for (i, line) in lines.iter().enumerate() {
            if range.contains(&(first + i)) {
                out.push(line.clone());
            }
        }
    }
    out
}
