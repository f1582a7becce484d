//! The incremental parser: a pushdown scanner over the argument text that keeps its place between
//! deltas and builds the arguments object as it reads.
//!
//! Bytes before `pos` are read for good: their values are in the arguments already. What the end
//! of the text leaves open is read again on the next update: an escape cut off (at most 12
//! bytes), a literal (its matched length is kept) or a number (its token is re-read, so only a
//! number thousands of digits long costs more than its bytes).

use serde_json::{Map, Value};

use super::MAX_DEPTH;
use super::strings::{Mode, StringEnd, pending_text, scan_string};
use super::tree::{self, Frame, Kind, Slot};

/// The arguments of one streamed tool call, parsed as their text arrives.
///
/// [`push`](Self::push) appends a delta; [`update`](Self::update) brings the caller's arguments
/// to what [`parse_streaming_json`](super::parse_streaming_json) gives for the whole text so
/// far, editing them in place and reading only the text that arrived since the last update.
#[derive(Clone, Debug, Default)]
pub struct StreamingJson {
    text: String,
    scanner: Scanner,
}

impl StreamingJson {
    /// A parser with no text yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends one delta of the argument text.
    pub fn push(&mut self, delta: &str) {
        self.text.push_str(delta);
    }

    /// The argument text so far.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Brings `arguments` up to date with the text so far: afterwards it is the object
    /// `parse_streaming_json(self.text())` returns. The first update replaces `arguments`
    /// whatever it held; later ones edit it in place and expect to find it as the previous
    /// update left it (another value is not an error, just edited as far as it matches).
    pub fn update(&mut self, arguments: &mut Value) {
        self.scanner.run(&self.text, arguments);
    }

    /// The arguments of the finished call (Pi 1.6's `StreamingToolCallParser.finish`): one
    /// strict parse of the whole text, failing with Pi's `argumentsError` when it is not a JSON
    /// object (see [`super::parse_tool_call_arguments`]).
    pub fn finish(&self) -> Result<serde_json::Map<String, Value>, String> {
        super::parse_tool_call_arguments(&self.text)
    }

    /// How many bytes of text the parser has examined in all its updates: the text's length,
    /// plus the ends it had to read again (a debugging statistic, and the tests' measure that
    /// the work stays linear).
    pub fn scanned_bytes(&self) -> usize {
        self.scanner.scanned
    }
}

/// What the scanner reads next at `pos`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Expect {
    /// The top-level value; anything but an object makes the arguments `{}`.
    #[default]
    Root,
    /// After `{`: a key or `}`.
    KeyOrClose,
    /// After `,` in an object: a key.
    Key,
    /// Inside a key (decoded into `Scanner::key`).
    InKey,
    /// After a key: `:`.
    Colon,
    /// After `:`, or after `,` in an array: a value.
    Value,
    /// After `[`: a value or `]`.
    ValueOrClose,
    /// Inside a string value (decoded straight into the arguments).
    InString,
    /// A number token starting at `start`; `shown` once its value is in the arguments.
    InNumber { start: usize, shown: bool },
    /// A literal whose value is shown already; `matched` bytes of `word` were read.
    InLiteral { word: &'static [u8], matched: usize },
    /// After a value in a container: `,` or the container's end.
    AfterValue,
    /// The top-level object is complete; later text is ignored.
    Done,
    /// The text is malformed beyond repair, or not an object: the arguments are `{}` for good.
    Empty,
}

/// The scanner's state between updates.
#[derive(Clone, Debug, Default)]
pub(super) struct Scanner {
    /// Bytes read for good.
    pos: usize,
    mode: Mode,
    expect: Expect,
    /// The open containers, outermost (the arguments object) first.
    frames: Vec<Frame>,
    /// The innermost object's last key read: the next value's key.
    key: String,
    /// Where the string, number or literal being read sits in the innermost container.
    slot: Option<Slot>,
    /// Bytes at the end of the string being read that stand for an escape the text cut off.
    provisional: usize,
    /// The arguments set aside while a number at the end of the text overflows, which makes the
    /// whole text read as `{}` until more digits (an exponent) bring it back into range.
    stash: Option<Value>,
    /// `arguments` has been reset by the first update.
    synced: bool,
    /// Bytes examined in all updates.
    scanned: usize,
}

