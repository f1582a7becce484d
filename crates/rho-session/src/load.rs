//! Reading a session file's bytes: header, entries, torn-tail detection, skipped lines.
//!
//! Pure: it decides what to repair, the caller (which holds the lock) performs it.

use std::ops::Range;

use serde_json::Value;

use crate::decode::decode_entry;
use crate::entry::{CURRENT_SESSION_VERSION, SessionEntry, SessionHeader};
use crate::error::OpenWarning;
use crate::message::Buffer;
use crate::migrate::migrate;

/// The result of reading a file's bytes.
pub(crate) struct Loaded {
    /// `None`: the file holds no line at all (empty, or only a torn first line).
    pub header: Option<SessionHeader>,
    /// Entries in file order; their messages point into the bytes read (or `rewritten`).
    pub entries: Vec<SessionEntry>,
    /// Byte range of each entry's line (newline included) in `rewritten` if set, else in the
    /// bytes read.
    pub spans: Vec<Range<usize>>,
    /// Repairs done and lines skipped.
    pub warnings: Vec<OpenWarning>,
    /// Cut the file to this length before appending (a torn last line starts here).
    pub truncate_to: Option<usize>,
    /// The last line is whole but lacks its newline: add one before appending.
    pub needs_newline: bool,
    /// The whole file as it must be rewritten (an older version was migrated).
    pub rewritten: Option<Buffer>,
}

/// The first line is not a session header.
#[derive(Debug)]
pub(crate) struct NotASessionFile;

/// Lines of `bytes` with their 1-based number and byte range (newline included).
fn lines(bytes: &[u8]) -> impl Iterator<Item = (usize, Range<usize>)> + '_ {
    let mut start = 0;
    let mut number = 0;
    std::iter::from_fn(move || {
        if start >= bytes.len() {
            return None;
        }
        let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |p| start + p + 1);
        number += 1;
        let range = start..end;
        start = end;
        Some((number, range))
    })
}

fn is_blank(line: &[u8]) -> bool {
    line.iter().all(u8::is_ascii_whitespace)
}

/// Reads a header line: an object with `"type":"session"` and a string `id`.
pub(crate) fn parse_header(line: &[u8]) -> Option<SessionHeader> {
    let value: Value = serde_json::from_slice(line).ok()?;
    if value.get("type")?.as_str()? != "session" || !value.get("id")?.is_string() {
        return None;
    }
    serde_json::from_value(value).ok()
}

/// Reads a whole file. Messages are not decoded: entries keep ranges of `buffer`.
pub(crate) fn load(buffer: &Buffer) -> Result<Loaded, NotASessionFile> {
    let bytes: &[u8] = buffer;
    let mut warnings = Vec::new();
    let mut truncate_to = None;
    let mut needs_newline = false;
    let mut body = bytes;
    if !bytes.is_empty() && !bytes.ends_with(b"\n") {
        let start = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        let tail = &bytes[start..];
        if is_blank(tail) || serde_json::from_slice::<serde::de::IgnoredAny>(tail).is_ok() {
            needs_newline = !is_blank(tail);
        } else {
            warnings.push(OpenWarning::TornLastLine {
                line: bytes[..start].iter().filter(|&&b| b == b'\n').count() + 1,
                bytes: tail.len(),
            });
            truncate_to = Some(start);
            body = &bytes[..start];
        }
    }

    let mut all = lines(body).filter(|(_, r)| !is_blank(&body[r.clone()]));
    let Some((_, header_range)) = all.next() else {
        return Ok(Loaded {
            header: None,
            entries: Vec::new(),
            spans: Vec::new(),
            warnings,
            truncate_to,
            needs_newline: false,
            rewritten: None,
        });
    };
    let header = parse_header(&body[header_range.clone()]).ok_or(NotASessionFile)?;
    let version = header.version.unwrap_or(1);
    if version < CURRENT_SESSION_VERSION {
        let mut values = Vec::new();
        for (number, range) in all {
            match serde_json::from_slice::<Value>(&body[range]) {
                Ok(v) => values.push(v),
                Err(e) => warnings.push(OpenWarning::MalformedLine {
                    line: number,
                    reason: format!("invalid JSON: {e}"),
                }),
            }
        }
        let mut header = header;
        migrate(&mut header, &mut values, version);
        warnings.push(OpenWarning::Migrated {
            from_version: version,
        });
        let mut rewritten = serde_json::to_vec(&header).unwrap_or_default();
        rewritten.push(b'\n');
        for v in &values {
            if let Ok(line) = serde_json::to_vec(v) {
                rewritten.extend_from_slice(&line);
                rewritten.push(b'\n');
            }
        }
        let rewritten = Buffer::new(rewritten);
        let (entries, spans) = decode_all(&rewritten, lines(&rewritten).skip(1), &mut warnings);
        return Ok(Loaded {
            header: Some(header),
            entries,
            spans,
            warnings,
            truncate_to: None,
            needs_newline: false,
            rewritten: Some(rewritten),
        });
    }
    // `body` is a prefix of `buffer`, so its line ranges are ranges of `buffer` too.
    let (entries, spans) = decode_all(buffer, all, &mut warnings);
    Ok(Loaded {
        header: Some(header),
        entries,
        spans,
        warnings,
        truncate_to,
        needs_newline,
        rewritten: None,
    })
}

