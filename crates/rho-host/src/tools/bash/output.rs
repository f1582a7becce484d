//! The output accumulator of one `bash` call (Pi's `OutputAccumulator`): streaming lossy UTF-8
//! decoding, a bounded rolling tail for display, running totals, and the full raw output saved
//! to a temp file once it grows past the limits.

use std::path::PathBuf;

use tokio::fs::File;
use tokio::io::{AsyncReadExt, AsyncSeekExt, AsyncWriteExt};

use crate::tools::truncate::{
    DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, TruncatedBy, Truncation, truncate_tail,
};

/// The UTF-8 byte order mark, dropped at the start of the output as `TextDecoder` does.
const BOM: &str = "\u{feff}";

/// What the output looks like at one moment.
pub(super) struct Snapshot {
    /// The tail-truncated text.
    pub content: String,
    /// The truncation, with totals over the whole output (not only the kept tail).
    pub truncation: Truncation,
    /// The temp file holding the whole raw output, once there is one.
    pub full_output_path: Option<PathBuf>,
}

/// The raw output saved so far.
enum Saved {
    /// Still small: the raw chunks, written to a file only if the output outgrows the limits.
    Memory(Vec<Vec<u8>>),
    /// Past the limits: everything goes to this file.
    File(PathBuf, File),
}

/// Accumulates a command's merged output with bounded memory.
pub(super) struct OutputAccumulator {
    max_lines: usize,
    max_bytes: usize,
    /// Bytes of the tail kept after a trim; the tail is trimmed when it reaches twice this.
    max_rolling_bytes: usize,
    temp_prefix: &'static str,
    /// The bytes of an incomplete UTF-8 sequence at the end of the last chunk.
    pending: Vec<u8>,
    /// Whether nothing has been decoded yet (a leading BOM is still to be dropped).
    at_start: bool,
    tail: String,
    tail_starts_at_line_boundary: bool,
    total_raw_bytes: usize,
    total_decoded_bytes: usize,
    /// Lines ended by a `\n`.
    completed_lines: usize,
    /// Whether text follows the last `\n` (an open last line counts as a line).
    has_open_line: bool,
    total_lines: usize,
    current_line_bytes: usize,
    saved: Saved,
    /// Bytes written to the file so far (at most [`MAX_SAVED_BYTES`]).
    saved_bytes: u64,
    /// Whether the output outgrew the file's cap (the notice is written once).
    save_cut: bool,
}

/// The most bytes of one output kept in its file.
const MAX_SAVED_BYTES: u64 = rho_gate::MAX_OUTPUT_FILE_BYTES;

/// Ends a file whose output went on past [`MAX_SAVED_BYTES`].
const SAVE_CUT_NOTICE: &str = "\n\n[rho: the output went on past 64 MiB; the rest was not saved]\n";

impl OutputAccumulator {
    /// An empty accumulator with the default limits; temp files are named `<prefix>-<hex>.log`.
    pub fn new(temp_prefix: &'static str) -> Self {
        OutputAccumulator {
            max_lines: DEFAULT_MAX_LINES,
            max_bytes: DEFAULT_MAX_BYTES,
            max_rolling_bytes: (DEFAULT_MAX_BYTES * 2).max(1),
            temp_prefix,
            pending: Vec::new(),
            at_start: true,
            tail: String::new(),
            tail_starts_at_line_boundary: true,
            total_raw_bytes: 0,
            total_decoded_bytes: 0,
            completed_lines: 0,
            has_open_line: false,
            total_lines: 0,
            current_line_bytes: 0,
            saved: Saved::Memory(Vec::new()),
            saved_bytes: 0,
            save_cut: false,
        }
    }

    /// Adds one chunk of raw output.
    pub async fn append(&mut self, data: &[u8]) -> std::io::Result<()> {
        self.total_raw_bytes += data.len();
        let text = self.decode(data, false);
        self.append_text(&text);
        if matches!(self.saved, Saved::File(..)) || self.should_use_temp_file() {
            self.ensure_temp_file().await?;
        }
        match &mut self.saved {
            Saved::File(_, file) => {
                let room = MAX_SAVED_BYTES.saturating_sub(self.saved_bytes);
                let kept = &data[..data.len().min(usize::try_from(room).unwrap_or(usize::MAX))];
                self.saved_bytes += kept.len() as u64;
                file.write_all(kept).await?;
                if kept.len() < data.len() && !self.save_cut {
                    self.save_cut = true;
                    file.write_all(SAVE_CUT_NOTICE.as_bytes()).await?;
                }
                Ok(())
            }
            Saved::Memory(chunks) => {
                if !data.is_empty() {
                    chunks.push(data.to_vec());
                }
                Ok(())
            }
        }
    }