impl Scanner {
    /// Reads `text` from where the last run stopped and edits `root` to match.
    pub(super) fn run(&mut self, text: &str, root: &mut Value) {
        if !self.synced {
            *root = Value::Object(Map::new());
            self.synced = true;
        }
        if let Some(tree) = self.stash.take() {
            *root = tree;
        }
        if self.provisional > 0 {
            self.drop_provisional(root);
        }
        while self.step(text, root) {}
    }

    /// One transition; `false` when the text is used up or nothing more can change.
    fn step(&mut self, text: &str, root: &mut Value) -> bool {
        match self.expect {
            Expect::Done | Expect::Empty => false,
            Expect::Root => match self.skip_ws(text) {
                None => false,
                Some(b'{') => {
                    self.advance();
                    self.frames.push(Frame {
                        kind: Kind::Object,
                        at: Slot::Last,
                    });
                    self.expect = Expect::KeyOrClose;
                    true
                }
                Some(_) => self.fail(root),
            },
            Expect::KeyOrClose | Expect::Key => match self.skip_ws(text) {
                None => false,
                Some(b'}') if self.expect == Expect::KeyOrClose => self.close(),
                Some(b'"') => {
                    self.advance();
                    self.key.clear();
                    self.expect = Expect::InKey;
                    true
                }
                Some(_) => self.fail(root),
            },
            Expect::InKey => {
                let mut key = std::mem::take(&mut self.key);
                let end = scan_string(
                    text,
                    &mut self.pos,
                    &mut self.mode,
                    &mut key,
                    &mut self.scanned,
                );
                self.key = key;
                // A half-streamed key is never shown.
                if end == StringEnd::Pending {
                    return false;
                }
                self.expect = Expect::Colon;
                true
            }
            Expect::Colon => match self.skip_ws(text) {
                None => false,
                Some(b':') => {
                    self.advance();
                    self.expect = Expect::Value;
                    true
                }
                Some(_) => self.fail(root),
            },
            Expect::Value | Expect::ValueOrClose => match self.skip_ws(text) {
                None => false,
                Some(b']') if self.expect == Expect::ValueOrClose => self.close(),
                Some(c) => self.begin_value(c, root),
            },
            Expect::InString => self.read_string(text, root),
            Expect::InNumber { start, shown } => self.read_number(text, root, start, shown),
            Expect::InLiteral { word, matched } => self.read_literal(text, root, word, matched),
            Expect::AfterValue => {
                let kind = self.frames.last().map(|frame| frame.kind);
                match (self.skip_ws(text), kind) {
                    (None, _) | (_, None) => false,
                    (Some(b','), Some(kind)) => {
                        self.advance();
                        self.expect = match kind {
                            Kind::Object => Expect::Key,
                            Kind::Array => Expect::Value,
                        };
                        true
                    }
                    (Some(b'}'), Some(Kind::Object)) | (Some(b']'), Some(Kind::Array)) => {
                        self.close()
                    }
                    (Some(_), Some(_)) => self.fail(root),
                }
            }
        }
    }

