//! Output truncation shared by the coding tools (pi-reference §6, "Common conventions").
//!
//! Limits are counted in lines (Pi 1.6's `splitLinesForCounting`: empty text has no line, a
//! trailing `\n` ends the last line rather than starting one) and in UTF-8 bytes. Whole lines are kept,
//! except by [`truncate_tail`] when even the last line alone is too long.

use rho_stdx::js::to_fixed;
use serde::{Deserialize, Serialize};

/// Default maximum number of lines a tool returns.
pub const DEFAULT_MAX_LINES: usize = 2000;

/// Default maximum number of UTF-8 bytes a tool returns (50 KiB).
pub const DEFAULT_MAX_BYTES: usize = 51200;

/// Which limit cut the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TruncatedBy {
    /// The line limit was hit first.
    Lines,
    /// The byte limit was hit first.
    Bytes,
}

/// The outcome of a truncation; serialises as Pi's `TruncationResult` (`details.truncation`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Truncation {
    /// The text that was kept.
    pub content: String,
    /// Whether anything was cut.
    pub truncated: bool,
    /// Which limit cut the text; `null` when nothing was cut.
    pub truncated_by: Option<TruncatedBy>,
    /// Lines in the input.
    pub total_lines: usize,
    /// UTF-8 bytes in the input.
    pub total_bytes: usize,
    /// Lines kept.
    pub output_lines: usize,
    /// UTF-8 bytes kept.
    pub output_bytes: usize,
    /// True when [`truncate_tail`] kept only the end of the last line.
    pub last_line_partial: bool,
    /// True when [`truncate_head`] could keep nothing because the first line is too long.
    pub first_line_exceeds_limit: bool,
    /// The line limit used.
    pub max_lines: usize,
    /// The byte limit used.
    pub max_bytes: usize,
}

impl Truncation {
    fn untouched(text: &str, total_lines: usize, max_lines: usize, max_bytes: usize) -> Self {
        Truncation {
            content: text.to_owned(),
            truncated: false,
            truncated_by: None,
            total_lines,
            total_bytes: text.len(),
            output_lines: total_lines,
            output_bytes: text.len(),
            last_line_partial: false,
            first_line_exceeds_limit: false,
            max_lines,
            max_bytes,
        }
    }
}

/// The lines of `text` as Pi 1.6 counts them: none for empty text, and no empty line after a
/// trailing `\n`.
pub fn split_lines_for_counting(text: &str) -> Vec<&str> {
    if text.is_empty() {
        return Vec::new();
    }
    let mut lines: Vec<&str> = text.split('\n').collect();
    if text.ends_with('\n') {
        lines.pop();
    }
    lines
}

/// Formats a byte count like Pi's `formatSize`: `512B`, `50.0KB`, `1.5MB` (`toFixed(1)`).
pub fn format_size(bytes: usize) -> String {
    const KIB: f64 = 1024.0;
    // Exact: a byte count below 2^53 is an exact f64, and dividing by a power of two is exact.
    let b = bytes as f64;
    if b < KIB {
        format!("{bytes}B")
    } else if b < KIB * KIB {
        format!("{}KB", to_fixed(b / KIB, 1))
    } else {
        format!("{}MB", to_fixed(b / KIB / KIB, 1))
    }
}