    /// Ends the output: an incomplete trailing UTF-8 sequence becomes U+FFFD, and the temp file
    /// is created if the output is past the limits.
    pub async fn finish(&mut self) -> std::io::Result<()> {
        let text = self.decode(&[], true);
        self.append_text(&text);
        if self.should_use_temp_file() {
            self.ensure_temp_file().await?;
        }
        Ok(())
    }

    /// The current tail-truncated view; when `persist_if_truncated`, makes sure a truncated
    /// output has its temp file.
    pub async fn snapshot(&mut self, persist_if_truncated: bool) -> std::io::Result<Snapshot> {
        let tail = truncate_tail(self.snapshot_text(), self.max_lines, self.max_bytes);
        let truncated =
            self.total_lines > self.max_lines || self.total_decoded_bytes > self.max_bytes;
        // The kept tail may fit the limits even though the whole output did not.
        let truncated_by = if !truncated {
            None
        } else if tail.truncated_by.is_some() {
            tail.truncated_by
        } else if self.total_decoded_bytes > self.max_bytes {
            Some(TruncatedBy::Bytes)
        } else {
            Some(TruncatedBy::Lines)
        };
        let truncation = Truncation {
            truncated,
            truncated_by,
            total_lines: self.total_lines,
            total_bytes: self.total_decoded_bytes,
            max_lines: self.max_lines,
            max_bytes: self.max_bytes,
            ..tail
        };
        if persist_if_truncated && truncated {
            self.ensure_temp_file().await?;
        }
        Ok(Snapshot {
            content: truncation.content.clone(),
            truncation,
            full_output_path: self.full_output_path(),
        })
    }

    /// Flushes and closes the temp file, if any.
    pub async fn close_temp_file(&mut self) -> std::io::Result<()> {
        if let Saved::File(_, file) = &mut self.saved {
            file.flush().await?;
            file.sync_data().await?;
        }
        Ok(())
    }

    /// UTF-8 bytes of the last (unterminated) line of the decoded output.
    pub fn last_line_bytes(&self) -> usize {
        self.current_line_bytes
    }

    /// The temp file's path, once it exists.
    pub fn full_output_path(&self) -> Option<PathBuf> {
        match &self.saved {
            Saved::File(path, _) => Some(path.clone()),
            Saved::Memory(_) => None,
        }
    }

    /// Decodes `data` after the pending bytes; each invalid sequence becomes one U+FFFD, an
    /// incomplete one at the end waits for the next chunk unless `flush`.
    fn decode(&mut self, data: &[u8], flush: bool) -> String {
        self.pending.extend_from_slice(data);
        let bytes = std::mem::take(&mut self.pending);
        let mut text = String::with_capacity(bytes.len());
        let mut rest = bytes.as_slice();
        loop {
            match std::str::from_utf8(rest) {
                Ok(valid) => {
                    text.push_str(valid);
                    break;
                }
                Err(error) => {
                    let (valid, after) = rest.split_at(error.valid_up_to());
                    // `valid` is exactly the prefix `from_utf8` vouched for.
                    text.push_str(&String::from_utf8_lossy(valid));
                    match error.error_len() {
                        Some(len) => {
                            text.push(char::REPLACEMENT_CHARACTER);
                            rest = &after[len..];
                        }
                        None if flush => {
                            text.push(char::REPLACEMENT_CHARACTER);
                            break;
                        }
                        None => {
                            self.pending = after.to_vec();
                            break;
                        }
                    }
                }
            }
        }
        if self.at_start && !text.is_empty() {
            self.at_start = false;
            if let Some(stripped) = text.strip_prefix(BOM) {
                return stripped.to_owned();
            }
        }
        text
    }

    /// Adds decoded text to the tail and the totals.
    fn append_text(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        self.total_decoded_bytes += text.len();
        self.tail.push_str(text);
        if self.tail.len() > self.max_rolling_bytes * 2 {
            self.trim_tail();
        }
        match text.rfind('\n') {
            None => {
                self.current_line_bytes += text.len();
                self.has_open_line = true;
            }
            Some(last) => {
                self.completed_lines += memchr_count(text.as_bytes());
                self.current_line_bytes = text.len() - last - 1;
                self.has_open_line = self.current_line_bytes > 0;
            }
        }
        self.total_lines = self.completed_lines + usize::from(self.has_open_line);
    }

    /// Keeps the last `max_rolling_bytes` of the tail, starting on a character boundary.
    fn trim_tail(&mut self) {
        if self.tail.len() <= self.max_rolling_bytes {
            return;
        }
        let mut start = self.tail.len() - self.max_rolling_bytes;
        while !self.tail.is_char_boundary(start) {
            start += 1;
        }
        if start > 0 {
            self.tail_starts_at_line_boundary = self.tail.as_bytes()[start - 1] == b'\n';
        }
        self.tail.drain(..start);
    }