    /// Skips JSON whitespace; the byte after it, if the text goes on.
    fn skip_ws(&mut self, text: &str) -> Option<u8> {
        let b = text.as_bytes();
        while let Some(&c) = b.get(self.pos) {
            if !matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
                return Some(c);
            }
            self.advance();
        }
        None
    }

    fn advance(&mut self) {
        self.pos += 1;
        self.scanned += 1;
    }

    /// Consumes a container's closing bracket.
    fn close(&mut self) -> bool {
        self.advance();
        self.frames.pop();
        self.expect = if self.frames.is_empty() {
            Expect::Done
        } else {
            Expect::AfterValue
        };
        true
    }

    /// The text cannot be read, even repaired: the arguments are `{}` from now on.
    fn fail(&mut self, root: &mut Value) -> bool {
        self.expect = Expect::Empty;
        self.frames = Vec::new();
        self.slot = None;
        self.provisional = 0;
        *root = Value::Object(Map::new());
        false
    }

    /// Puts a value that has begun into the innermost container and remembers where.
    fn show(&mut self, root: &mut Value, value: Value) {
        let key = std::mem::take(&mut self.key);
        self.slot =
            tree::container(root, &self.frames).and_then(|node| tree::insert(node, key, value));
    }

    /// The value being read (the string, number or literal), in the arguments.
    fn shown<'v>(&self, root: &'v mut Value) -> Option<&'v mut Value> {
        let container = tree::container(root, &self.frames)?;
        tree::child(container, self.slot.as_ref()?)
    }

    /// The first byte of a value: a value begins (and is shown) or the text is malformed.
    fn begin_value(&mut self, c: u8, root: &mut Value) -> bool {
        let (word, value): (&'static [u8], Value) = match c {
            b'"' => {
                self.advance();
                self.show(root, Value::String(String::new()));
                self.expect = Expect::InString;
                return true;
            }
            b'{' | b'[' => {
                if self.frames.len() >= MAX_DEPTH {
                    return self.fail(root);
                }
                self.advance();
                let (kind, empty, expect) = if c == b'{' {
                    (Kind::Object, Value::Object(Map::new()), Expect::KeyOrClose)
                } else {
                    (Kind::Array, Value::Array(Vec::new()), Expect::ValueOrClose)
                };
                self.show(root, empty);
                let at = self.slot.take().unwrap_or(Slot::Last);
                self.frames.push(Frame { kind, at });
                self.expect = expect;
                return true;
            }
            b'-' | b'0'..=b'9' => {
                // Not shown yet: a lone `-` is no value.
                self.expect = Expect::InNumber {
                    start: self.pos,
                    shown: false,
                };
                return true;
            }
            // A literal's first letter already decides its value (`t` reads as `true`).
            b'n' => (b"null", Value::Null),
            b't' => (b"true", Value::Bool(true)),
            b'f' => (b"false", Value::Bool(false)),
            _ => return self.fail(root),
        };
        self.advance();
        self.show(root, value);
        self.expect = Expect::InLiteral { word, matched: 1 };
        true
    }

    fn read_literal(
        &mut self,
        text: &str,
        root: &mut Value,
        word: &'static [u8],
        mut matched: usize,
    ) -> bool {
        let b = text.as_bytes();
        while let Some(&expected) = word.get(matched) {
            match b.get(self.pos) {
                None => {
                    self.expect = Expect::InLiteral { word, matched };
                    return false;
                }
                Some(&c) if c == expected => {
                    self.advance();
                    matched += 1;
                }
                Some(_) => return self.fail(root),
            }
        }
        self.expect = Expect::AfterValue;
        true
    }

    fn read_string(&mut self, text: &str, root: &mut Value) -> bool {
        let mut scratch = String::new();
        let shown = tree::container(root, &self.frames)
            .and_then(|node| tree::child(node, self.slot.as_ref()?));
        let out = match shown {
            Some(Value::String(text)) => text,
            _ => &mut scratch,
        };
        match scan_string(text, &mut self.pos, &mut self.mode, out, &mut self.scanned) {
            StringEnd::Closed => {
                self.expect = Expect::AfterValue;
                true
            }
            StringEnd::Pending => {
                let tail = pending_text(text, self.pos, self.mode);
                out.push_str(&tail);
                self.provisional = tail.len();
                false
            }
        }
    }

    /// Takes back the text that stood for a cut-off escape.
    fn drop_provisional(&mut self, root: &mut Value) {
        if let Some(Value::String(text)) = self.shown(root) {
            let keep = text.len().saturating_sub(self.provisional);
            if text.is_char_boundary(keep) {
                text.truncate(keep);
            }
        }
        self.provisional = 0;
    }

    fn read_number(&mut self, text: &str, root: &mut Value, start: usize, shown: bool) -> bool {
        let scan = scan_number(text.as_bytes(), start);
        self.scanned += scan.len;
        let (valid_end, complete) = match scan.outcome {
            Number::Malformed => return self.fail(root),
            Number::Open { valid_end: None } => return false,
            Number::Open {
                valid_end: Some(end),
            } => (end, false),
            Number::Complete { end } => (end, true),
        };
        let value = text
            .get(start..valid_end)
            .and_then(|number| serde_json::from_str::<Value>(number).ok());
        let Some(value) = value else {
            if complete {
                return self.fail(root);
            }
            // Out of range for now: the whole text reads as `{}` until the number is done.
            self.stash = Some(std::mem::replace(root, Value::Object(Map::new())));
            return false;
        };
        if shown {
            if let Some(slot) = self.shown(root) {
                *slot = value;
            }
        } else {
            self.show(root, value);
        }
        if complete {
            self.pos = valid_end;
            self.expect = Expect::AfterValue;
        } else {
            self.expect = Expect::InNumber { start, shown: true };
        }
        complete
    }
}