fn decode_all(
    bytes: &Buffer,
    lines: impl Iterator<Item = (usize, Range<usize>)>,
    warnings: &mut Vec<OpenWarning>,
) -> (Vec<SessionEntry>, Vec<Range<usize>>) {
    let lines: Vec<_> = lines
        .filter(|(_, r)| !is_blank(&bytes[r.clone()]))
        .collect();
    let parts = decode_parallel(bytes, &lines);
    let mut parts = parts.into_iter();
    let Some(mut all) = parts.next() else {
        return (Vec::new(), Vec::new());
    };
    for part in parts {
        all.entries.extend(part.entries);
        all.spans.extend(part.spans);
        all.warnings.extend(part.warnings);
    }
    warnings.append(&mut all.warnings);
    (all.entries, all.spans)
}

/// What one worker read from its run of lines.
struct Part {
    entries: Vec<SessionEntry>,
    spans: Vec<Range<usize>>,
    warnings: Vec<OpenWarning>,
}

/// Reads lines on all cores: each worker takes a contiguous run, parts come back in file order.
/// The first part is sized for every line, so the others are appended to it without
/// reallocating (the entries are large enough that a second copy of them all would show).
fn decode_parallel(bytes: &Buffer, lines: &[(usize, Range<usize>)]) -> Vec<Part> {
    let decode = |run: &[(usize, Range<usize>)], capacity: usize| -> Part {
        let mut part = Part {
            entries: Vec::with_capacity(capacity),
            spans: Vec::with_capacity(capacity),
            warnings: Vec::new(),
        };
        for (number, range) in run {
            match decode_entry(bytes, range.clone()) {
                Ok(entry) => {
                    part.entries.push(entry);
                    part.spans.push(range.clone());
                }
                Err(e) => part.warnings.push(OpenWarning::MalformedLine {
                    line: *number,
                    reason: e.to_string(),
                }),
            }
        }
        part
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let workers = cores.min(lines.len() / MIN_LINES_PER_WORKER).max(1);
    if workers == 1 {
        return vec![decode(lines, lines.len())];
    }
    let run = lines.len().div_ceil(workers);
    std::thread::scope(|scope| {
        let handles: Vec<_> = lines
            .chunks(run)
            .skip(1)
            .map(|chunk| scope.spawn(move || decode(chunk, chunk.len())))
            .collect();
        let mut parts = vec![decode(&lines[..run.min(lines.len())], lines.len())];
        for handle in handles {
            match handle.join() {
                Ok(part) => parts.push(part),
                // Decoding does not panic on any input; should it, the panic is not ours to eat.
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
        parts
    })
}

/// Below this many lines per worker a thread costs more than it saves.
const MIN_LINES_PER_WORKER: usize = 2000;