    /// The tail without a leading partial line (a trim may have cut one); the whole tail when
    /// that leaves nothing (one long partial line is still worth showing).
    fn snapshot_text(&self) -> &str {
        if self.tail_starts_at_line_boundary {
            return &self.tail;
        }
        match self.tail.find('\n') {
            Some(first) if first + 1 < self.tail.len() => &self.tail[first + 1..],
            _ => &self.tail,
        }
    }

    /// The whole output for programs (bash's `structuredContent.output`): as is up to
    /// `max_bytes` raw bytes, else its first and last halves around
    /// `\n\n[... N bytes omitted ...]\n\n` (Pi's `readFullOutput`). Call after
    /// [`close_temp_file`](Self::close_temp_file). Returns the text and whether it was cut.
    pub async fn read_full_output(&self, max_bytes: usize) -> std::io::Result<(String, bool)> {
        let path = match &self.saved {
            Saved::Memory(chunks) => return Ok((decode_whole(&chunks.concat()), false)),
            Saved::File(path, _) => path.clone(),
        };
        let size = tokio::fs::metadata(&path).await?.len();
        let max = max_bytes as u64;
        if size <= max {
            return Ok((decode_whole(&tokio::fs::read(&path).await?), false));
        }
        let head_bytes = max / 2;
        let tail_bytes = max - head_bytes;
        let mut file = File::open(&path).await?;
        let mut head = vec![0u8; usize::try_from(head_bytes).unwrap_or(0)];
        file.read_exact(&mut head).await?;
        file.seek(std::io::SeekFrom::Start(size - tail_bytes))
            .await?;
        let mut tail = vec![0u8; usize::try_from(tail_bytes).unwrap_or(0)];
        file.read_exact(&mut tail).await?;
        // The head's incomplete last character is dropped (a streaming decoder never flushed);
        // the tail starts at its first character start.
        let head_text = decode_streamed(&head);
        let start = tail
            .iter()
            .position(|&b| b & 0xc0 != 0x80)
            .unwrap_or(tail.len());
        let tail_text = decode_whole(&tail[start..]);
        let omitted = size - head_bytes - tail_bytes;
        Ok((
            format!("{head_text}\n\n[... {omitted} bytes omitted ...]\n\n{tail_text}"),
            true,
        ))
    }

    fn should_use_temp_file(&self) -> bool {
        self.total_raw_bytes > self.max_bytes
            || self.total_decoded_bytes > self.max_bytes
            || self.total_lines > self.max_lines
    }

    /// Creates the temp file (once) and writes the raw chunks kept so far into it.
    async fn ensure_temp_file(&mut self) -> std::io::Result<()> {
        let Saved::Memory(chunks) = &mut self.saved else {
            return Ok(());
        };
        let chunks = std::mem::take(chunks);
        let (path, mut file) = create_temp_file(self.temp_prefix).await?;
        for chunk in &chunks {
            file.write_all(chunk).await?;
            self.saved_bytes += chunk.len() as u64;
        }
        self.saved = Saved::File(path, file);
        Ok(())
    }
}

/// How many `\n` bytes `bytes` holds.
fn memchr_count(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b == b'\n').count()
}

/// `new TextDecoder().decode(bytes)`: lossy UTF-8 with a leading BOM dropped.
fn decode_whole(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    text.strip_prefix(BOM).unwrap_or(&text).to_owned()
}

/// `decode(bytes, {stream: true})` on a fresh decoder: as [`decode_whole`], but an incomplete
/// sequence at the end is held back (and so dropped).
fn decode_streamed(bytes: &[u8]) -> String {
    let n = bytes.len();
    let mut end = n;
    for back in 1..=n.min(3) {
        let lead = bytes[n - back];
        if lead & 0xc0 == 0x80 {
            continue;
        }
        let needed = match lead {
            0xf0.. => 4,
            0xe0.. => 3,
            0xc0.. => 2,
            _ => 1,
        };
        if needed > back {
            end = n - back;
        }
        break;
    }
    decode_whole(&bytes[..end])
}

/// Creates `<prefix>-<16 hex>.log` in rho's private output directory (0600 in a 0700
/// directory of this user's: `rho_gate::create_output_file`).
async fn create_temp_file(prefix: &'static str) -> std::io::Result<(PathBuf, File)> {
    let (path, file) =
        tokio::task::spawn_blocking(move || rho_gate::create_output_file(prefix, ".log"))
            .await
            .map_err(std::io::Error::other)??;
    Ok((path, File::from_std(file)))
}