/// Keeps the beginning of `text`: at most `max_lines` whole lines and `max_bytes` bytes.
pub fn truncate_head(text: &str, max_lines: usize, max_bytes: usize) -> Truncation {
    let lines = split_lines_for_counting(text);
    let total_lines = lines.len();
    if total_lines <= max_lines && text.len() <= max_bytes {
        return Truncation::untouched(text, total_lines, max_lines, max_bytes);
    }

    let first_line_bytes = lines.first().map_or(0, |line| line.len());
    if first_line_bytes > max_bytes {
        return Truncation {
            content: String::new(),
            truncated: true,
            truncated_by: Some(TruncatedBy::Bytes),
            total_lines,
            total_bytes: text.len(),
            output_lines: 0,
            output_bytes: 0,
            last_line_partial: false,
            first_line_exceeds_limit: true,
            max_lines,
            max_bytes,
        };
    }

    let mut kept = 0;
    let mut bytes = 0;
    let mut truncated_by = TruncatedBy::Lines;
    for (index, line) in lines.iter().enumerate().take(max_lines) {
        let line_bytes = line.len() + usize::from(index > 0);
        if bytes + line_bytes > max_bytes {
            truncated_by = TruncatedBy::Bytes;
            break;
        }
        kept += 1;
        bytes += line_bytes;
    }
    if kept >= max_lines && bytes <= max_bytes {
        truncated_by = TruncatedBy::Lines;
    }

    let content = lines[..kept].join("\n");
    Truncation {
        output_bytes: content.len(),
        content,
        truncated: true,
        truncated_by: Some(truncated_by),
        total_lines,
        total_bytes: text.len(),
        output_lines: kept,
        last_line_partial: false,
        first_line_exceeds_limit: false,
        max_lines,
        max_bytes,
    }
}

/// Keeps the end of `text`: at most `max_lines` lines and `max_bytes` bytes.
///
/// Whole lines are kept, except when the last line alone exceeds `max_bytes`: then its last
/// `max_bytes` bytes are kept, cut forward to a character boundary, and `last_line_partial` is set.
pub fn truncate_tail(text: &str, max_lines: usize, max_bytes: usize) -> Truncation {
    let lines = split_lines_for_counting(text);
    let total_lines = lines.len();
    if total_lines <= max_lines && text.len() <= max_bytes {
        return Truncation::untouched(text, total_lines, max_lines, max_bytes);
    }

    // Kept lines, last line first.
    let mut kept: Vec<&str> = Vec::new();
    let mut bytes = 0;
    let mut truncated_by = TruncatedBy::Lines;
    let mut last_line_partial = false;
    for line in lines.iter().rev() {
        if kept.len() >= max_lines {
            break;
        }
        let line_bytes = line.len() + usize::from(!kept.is_empty());
        if bytes + line_bytes > max_bytes {
            truncated_by = TruncatedBy::Bytes;
            if kept.is_empty() {
                let tail = tail_on_char_boundary(line, max_bytes);
                bytes = tail.len();
                kept.push(tail);
                last_line_partial = true;
            }
            break;
        }
        kept.push(line);
        bytes += line_bytes;
    }
    if kept.len() >= max_lines && bytes <= max_bytes {
        truncated_by = TruncatedBy::Lines;
    }

    kept.reverse();
    let content = kept.join("\n");
    Truncation {
        output_bytes: content.len(),
        content,
        truncated: true,
        truncated_by: Some(truncated_by),
        total_lines,
        total_bytes: text.len(),
        output_lines: kept.len(),
        last_line_partial,
        first_line_exceeds_limit: false,
        max_lines,
        max_bytes,
    }
}

