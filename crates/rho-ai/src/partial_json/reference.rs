//! The reference parser: Pi's `parseStreamingJson` cascade, re-run from the start of the buffer.
//!
//! This was rho's parser until streamed arguments moved to the incremental
//! [`StreamingJson`](super::StreamingJson); it stays as the oracle the incremental parser is
//! compared with (the property tests, and the `partial_json` fuzz target through the crate's
//! `reference` feature). It tries strict parsing, then a string-literal repair, then a partial
//! (prefix) parse, then `{}`, so each call scans its whole buffer several times.

use serde_json::{Map, Value};

use super::strings::repair;
use super::{MAX_DEPTH, UEscape, u_escape};

/// Best-effort parse of a possibly incomplete tool-call argument JSON buffer, as Pi's
/// `parseStreamingJson`.
///
/// Order: strict parse; strict parse of the repaired text (raw control
/// characters escaped, invalid backslashes doubled inside strings); partial
/// parse of the original; partial parse of the repaired text; otherwise `{}`.
/// Any non-object result (array, number, null, ...) is reported as `{}`.
pub fn parse_streaming_json(buffer: &str) -> Map<String, Value> {
    if buffer.trim().is_empty() {
        return Map::new();
    }
    if let Ok(value) = serde_json::from_str::<Value>(buffer) {
        return into_object(value);
    }
    // `None` when repair changed nothing, so no attempt is repeated.
    let repaired = Some(repair(buffer)).filter(|r| r != buffer);
    if let Some(value) = repaired
        .as_deref()
        .and_then(|r| serde_json::from_str::<Value>(r).ok())
    {
        return into_object(value);
    }
    // The original text goes first: for a truncated buffer ending in `\` the
    // repair would turn an incomplete escape into a literal backslash.
    if let Some(value) =
        parse_partial(buffer).or_else(|| repaired.as_deref().and_then(parse_partial))
    {
        return into_object(value);
    }
    Map::new()
}

fn into_object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// Partial-parses `src`; `None` when it is malformed or holds no usable value.
/// Text after a complete top-level value is ignored, as `partial-json` does.
fn parse_partial(src: &str) -> Option<Value> {
    let mut parser = Parser {
        src,
        b: src.as_bytes(),
        pos: 0,
    };
    parser.parse_value(0).ok().flatten()
}

/// The input is not a prefix of valid JSON (or nests too deeply).
struct Malformed;

type PResult<T> = Result<T, Malformed>;

