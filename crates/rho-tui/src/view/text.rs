//! Wrapping text to the pane's width: plain strings ([`wrap`]) and styled spans behind a prefix
//! ([`wrap_spans`], for Markdown, code and diffs). Widths are display columns (`unicode-width`),
//! never bytes or chars, so CJK and emoji wrap where the terminal does.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// Each string as one line in `style`.
pub fn styled(lines: Vec<String>, style: Style) -> Vec<Line<'static>> {
    lines
        .into_iter()
        .map(|l| Line::from(Span::styled(l, style)))
        .collect()
}

/// Greedy word wrap by display width: breaks at spaces, splits words longer than a line, keeps
/// the text's own line breaks, and turns tabs into spaces (a tab's width depends on the
/// terminal, which would break the layout).
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut out = Vec::new();
    for raw in text.split('\n') {
        let raw = raw.replace('\t', "    ");
        let raw = raw.trim_end_matches('\r');
        if raw.is_empty() {
            out.push(String::new());
            continue;
        }
        let mut line = String::new();
        let mut line_width = 0;
        for word in raw.split_inclusive(' ') {
            let word_width = word.trim_end_matches(' ').width();
            if line_width > 0 && line_width + word_width > width {
                out.push(line.trim_end_matches(' ').to_owned());
                line.clear();
                line_width = 0;
            }
            for c in word.chars() {
                let w = c.width().unwrap_or(0);
                if line_width + w > width && c != ' ' {
                    out.push(std::mem::take(&mut line));
                    line_width = 0;
                }
                line.push(c);
                line_width += w;
            }
        }
        out.push(line.trim_end_matches(' ').to_owned());
    }
    out
}

/// `text` cut to `width` columns, ending in `…` when cut.
pub fn truncate(text: &str, width: usize) -> String {
    if text.width() <= width {
        return text.to_owned();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > width {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push('…');
    out
}

/// How [`wrap_spans`] breaks a line that does not fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Break {
    /// At spaces, as prose; a word longer than a line is split.
    Words,
    /// At the last column, keeping every space (code, diffs): what is shown is what is there.
    Columns,
}

/// Wraps `spans` (one logical line, no `\n`) to `width` columns. The first row starts with
/// `first`, the others with `rest`; the prefixes' widths are taken off the room for text.
pub fn wrap_spans(
    spans: &[Span<'static>],
    width: usize,
    first: &[Span<'static>],
    rest: &[Span<'static>],
    mode: Break,
) -> Vec<Line<'static>> {
    // Most rows fit as they are; only those that do not are taken apart cell by cell.
    let prefix_width: usize = first.iter().map(|s| s.content.width()).sum();
    let fits = spans.iter().map(|s| s.content.width()).sum::<usize>() + prefix_width <= width
        && spans.iter().all(|s| !s.content.contains('\t'));
    if fits {
        let mut line = first.to_vec();
        line.extend(spans.iter().cloned());
        if mode == Break::Words
            && let Some(last) = line.last_mut()
        {
            let trimmed = last.content.trim_end_matches(' ').len();
            if trimmed < last.content.len() {
                last.content = last.content[..trimmed].to_owned().into();
            }
        }
        return vec![Line::from(line)];
    }
    let cells: Vec<(char, Style)> = spans
        .iter()
        .flat_map(|span| {
            span.content
                .chars()
                .map(move |c| (if c == '\t' { ' ' } else { c }, span.style))
        })
        .collect();
    let room = |row: usize| {
        let prefix = if row == 0 { first } else { rest };
        let used: usize = prefix.iter().map(|s| s.content.width()).sum();
        width.saturating_sub(used).max(1)
    };
    let mut rows: Vec<Vec<(char, Style)>> = vec![Vec::new()];
    let mut used = 0;
    let mut i = 0;
    while i < cells.len() {
        let word_start = i == 0 || cells[i - 1].0 == ' ';
        if mode == Break::Words && word_start && cells[i].0 != ' ' {
            // A word: the run of non-spaces from here; move it whole to a new row if it fits there.
            let end = cells[i..]
                .iter()
                .position(|(c, _)| *c == ' ')
                .map_or(cells.len(), |n| i + n);
            let word: usize = cells[i..end]
                .iter()
                .map(|(c, _)| c.width().unwrap_or(0))
                .sum();
            if used > 0 && used + word > room(rows.len() - 1) {
                trim_spaces(&mut rows);
                rows.push(Vec::new());
                used = 0;
            }
        }
        let (c, style) = cells[i];
        let w = c.width().unwrap_or(0);
        if used + w > room(rows.len() - 1) && used > 0 {
            if mode == Break::Words && c == ' ' {
                // A space at the edge ends the row and is dropped, as in any word wrap.
                i += 1;
                continue;
            }
            rows.push(Vec::new());
            used = 0;
        }
        if let Some(row) = rows.last_mut() {
            row.push((c, style));
        }
        used += w;
        i += 1;
    }
    if mode == Break::Words {
        trim_spaces(&mut rows);
    }
    rows.into_iter()
        .enumerate()
        .map(|(k, row)| {
            let mut line: Vec<Span<'static>> = if k == 0 {
                first.to_vec()
            } else {
                rest.to_vec()
            };
            line.extend(runs(&row));
            Line::from(line)
        })
        .collect()
}

/// Drops the spaces a word-wrapped row ends with.
fn trim_spaces(rows: &mut [Vec<(char, Style)>]) {
    if let Some(row) = rows.last_mut() {
        while row.last().is_some_and(|(c, _)| *c == ' ') {
            row.pop();
        }
    }
}

/// Cells merged into one span per run of equal style.
fn runs(row: &[(char, Style)]) -> Vec<Span<'static>> {
    let mut out: Vec<Span<'static>> = Vec::new();
    let mut text = String::new();
    let mut current: Option<Style> = None;
    for (c, style) in row {
        if current.is_some_and(|s| s != *style) {
            out.push(Span::styled(
                std::mem::take(&mut text),
                current.unwrap_or_default(),
            ));
        }
        current = Some(*style);
        text.push(*c);
    }
    if let Some(style) = current {
        out.push(Span::styled(text, style));
    }
    out
}
