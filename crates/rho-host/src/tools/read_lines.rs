//! The lines `read` shows, selected from a file read in chunks (Pi 1.6's
//! `selectLinesFromStream`): only lines `truncate_head` can show are stored, the rest are
//! counted, so memory does not grow with the file, nor with one huge line.

use std::io::Read;

use tokio_util::sync::CancellationToken;

use super::truncate::{DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, Truncation, truncate_head};

/// Bytes read at a time.
const CHUNK: usize = 64 * 1024;

/// What the selection found.
#[derive(Debug, PartialEq)]
pub(crate) struct Selection {
    /// Lines in the file (`split("\n")` counts them: one more than its line feeds).
    pub total_file_lines: usize,
    /// The selected lines, truncated; totals count the selected text, not what was stored.
    pub truncation: Truncation,
    /// UTF-8 bytes of the first selected line (for the "exceeds the limit" notice).
    pub first_line_bytes: usize,
}

/// Why a selection stopped.
#[derive(Debug)]
pub(crate) enum SelectError {
    /// The cancellation token fired.
    Aborted,
    /// Reading failed.
    Io(std::io::Error),
}

/// Selects lines `start..start + limit` (all from `start` without a limit) of what `reader`
/// yields, checking `cancel` between chunks.
pub(crate) fn select_lines(
    mut reader: impl Read,
    start: usize,
    limit: Option<usize>,
    cancel: &CancellationToken,
) -> Result<Selection, SelectError> {
    let mut state = State::new(start, limit.map_or(usize::MAX, |l| start.saturating_add(l)));
    let mut buf = vec![0u8; CHUNK];
    loop {
        if cancel.is_cancelled() {
            return Err(SelectError::Aborted);
        }
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(SelectError::Io(error)),
        };
        state.select(&buf[..n]);
    }
    Ok(state.finish())
}

struct State {
    start: usize,
    end: usize,
    stored: Vec<String>,
    stored_bytes: usize,
    stored_past_caps: bool,
    /// The line being read (0-based).
    line: usize,
    selected_lines: usize,
    selected_bytes: usize,
    first_line_bytes: usize,
    last_line_empty: bool,
    /// The selected line being read, while it is stored.
    pieces: Option<Vec<u8>>,
    line_bytes: usize,
    line_has_text: bool,
}

impl State {
    fn new(start: usize, end: usize) -> Self {
        State {
            start,
            end,
            stored: Vec::new(),
            stored_bytes: 0,
            stored_past_caps: false,
            line: 0,
            selected_lines: 0,
            selected_bytes: 0,
            first_line_bytes: 0,
            last_line_empty: true,
            pieces: Some(Vec::new()),
            line_bytes: 0,
            line_has_text: false,
        }
    }

    fn selected(&self) -> bool {
        self.line >= self.start && self.line < self.end
    }

    /// One chunk: its lines go to the selection, its line feeds advance the line count.
    fn select(&mut self, bytes: &[u8]) {
        let mut position = 0;
        loop {
            let newline = memchr(&bytes[position..]).map(|i| position + i);
            let end = newline.unwrap_or(bytes.len());
            let selected = self.selected();
            if selected {
                self.selected_bytes += end - position;
                if end > position {
                    self.append(&bytes[position..end]);
                }
            }
            let Some(newline) = newline else {
                break;
            };
            if selected {
                self.finish_line();
                // The line feed belongs to the selected text when the next line is selected too.
                if self.line + 1 != self.end {
                    self.selected_bytes += 1;
                }
            }
            self.line += 1;
            position = newline + 1;
        }
    }

    fn append(&mut self, piece: &[u8]) {
        self.line_has_text = true;
        if let Some(pieces) = &mut self.pieces
            && self.line_bytes <= DEFAULT_MAX_BYTES
        {
            // A line over the byte cap is never shown, so only its size is kept beyond it.
            pieces.extend_from_slice(piece);
        }
        self.line_bytes += piece.len();
    }

    fn finish_line(&mut self) {
        if let Some(pieces) = self.pieces.take() {
            if self.selected_lines == 0 {
                self.first_line_bytes = self.line_bytes;
            }
            // Storing goes one line past the caps: truncate_head ignores a trailing empty line,
            // so the line after the cap decides truncation as it would for the whole text.
            if self.stored.len() > DEFAULT_MAX_LINES || self.stored_bytes > DEFAULT_MAX_BYTES {
                self.stored_past_caps = true;
            }
            let text = String::from_utf8_lossy(&pieces).into_owned();
            self.stored_bytes += text.len() + usize::from(!self.stored.is_empty());
            self.stored.push(text);
        }
        self.selected_lines += 1;
        self.last_line_empty = !self.line_has_text;
        self.pieces = (!self.stored_past_caps).then(Vec::new);
        self.line_bytes = 0;
        self.line_has_text = false;
    }

    fn finish(mut self) -> Selection {
        if self.selected() {
            self.finish_line();
        }
        let mut truncation = truncate_head(
            &self.stored.join("\n"),
            DEFAULT_MAX_LINES,
            DEFAULT_MAX_BYTES,
        );
        // truncate_head's counts for the joined selected lines, which drop a trailing empty one.
        truncation.total_lines = if self.selected_bytes == 0 {
            0
        } else {
            self.selected_lines - usize::from(self.last_line_empty)
        };
        truncation.total_bytes = self.selected_bytes;
        Selection {
            total_file_lines: self.line + 1,
            truncation,
            first_line_bytes: self.first_line_bytes,
        }
    }
}

fn memchr(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n')
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// The whole-text selection Pi's `selectLinesFromBuffer` makes.
    fn from_buffer(text: &str, start: usize, limit: Option<usize>) -> (usize, Truncation) {
        let lines: Vec<&str> = text.split('\n').collect();
        let end = limit.map_or(lines.len(), |l| (start + l).min(lines.len()));
        let selected = lines[start.min(end)..end].join("\n");
        (
            lines.len(),
            truncate_head(&selected, DEFAULT_MAX_LINES, DEFAULT_MAX_BYTES),
        )
    }

    #[test]
    fn chunked_selection_equals_the_whole_text_selection_for_every_split() {
        let texts = [
            "",
            "a",
            "a\n",
            "a\nb",
            "a\nb\n",
            "\n\n",
            "one\ntwo\n\nfour\nfive\n",
        ];
        let cancel = CancellationToken::new();
        for text in texts {
            for start in 0..4 {
                for limit in [None, Some(0), Some(1), Some(2), Some(10)] {
                    let (total, truncation) = from_buffer(text, start, limit);
                    if start >= total {
                        continue;
                    }
                    let got = select_lines(text.as_bytes(), start, limit, &cancel).unwrap();
                    assert_eq!(got.total_file_lines, total, "{text:?} {start} {limit:?}");
                    assert_eq!(got.truncation, truncation, "{text:?} {start} {limit:?}");
                }
            }
        }
    }

    #[test]
    fn a_huge_line_is_measured_not_stored() {
        let line = vec![b'x'; 3 * CHUNK];
        let text = [line.as_slice(), b"\nnext\n"].concat();
        let cancel = CancellationToken::new();
        let got = select_lines(text.as_slice(), 0, None, &cancel).unwrap();
        assert_eq!(got.first_line_bytes, 3 * CHUNK);
        assert!(got.truncation.first_line_exceeds_limit);
        assert_eq!(got.total_file_lines, 3);
        assert_eq!(
            (got.truncation.total_lines, got.truncation.total_bytes),
            (2, text.len())
        );
    }
}