/// Recursive-descent parser that accepts any prefix of valid JSON. Reaching
/// the end of input closes every open container; `Ok(None)` from
/// `parse_value` means the input ended before a usable value began, so the
/// enclosing container drops that slot (and its key).
struct Parser<'a> {
    src: &'a str,
    b: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn parse_value(&mut self, depth: usize) -> PResult<Option<Value>> {
        self.skip_ws();
        match self.peek() {
            None => Ok(None),
            Some(b'"') => Ok(Some(Value::String(self.parse_string()?.0))),
            Some(b'{') => self.parse_object(depth + 1).map(|m| Some(Value::Object(m))),
            Some(b'[') => self.parse_array(depth + 1).map(|a| Some(Value::Array(a))),
            Some(b'-' | b'0'..=b'9') => self.parse_number(),
            Some(_) => self.parse_literal().map(Some),
        }
    }

    fn parse_object(&mut self, depth: usize) -> PResult<Map<String, Value>> {
        if depth > MAX_DEPTH {
            return Err(Malformed);
        }
        self.pos += 1; // '{'
        let mut map = Map::new();
        self.skip_ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Ok(map);
        }
        loop {
            self.skip_ws();
            match self.peek() {
                None => return Ok(map),
                Some(b'"') => {}
                Some(_) => return Err(Malformed),
            }
            let (key, closed) = self.parse_string()?;
            if !closed {
                return Ok(map); // a half-streamed key is never reported
            }
            self.skip_ws();
            match self.peek() {
                None => return Ok(map),
                Some(b':') => self.pos += 1,
                Some(_) => return Err(Malformed),
            }
            match self.parse_value(depth)? {
                None => return Ok(map),
                Some(value) => map.insert(key, value),
            };
            if !self.separator(b'}')? {
                return Ok(map);
            }
        }
    }

    fn parse_array(&mut self, depth: usize) -> PResult<Vec<Value>> {
        if depth > MAX_DEPTH {
            return Err(Malformed);
        }
        self.pos += 1; // '['
        let mut items = Vec::new();
        self.skip_ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Ok(items);
        }
        loop {
            match self.parse_value(depth)? {
                None => return Ok(items),
                Some(value) => items.push(value),
            }
            if !self.separator(b']')? {
                return Ok(items);
            }
        }
    }

    /// After a container element: `true` if a `,` promises another one,
    /// `false` if the container closed or the input ended.
    fn separator(&mut self, close: u8) -> PResult<bool> {
        self.skip_ws();
        match self.peek() {
            None => Ok(false),
            Some(b',') => {
                self.pos += 1;
                Ok(true)
            }
            Some(c) if c == close => {
                self.pos += 1;
                Ok(false)
            }
            Some(_) => Err(Malformed),
        }
    }

    /// Parses a string starting at its opening quote. Returns the decoded
    /// text and whether the closing quote was seen; an escape cut off by the
    /// end of input is dropped because the next delta will complete it.
    fn parse_string(&mut self) -> PResult<(String, bool)> {
        self.pos += 1; // opening quote
        let mut out = String::new();
        let mut run = self.pos;
        loop {
            let Some(c) = self.peek() else {
                out.push_str(&self.src[run..]);
                return Ok((out, false));
            };
            match c {
                b'"' => {
                    out.push_str(&self.src[run..self.pos]);
                    self.pos += 1;
                    return Ok((out, true));
                }
                b'\\' => {
                    out.push_str(&self.src[run..self.pos]);
                    match self.parse_escape()? {
                        Some(ch) => out.push(ch),
                        None => {
                            self.pos = self.b.len();
                            return Ok((out, false));
                        }
                    }
                    run = self.pos;
                }
                0x00..=0x1f => return Err(Malformed), // raw control char: left to repair
                _ => self.pos += 1,
            }
        }
    }

    /// Decodes the escape at `self.pos` (a backslash); `None` if the input
    /// ends before the escape (or a surrogate pair) is complete.
    fn parse_escape(&mut self) -> PResult<Option<char>> {
        let simple = match self.b.get(self.pos + 1) {
            None => return Ok(None),
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => return self.parse_unicode_escape(),
            Some(_) => return Err(Malformed),
        };
        self.pos += 2;
        Ok(Some(simple))
    }

    fn parse_unicode_escape(&mut self) -> PResult<Option<char>> {
        let first = match u_escape(self.b, self.pos) {
            UEscape::Code(unit) => unit,
            UEscape::Eof => return Ok(None),
            UEscape::Invalid => return Err(Malformed),
        };
        self.pos += 6;
        if !(0xD800..0xDC00).contains(&first) {
            // BMP scalar, or a lone low surrogate that Rust strings cannot hold.
            return Ok(Some(char::from_u32(u32::from(first)).unwrap_or('\u{FFFD}')));
        }
        match u_escape(self.b, self.pos) {
            UEscape::Code(low @ 0xDC00..0xE000) => {
                self.pos += 6;
                let scalar =
                    0x10000 + ((u32::from(first) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
                Ok(Some(char::from_u32(scalar).unwrap_or('\u{FFFD}')))
            }
            UEscape::Eof => Ok(None), // the low half may still be streaming in
            _ => Ok(Some('\u{FFFD}')),
        }
    }

    /// Numbers cut off by the end of input shrink to their longest valid
    /// prefix (`12.` -> 12, `1e-` -> 1); a lone `-` yields no value.
    fn parse_number(&mut self) -> PResult<Option<Value>> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            None => return Ok(None),
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => self.skip_digits(),
            Some(_) => return Err(Malformed),
        }
        // A truncated fraction leaves us at the end, so no exponent follows.
        let mut valid_end = self.pos;
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.required_digits()? {
                valid_end = self.pos;
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.required_digits()? {
                valid_end = self.pos;
            }
        }
        let number =
            serde_json::from_str::<Value>(&self.src[start..valid_end]).map_err(|_| Malformed)?;
        Ok(Some(number))
    }

    /// Consumes at least one digit: `Ok(false)` if input ended first.
    fn required_digits(&mut self) -> PResult<bool> {
        match self.peek() {
            None => Ok(false),
            Some(b'0'..=b'9') => {
                self.skip_digits();
                Ok(true)
            }
            Some(_) => Err(Malformed),
        }
    }

    fn skip_digits(&mut self) {
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
    }

    /// `null`/`true`/`false`, or a non-empty prefix of one running to the end
    /// of input. (`partial-json`'s `Infinity`/`NaN` have no JSON value.)
    fn parse_literal(&mut self) -> PResult<Value> {
        let rest = &self.src[self.pos..];
        for (word, value) in [
            ("null", Value::Null),
            ("true", Value::Bool(true)),
            ("false", Value::Bool(false)),
        ] {
            if rest.starts_with(word) {
                self.pos += word.len();
                return Ok(value);
            }
            if word.starts_with(rest) {
                self.pos = self.b.len();
                return Ok(value);
            }
        }
        Err(Malformed)
    }
}
