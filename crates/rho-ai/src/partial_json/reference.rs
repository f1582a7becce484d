//! Best-effort parsing of streamed (possibly truncated or slightly malformed)
//! tool-call argument JSON, mirroring Pi's `parseStreamingJson`.
//!
//! Providers stream tool arguments as JSON text deltas; the UI wants a usable
//! object after every delta, so this never fails: it tries strict parsing,
//! then a string-literal repair, then a partial (prefix) parse, then `{}`.

use serde_json::{Map, Value};

/// Containers nested deeper than this are treated as malformed, so hostile
/// input cannot overflow the stack (serde_json uses the same limit).
const MAX_DEPTH: usize = 128;

/// Best-effort parse of a possibly incomplete tool-call argument JSON buffer, as Pi's `parseStreamingJson`.
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

/// Fixes the string-literal mistakes models commonly make: raw control
/// characters and backslashes that do not start a valid escape. Text outside
/// string literals is copied unchanged.
fn repair(src: &str) -> String {
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

enum UEscape {
    Code(u16),
    /// Input ends inside what could still become `\uXXXX`.
    Eof,
    Invalid,
}

/// Reads a `\uXXXX` escape at `at` without consuming it.
fn u_escape(b: &[u8], at: usize) -> UEscape {
    let rest = b.get(at..).unwrap_or_default();
    let head = rest.get(..6).unwrap_or(rest);
    let shape_ok = head.iter().enumerate().all(|(i, &c)| match i {
        0 => c == b'\\',
        1 => c == b'u',
        _ => c.is_ascii_hexdigit(),
    });
    match (shape_ok, head.get(2..6)) {
        (false, _) => UEscape::Invalid,
        (true, None) => UEscape::Eof,
        (true, Some(hex)) => UEscape::Code(hex.iter().fold(0, |unit, &c| {
            (unit << 4) | (char::from(c).to_digit(16).unwrap_or(0) as u16)
        })),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn p(s: &str) -> Value {
        Value::Object(parse_streaming_json(s))
    }

    #[test]
    fn complete_and_empty() {
        assert_eq!(
            p(r#"{"a":1,"b":[true,null,"x"],"c":{"d":-2.5e3}}"#),
            json!({"a":1,"b":[true,null,"x"],"c":{"d":-2500.0}})
        );
        assert_eq!(p(""), json!({}));
        assert_eq!(p(" \n\t "), json!({}));
        assert_eq!(p(" {\"a\" :\n 1 } "), json!({"a":1}));
    }

    #[test]
    fn partial_containers_strings_and_keys() {
        assert_eq!(p(r#"{"a":"hel"#), json!({"a":"hel"}));
        assert_eq!(p(r#"{"a":1,"#), json!({"a":1}));
        assert_eq!(p(r#"{"a":1, "b":"#), json!({"a":1}));
        assert_eq!(p(r#"{"a":1, "b""#), json!({"a":1}));
        assert_eq!(p(r#"{"a":1, "bc"#), json!({"a":1}));
        assert_eq!(p("{"), json!({}));
        assert_eq!(p(r#"{"a":[1,2"#), json!({"a":[1,2]}));
        assert_eq!(p(r#"{"a":[1,"#), json!({"a":[1]}));
        assert_eq!(p(r#"{"a":{"b":[{"c":"d"#), json!({"a":{"b":[{"c":"d"}]}}));
        assert_eq!(p(r#"{"é":"日本"#), json!({"é":"日本"}));
    }

    #[test]
    fn partial_literals_and_numbers() {
        assert_eq!(p(r#"{"a":nu"#), json!({"a":null}));
        assert_eq!(p(r#"{"a":n"#), json!({"a":null}));
        assert_eq!(p(r#"{"a":tr"#), json!({"a":true}));
        assert_eq!(p(r#"{"a":[fa"#), json!({"a":[false]}));
        assert_eq!(p(r#"{"a":12."#), json!({"a":12}));
        assert_eq!(p(r#"{"a":12"#), json!({"a":12}));
        assert_eq!(p(r#"{"a":-"#), json!({}));
        assert_eq!(p(r#"{"a":1e"#), json!({"a":1}));
        assert_eq!(p(r#"{"a":1.5e+"#), json!({"a":1.5}));
        assert_eq!(p(r#"{"a":[1, -"#), json!({"a":[1]}));
    }

    #[test]
    fn partial_escapes() {
        assert_eq!(p(r#"{"a":"x\"#), json!({"a":"x"}));
        assert_eq!(p(r#"{"a":"x\u00"#), json!({"a":"x"}));
        assert_eq!(p(r#"{"a":"x\n"#), json!({"a":"x\n"}));
        assert_eq!(p(r#"{"a":"\ud83d\ude00"}"#), json!({"a":"😀"}));
        assert_eq!(p(r#"{"a":"\ud83d\ude0"#), json!({"a":""}));
        assert_eq!(p(r#"{"a":"\ud83d\ude00"#), json!({"a":"😀"}));
        assert_eq!(p(r#"{"a":"\ud83dx"}"#), json!({"a":"\u{FFFD}x"}));
    }

    #[test]
    fn repair_cases() {
        assert_eq!(p("{\"a\":\"x\ny\"}"), json!({"a":"x\ny"}));
        assert_eq!(p("{\"a\":\"x\ny"), json!({"a":"x\ny"}));
        assert_eq!(p(r#"{"a":"C:\dir"}"#), json!({"a":"C:\\dir"}));
        assert_eq!(p(r#"{"a":"C:\dir"#), json!({"a":"C:\\dir"}));
        assert_eq!(p("{\"a\":\"t\tb\u{1}\"}"), json!({"a":"t\tb\u{1}"}));
        assert_eq!(
            repair("{\"a\":\"x\n\t\u{1}\u{8}\u{c}\r\"}"),
            r#"{"a":"x\n\t\u0001\b\f\r"}"#
        );
        assert_eq!(
            repair(r#"{"a":"\d\"\u12zz\u00e9"#),
            r#"{"a":"\\d\"\\u12zz\u00e9"#
        );
        // Trailing backslash: repair doubles it, but the partial parse of the
        // original wins and drops the incomplete escape.
        assert_eq!(repair(r#"{"a":"x\"#), r#"{"a":"x\\"#);
        assert_eq!(p(r#"{"a":"x\"#), json!({"a":"x"}));
        // Outside strings nothing is touched.
        assert_eq!(repair("{\n\"a\":\t1}"), "{\n\"a\":\t1}");
    }

    #[test]
    fn non_objects_malformed_and_deep() {
        for s in [
            "[1,2]",
            "null",
            "42",
            "\"str\"",
            "[1,",
            "\"abc",
            "-",
            "tru",
            "}",
            "x",
            "{\"a\":1 x}",
            "{1:2}",
        ] {
            assert_eq!(p(s), json!({}), "{s}");
        }
        assert_eq!(p(r#"{"a":1} trailing"#), json!({"a":1}));
        assert_eq!(p(&"[".repeat(100_000)), json!({}));
        assert_eq!(p(&"{\"a\":".repeat(100_000)), json!({}));
        let ok = format!("{{\"a\":{}", "[".repeat(100));
        assert!(p(&ok)["a"].is_array());
    }

    fn arb_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            // Dyadic fractions print and re-parse exactly.
            any::<i32>().prop_map(|i| Value::from(f64::from(i) / 8.0)),
            any::<String>().prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
                prop::collection::btree_map(any::<String>(), inner, 0..5)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn prefixes_parse_to_key_subsets(
            obj in prop::collection::btree_map("[a-z\"\\\\é\n]{0,6}", arb_value(), 0..6),
            pretty in any::<bool>(),
        ) {
            let obj: Map<String, Value> = obj.into_iter().collect();
            let full = if pretty {
                serde_json::to_string_pretty(&obj).unwrap()
            } else {
                serde_json::to_string(&obj).unwrap()
            };
            prop_assert_eq!(&parse_streaming_json(&full), &obj);
            for (i, _) in full.char_indices() {
                let partial = parse_streaming_json(&full[..i]);
                for (key, value) in &partial {
                    prop_assert!(obj.contains_key(key), "prefix {:?} invented key {:?}", &full[..i], key);
                    if let (Value::String(got), Some(Value::String(want))) = (value, obj.get(key)) {
                        prop_assert!(want.starts_with(got.as_str()));
                    }
                }
            }
        }
    }
}
