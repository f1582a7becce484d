//! Best-effort parsing of streamed (possibly truncated or slightly malformed) tool-call argument
//! JSON, with the results of Pi's `parseStreamingJson`.
//!
//! Providers stream tool arguments as JSON text deltas and every `toolcall_delta` carries the
//! arguments parsed so far, so this never fails. Pi re-parses the whole buffer on every delta (a
//! strict parse, a string-literal repair, a partial parse, then `{}`), which is quadratic in the
//! argument's size: a 200 KB `write` streamed in thousands of deltas scanned gigabytes.
//! [`StreamingJson`] reaches the same object after every delta in one pass: it keeps its scanner
//! state (open containers, the string or number being read) between deltas and edits the caller's
//! arguments in place, so its total work is linear in the argument's size.
//!
//! The results, and the repair rules, are exactly Pi's (the `reference` module keeps the
//! cascade as the oracle):
//! - a prefix of valid JSON is closed where it ends: an unterminated string keeps its text so
//!   far, a key without a value (or a half-streamed key) is left out, a number keeps its longest
//!   valid prefix (`12.` is 12, a lone `-` is no value), a literal prefix (`tr`) is its literal;
//! - an escape cut off by the end of the text waits for the next delta;
//! - raw control characters and backslashes that start no valid escape are taken literally
//!   (Pi's repair), but only once the text cannot be read without that repair;
//! - text after the complete top-level value is ignored;
//! - anything else malformed, containers nested deeper than 128, and any top-level value that
//!   is not an object give `{}`.

mod finish;
mod scanner;
mod strings;
mod tree;

#[cfg(any(test, feature = "reference"))]
pub mod reference;
#[cfg(test)]
mod stream_tests;
#[cfg(test)]
mod tests;

use serde_json::{Map, Value};

pub use finish::parse_tool_call_arguments;
pub use scanner::StreamingJson;

/// Containers nested deeper than this are treated as malformed, so hostile input cannot make a
/// value too deep to drop or print (serde_json uses the same limit).
const MAX_DEPTH: usize = 128;

/// Best-effort parse of a whole, possibly incomplete tool-call argument JSON buffer, as Pi's
/// `parseStreamingJson`: the object a [`StreamingJson`] fed `buffer` would hold.
pub fn parse_streaming_json(buffer: &str) -> Map<String, Value> {
    let mut arguments = Value::Null;
    scanner::Scanner::default().run(buffer, &mut arguments);
    match arguments {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// What a `\uXXXX` escape reads as.
enum UEscape {
    /// A complete escape and its UTF-16 code unit.
    Code(u16),
    /// Input ends inside what could still become `\uXXXX`.
    Eof,
    /// Not a `\uXXXX` escape.
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
