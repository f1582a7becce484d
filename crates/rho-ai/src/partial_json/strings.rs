//! String literals of streamed JSON, strictly or with Pi's repair, and what an escape cut off by
//! the end of the text reads as.

use super::{UEscape, u_escape};

/// How strings are read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Mode {
    /// As JSON reads them: Pi's partial parse of the text as it is.
    #[default]
    Strict,
    /// As Pi's repaired text reads: raw control characters and backslashes that start no valid
    /// escape are taken literally. Entered, for good, at the first string the text cannot be
    /// read without the repair (Pi then parses the repaired text, which is the text itself up to
    /// that point).
    Lenient,
}

/// How a string scan stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum StringEnd {
    /// At the closing quote, which is consumed.
    Closed,
    /// At the end of the text, or at the backslash of an escape the end cut off.
    Pending,
}

/// What the escape at a backslash reads as.
enum Escape {
    /// A character, and the escape's length in bytes.
    Char(char, usize),
    /// The text ends before the escape (or its surrogate pair) is complete.
    Pending,
    /// Not a valid escape: malformed JSON, a literal backslash once repaired.
    Invalid,
}

/// Reads the escape at `b[at]` (a backslash) as JSON does; a high surrogate followed by anything
/// but a low one is U+FFFD, as is a lone low surrogate.
fn escape_at(b: &[u8], at: usize) -> Escape {
    let simple = match b.get(at + 1) {
        None => return Escape::Pending,
        Some(b'"') => '"',
        Some(b'\\') => '\\',
        Some(b'/') => '/',
        Some(b'b') => '\u{8}',
        Some(b'f') => '\u{c}',
        Some(b'n') => '\n',
        Some(b'r') => '\r',
        Some(b't') => '\t',
        Some(b'u') => return unicode_escape_at(b, at),
        Some(_) => return Escape::Invalid,
    };
    Escape::Char(simple, 2)
}

fn unicode_escape_at(b: &[u8], at: usize) -> Escape {
    let first = match u_escape(b, at) {
        UEscape::Code(unit) => unit,
        UEscape::Eof => return Escape::Pending,
        UEscape::Invalid => return Escape::Invalid,
    };
    if !(0xD800..0xDC00).contains(&first) {
        let scalar = char::from_u32(u32::from(first)).unwrap_or('\u{FFFD}');
        return Escape::Char(scalar, 6);
    }
    match u_escape(b, at + 6) {
        UEscape::Code(low @ 0xDC00..0xE000) => {
            let scalar = 0x10000 + ((u32::from(first) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
            Escape::Char(char::from_u32(scalar).unwrap_or('\u{FFFD}'), 12)
        }
        // The low half may still be streaming in.
        UEscape::Eof => Escape::Pending,
        _ => Escape::Char('\u{FFFD}', 6),
    }
}

/// Decodes string content from `*pos` (after the opening quote, or where the last scan
/// stopped) into `out`, up to the closing quote or the end of `text`. Strict mode turns lenient
/// at the first raw control character or invalid escape. Returns how it stopped; `*scanned`
/// grows by every byte examined.
pub(super) fn scan_string(
    text: &str,
    pos: &mut usize,
    mode: &mut Mode,
    out: &mut String,
    scanned: &mut usize,
) -> StringEnd {
    let b = text.as_bytes();
    let start = *pos;
    // Start of the pending verbatim run: every byte acted on is ASCII, so the run's ends are
    // char boundaries.
    let mut run = *pos;
    let end = loop {
        let Some(&c) = b.get(*pos) else {
            out.push_str(text.get(run..*pos).unwrap_or_default());
            break StringEnd::Pending;
        };
        match c {
            b'"' => {
                out.push_str(text.get(run..*pos).unwrap_or_default());
                *pos += 1;
                break StringEnd::Closed;
            }
            b'\\' => {
                out.push_str(text.get(run..*pos).unwrap_or_default());
                match escape_at(b, *pos) {
                    Escape::Char(decoded, len) => {
                        out.push(decoded);
                        *pos += len;
                    }
                    Escape::Pending => {
                        *scanned += b.len() - *pos;
                        break StringEnd::Pending;
                    }
                    Escape::Invalid => {
                        *mode = Mode::Lenient;
                        out.push('\\');
                        *pos += 1;
                    }
                }
                run = *pos;
            }
            0x00..=0x1f => {
                // Taken as the character it is (what Pi's repair escapes it to).
                *mode = Mode::Lenient;
                *pos += 1;
            }
            _ => *pos += 1,
        }
    };
    *scanned += *pos - start;
    end
}

/// What the escape at `at`, cut off by the end of `text`, reads as for now: nothing in strict
/// mode (Pi drops it until it is complete); in lenient mode what Pi's repair makes of it, a
/// literal backslash and the characters after it (and U+FFFD for a high surrogate whose low half
/// was cut off after its backslash).
pub(super) fn pending_text(text: &str, at: usize, mode: Mode) -> String {
    let tail = text.get(at..).unwrap_or_default();
    if mode == Mode::Strict {
        return String::new();
    }
    match u_escape(text.as_bytes(), at) {
        // A complete high surrogate: its low half is cut off.
        UEscape::Code(_) => match tail.get(6..) {
            Some("") | None => String::new(),
            Some(rest) => format!("\u{FFFD}{rest}"),
        },
        UEscape::Eof | UEscape::Invalid => tail.to_owned(),
    }
}

/// Fixes the string-literal mistakes models commonly make: raw control
/// characters and backslashes that do not start a valid escape. Text outside
/// string literals is copied unchanged.
pub(super) fn repair(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = String::with_capacity(src.len() + 16);
    let mut in_string = false;
    // Start of the pending verbatim run; every byte we act on is ASCII, so
    // all slice boundaries below are char boundaries.
    let mut run = 0;
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if !in_string {
            in_string = c == b'"';
            i += 1;
            continue;
        }
        match c {
            b'"' => {
                in_string = false;
                i += 1;
            }
            b'\\' => {
                let valid_len = match b.get(i + 1) {
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => 2,
                    Some(b'u') if matches!(u_escape(b, i), UEscape::Code(_)) => 6,
                    _ => 0,
                };
                if valid_len > 0 {
                    i += valid_len;
                } else {
                    out.push_str(&src[run..i]);
                    out.push_str("\\\\");
                    i += 1;
                    run = i;
                }
            }
            0x00..=0x1f => {
                out.push_str(&src[run..i]);
                match c {
                    0x08 => out.push_str("\\b"),
                    0x0c => out.push_str("\\f"),
                    b'\n' => out.push_str("\\n"),
                    b'\r' => out.push_str("\\r"),
                    b'\t' => out.push_str("\\t"),
                    _ => out.push_str(&format!("\\u{c:04x}")),
                }
                i += 1;
                run = i;
            }
            _ => i += 1,
        }
    }
    out.push_str(&src[run..]);
    out
}
