//! The arguments of a finished tool call (Pi 1.6's `parseToolCallArguments`): one strict parse of
//! the whole text (`JSON.parse`, then once more after the string-literal repair if that changes
//! anything). Unlike [`super::parse_streaming_json`], this never keeps a partial prefix: text
//! that is not a JSON object is malformed arguments, reported with V8's `JSON.parse` message so
//! the model reads what Pi's models read.

use serde_json::{Map, Value};

use super::strings::repair;

/// `Ok(object)` for arguments that parse to an object (blank text is `{}`), else Pi's
/// `argumentsError`: `<message>\n\nReceived arguments:\n<text>`.
pub fn parse_tool_call_arguments(text: &str) -> Result<Map<String, Value>, String> {
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    let parsed = json_parse(text).or_else(|error| {
        let repaired = repair(text);
        if repaired == text {
            Err(error)
        } else {
            json_parse(&repaired)
        }
    });
    let message = match parsed {
        Ok(Value::Object(object)) => return Ok(object),
        Ok(_) => "Tool arguments must be a JSON object".to_owned(),
        Err(message) => message,
    };
    Err(format!("{message}\n\nReceived arguments:\n{text}"))
}

/// `JSON.parse(text)`, failing with V8's message.
fn json_parse(text: &str) -> Result<Value, String> {
    let mut parser = Strict::new(text);
    parser.skip_ws();
    parser.value()?;
    parser.skip_ws();
    if parser.i < parser.chars.len() {
        let message = parser.located("Unexpected non-whitespace character after JSON", parser.i);
        return Err(message);
    }
    // The text is valid JSON; serde_json reads it (a lone surrogate escape it cannot hold).
    serde_json::from_str(text).map_err(|_| parser.at("Bad Unicode escape", 0))
}

/// A V8-like strict JSON checker over characters, positions in UTF-16 units.
struct Strict {
    chars: Vec<char>,
    /// UTF-16 offset of each character (and of the end).
    offsets: Vec<usize>,
    i: usize,
}