/// The last `max_bytes` bytes of `line`, moved forward to the next character boundary.
fn tail_on_char_boundary(line: &str, max_bytes: usize) -> &str {
    if line.len() <= max_bytes {
        return line;
    }
    let mut start = line.len() - max_bytes;
    while start < line.len() && !line.is_char_boundary(start) {
        start += 1;
    }
    &line[start..]
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn format_size_prints_bytes_kilobytes_and_megabytes() {
        assert_eq!(format_size(0), "0B");
        assert_eq!(format_size(1023), "1023B");
        assert_eq!(format_size(1024), "1.0KB");
        assert_eq!(format_size(DEFAULT_MAX_BYTES), "50.0KB");
        assert_eq!(format_size(1280), "1.3KB");
        assert_eq!(format_size(60_000), "58.6KB");
        assert_eq!(format_size(1024 * 1024), "1.0MB");
        assert_eq!(format_size(1024 * 1024 * 3 / 2), "1.5MB");
    }

    #[test]
    fn head_leaves_short_text_untouched() {
        let t = truncate_head("a\nb\n", 10, 100);
        assert_eq!(t.content, "a\nb\n");
        assert!(!t.truncated);
        assert_eq!(t.truncated_by, None);
        // Pi 1.6's splitLinesForCounting: the trailing newline ends line 2, it starts no line 3.
        assert_eq!((t.total_lines, t.output_lines), (2, 2));
        assert_eq!((t.total_bytes, t.output_bytes), (4, 4));
    }

    #[test]
    fn head_cuts_by_lines() {
        let t = truncate_head("1\n2\n3\n4", 2, 100);
        assert_eq!(t.content, "1\n2");
        assert_eq!(t.truncated_by, Some(TruncatedBy::Lines));
        assert_eq!((t.output_lines, t.output_bytes, t.total_lines), (2, 3, 4));
    }

    #[test]
    fn head_cuts_by_bytes_counting_the_newlines() {
        // "aaa" (3) + "\nbbb" (4) = 7 fits in 8; "\nccc" would make 11.
        let t = truncate_head("aaa\nbbb\nccc", 10, 8);
        assert_eq!(t.content, "aaa\nbbb");
        assert_eq!(t.truncated_by, Some(TruncatedBy::Bytes));
        assert_eq!((t.output_lines, t.output_bytes), (2, 7));
        assert!(!t.first_line_exceeds_limit);
    }

    #[test]
    fn head_keeps_nothing_when_the_first_line_is_too_long() {
        let t = truncate_head("abcdef\nx", 10, 5);
        assert_eq!(t.content, "");
        assert!(t.truncated);
        assert!(t.first_line_exceeds_limit);
        assert_eq!(t.truncated_by, Some(TruncatedBy::Bytes));
        assert_eq!(t.output_lines, 0);
    }

    #[test]
    fn tail_cuts_by_lines() {
        let t = truncate_tail("1\n2\n3\n4", 2, 100);
        assert_eq!(t.content, "3\n4");
        assert_eq!(t.truncated_by, Some(TruncatedBy::Lines));
        assert_eq!(t.output_lines, 2);
        assert!(!t.last_line_partial);
    }

    #[test]
    fn tail_cuts_by_bytes_keeping_whole_lines() {
        let t = truncate_tail("aaa\nbbb\nccc", 10, 8);
        assert_eq!(t.content, "bbb\nccc");
        assert_eq!(t.truncated_by, Some(TruncatedBy::Bytes));
        assert_eq!((t.output_lines, t.output_bytes), (2, 7));
    }

    #[test]
    fn tail_keeps_the_end_of_a_too_long_last_line_on_a_char_boundary() {
        let t = truncate_tail("first\naéé€", 10, 6);
        // "aéé€" = 1 + 2 + 2 + 3 = 8 bytes; the last 6 start in the middle of the first "é".
        assert_eq!(t.content, "é€");
        assert!(t.last_line_partial);
        assert_eq!(t.truncated_by, Some(TruncatedBy::Bytes));
        assert_eq!((t.output_lines, t.output_bytes), (1, 5));
    }

    #[test]
    fn truncation_serialises_with_pi_field_names() {
        let t = truncate_head("a", 2000, 51200);
        let json = serde_json::to_value(&t).unwrap();
        assert_eq!(
            json,
            serde_json::json!({
                "content": "a", "truncated": false, "truncatedBy": null,
                "totalLines": 1, "totalBytes": 1, "outputLines": 1, "outputBytes": 1,
                "lastLinePartial": false, "firstLineExceedsLimit": false,
                "maxLines": 2000, "maxBytes": 51200
            })
        );
        let cut = serde_json::to_value(truncate_head("a\nb", 1, 100)).unwrap();
        assert_eq!(cut["truncatedBy"], "lines");
    }
}