/// How far a number token reads.
enum Number {
    /// Not a number (`-x`, `1.x`, `1e+x`).
    Malformed,
    /// The text ends inside the token; its longest valid prefix ends at `valid_end` (`None` for
    /// a lone `-`).
    Open { valid_end: Option<usize> },
    /// The token ends at `end`, before a byte that cannot continue it.
    Complete { end: usize },
}

/// A number scan, and how many bytes it examined.
struct NumberScan {
    outcome: Number,
    len: usize,
}

/// Reads the number token at `start` as JSON's grammar allows, the text's end cutting it short
/// anywhere (`12.` is 12 so far, `1e-` is 1).
fn scan_number(b: &[u8], start: usize) -> NumberScan {
    let mut pos = start;
    let digits = |pos: &mut usize| {
        while matches!(b.get(*pos), Some(b'0'..=b'9')) {
            *pos += 1;
        }
    };
    let done = |outcome, pos: usize| NumberScan {
        outcome,
        len: pos - start,
    };
    if b.get(pos) == Some(&b'-') {
        pos += 1;
    }
    match b.get(pos) {
        None => return done(Number::Open { valid_end: None }, pos),
        Some(b'0') => pos += 1,
        Some(b'1'..=b'9') => digits(&mut pos),
        Some(_) => return done(Number::Malformed, pos),
    }
    let mut valid_end = pos;
    // A fraction or exponent needs a digit; the text's end may still bring it.
    let part = |pos: &mut usize, valid_end: &mut usize| match b.get(*pos) {
        None => true,
        Some(b'0'..=b'9') => {
            digits(pos);
            *valid_end = *pos;
            true
        }
        Some(_) => false,
    };
    if b.get(pos) == Some(&b'.') {
        pos += 1;
        if !part(&mut pos, &mut valid_end) {
            return done(Number::Malformed, pos);
        }
    }
    if matches!(b.get(pos), Some(b'e' | b'E')) {
        pos += 1;
        if matches!(b.get(pos), Some(b'+' | b'-')) {
            pos += 1;
        }
        if !part(&mut pos, &mut valid_end) {
            return done(Number::Malformed, pos);
        }
    }
    let outcome = if pos == b.len() {
        Number::Open {
            valid_end: Some(valid_end),
        }
    } else {
        Number::Complete { end: pos }
    };
    done(outcome, pos)
}