impl Strict {
    fn new(text: &str) -> Self {
        let chars: Vec<char> = text.chars().collect();
        let mut offsets = Vec::with_capacity(chars.len() + 1);
        let mut offset = 0;
        for c in &chars {
            offsets.push(offset);
            offset += c.len_utf16();
        }
        offsets.push(offset);
        Strict {
            chars,
            offsets,
            i: 0,
        }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.i).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t' | '\n' | '\r')) {
            self.i += 1;
        }
    }

    /// `<message> in JSON at position P (line L column C)`.
    fn at(&self, message: &str, index: usize) -> String {
        self.located(&format!("{message} in JSON"), index)
    }

    /// `<message> at position P (line L column C)`.
    fn located(&self, message: &str, index: usize) -> String {
        let position = self.offsets[index.min(self.chars.len())];
        let before = &self.chars[..index.min(self.chars.len())];
        let line = 1 + before.iter().filter(|&&c| c == '\n').count();
        let column = match before.iter().rposition(|&c| c == '\n') {
            Some(newline) => position - self.offsets[newline],
            None => position + 1,
        };
        format!("{message} at position {position} (line {line} column {column})")
    }

    /// V8's message for an unexpected token at `index`.
    fn unexpected(&self, index: usize) -> String {
        let Some(&c) = self.chars.get(index) else {
            return "Unexpected end of JSON input".to_owned();
        };
        if c == '"' {
            return self.at("Unexpected string", index);
        }
        if c == '-' || c.is_ascii_digit() {
            return self.at("Unexpected number", index);
        }
        // The source around the token: whole when short, else 10 characters each side.
        const CONTEXT: usize = 10;
        let units: Vec<u16> = self
            .chars
            .iter()
            .collect::<String>()
            .encode_utf16()
            .collect();
        let position = self.offsets[index];
        let source = |from: usize, to: usize| String::from_utf16_lossy(&units[from..to]);
        if units.len() < 2 * CONTEXT + 1 {
            return format!(
                "Unexpected token '{c}', \"{}\" is not valid JSON",
                source(0, units.len())
            );
        }
        let from = position.saturating_sub(CONTEXT);
        let to = (position + CONTEXT).min(units.len());
        let (open, close) = (
            if from > 0 { "..." } else { "" },
            if to < units.len() { "..." } else { "" },
        );
        format!(
            "Unexpected token '{c}', {open}\"{}\"{close} is not valid JSON",
            source(from, to)
        )
    }

    fn value(&mut self) -> Result<(), String> {
        match self.peek() {
            Some('"') => self.string(),
            Some('{') => self.object(),
            Some('[') => self.array(),
            Some(c) if c == '-' || c.is_ascii_digit() => self.number(),
            Some('t') => self.literal("true"),
            Some('f') => self.literal("false"),
            Some('n') => self.literal("null"),
            _ => Err(self.unexpected(self.i)),
        }
    }

    fn literal(&mut self, word: &str) -> Result<(), String> {
        for expected in word.chars() {
            match self.peek() {
                Some(c) if c == expected => self.i += 1,
                _ => return Err(self.unexpected(self.i)),
            }
        }
        Ok(())
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        self.i - start
    }

    fn number(&mut self) -> Result<(), String> {
        if self.peek() == Some('-') {
            self.i += 1;
            if !self.peek().is_some_and(|c| c.is_ascii_digit()) {
                return Err(self.at("No number after minus sign", self.i));
            }
        }
        if self.peek() == Some('0') {
            self.i += 1;
            if self.peek().is_some_and(|c| c.is_ascii_digit()) {
                return Err(self.unexpected(self.i));
            }
        } else {
            self.digits();
        }
        if self.peek() == Some('.') {
            self.i += 1;
            if self.digits() == 0 {
                return Err(self.at("Unterminated fractional number", self.i));
            }
        }
        if matches!(self.peek(), Some('e' | 'E')) {
            self.i += 1;
            if matches!(self.peek(), Some('+' | '-')) {
                self.i += 1;
            }
            if self.digits() == 0 {
                return Err(self.at("Exponent part is missing a number", self.i));
            }
        }
        Ok(())
    }

    fn string(&mut self) -> Result<(), String> {
        self.i += 1;
        loop {
            let Some(c) = self.peek() else {
                return Err(self.at("Unterminated string", self.i));
            };
            match c {
                '"' => {
                    self.i += 1;
                    return Ok(());
                }
                '\\' => {
                    self.i += 1;
                    match self.peek() {
                        None => return Err(self.unexpected(self.i)),
                        Some('"' | '\\' | '/' | 'b' | 'f' | 'n' | 'r' | 't') => self.i += 1,
                        Some('u') => {
                            self.i += 1;
                            for _ in 0..4 {
                                if !self.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
                                    return Err(self.at("Bad Unicode escape", self.i));
                                }
                                self.i += 1;
                            }
                        }
                        Some(_) => return Err(self.at("Bad escaped character", self.i)),
                    }
                }
                c if u32::from(c) < 0x20 => {
                    return Err(self.at("Bad control character in string literal", self.i));
                }
                _ => self.i += 1,
            }
        }
    }

    fn object(&mut self) -> Result<(), String> {
        self.i += 1;
        self.skip_ws();
        if self.peek() == Some('}') {
            self.i += 1;
            return Ok(());
        }
        let mut first = true;
        loop {
            self.skip_ws();
            if self.peek() != Some('"') {
                let message = if first {
                    "Expected property name or '}'"
                } else {
                    "Expected double-quoted property name"
                };
                return Err(self.at(message, self.i));
            }
            self.string()?;
            self.skip_ws();
            if self.peek() != Some(':') {
                return Err(self.at("Expected ':' after property name", self.i));
            }
            self.i += 1;
            self.skip_ws();
            self.value()?;
            self.skip_ws();
            match self.peek() {
                Some(',') => {
                    self.i += 1;
                    first = false;
                }
                Some('}') => {
                    self.i += 1;
                    return Ok(());
                }
                _ => return Err(self.at("Expected ',' or '}' after property value", self.i)),
            }
        }
    }

    fn array(&mut self) -> Result<(), String> {
        self.i += 1;
        self.skip_ws();
        if self.peek() == Some(']') {
            self.i += 1;
            return Ok(());
        }
        loop {
            self.skip_ws();
            self.value()?;
            self.skip_ws();
            match self.peek() {
                Some(',') => self.i += 1,
                Some(']') => {
                    self.i += 1;
                    return Ok(());
                }
                _ => return Err(self.at("Expected ',' or ']' after array element", self.i)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// Equality as JavaScript values: numbers by value (`-1.5e3` is `-1500`).
    fn js_equal(a: &Value, b: &Value) -> bool {
        match (a, b) {
            (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
            (Value::Array(x), Value::Array(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|(a, b)| js_equal(a, b))
            }
            (Value::Object(x), Value::Object(y)) => {
                x.len() == y.len()
                    && x.iter()
                        .all(|(k, a)| y.get(k).is_some_and(|b| js_equal(a, b)))
            }
            _ => a == b,
        }
    }

    /// Each line: `[text, result]` where result is what Pi 1.6.0's `parseToolCallArguments`
    /// returned under Node 22 (`{arguments}` or `{arguments: {}, argumentsError}`), or for
    /// `JSON.parse` alone `[text, "OK" | message]`.
    const PI16_CASES: &str = include_str!("finish_cases.jsonl");

    #[test]
    fn every_case_matches_pi_1_6() {
        let mut mismatches = Vec::new();
        for line in PI16_CASES.lines() {
            let case: Value = serde_json::from_str(line).unwrap();
            let text = case[0].as_str().unwrap();
            let ours = parse_tool_call_arguments(text);
            let pis = match case[1].get("argumentsError") {
                Some(error) => Err(error.as_str().unwrap().to_owned()),
                None => Ok(case[1]["arguments"].as_object().unwrap().clone()),
            };
            let same = match (&ours, &pis) {
                (Ok(a), Ok(b)) => js_equal(&Value::Object(a.clone()), &Value::Object(b.clone())),
                (a, b) => a == b,
            };
            if !same {
                mismatches.push(format!("{text:?}\n  ours: {ours:?}\n  pi's: {pis:?}"));
            }
        }
        assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
    }
}
