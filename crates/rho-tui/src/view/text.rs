//! Wrapping text to the pane's width. Assistant text goes through [`assistant_text`]: today plain
//! wrapped text; the Markdown renderer (headings, lists, highlighted code) replaces that one
//! function and nothing else.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// The lines of an assistant text block at `width` columns.
pub fn assistant_text(text: &str, width: usize, style: Style) -> Vec<Line<'static>> {
    styled(wrap(text, width), style)
}

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
