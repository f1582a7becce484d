//! JavaScript semantics the validator must reproduce: `Number(text)`, `String(number)` and
//! `JSON.stringify(value, null, 2)`.

use rho_stdx::js::json_number_text;
use serde_json::Value;

/// JS `Number(text)` for non-blank text: decimal literals and `0x`/`0o`/`0b` integers.
pub(super) fn parse_js_number(text: &str) -> Option<f64> {
    let text = text.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
    let radix = match text.get(..2) {
        Some("0x" | "0X") => 16,
        Some("0o" | "0O") => 8,
        Some("0b" | "0B") => 2,
        _ => {
            let literal =
                |b: u8| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-');
            let literal = !text.is_empty() && text.bytes().all(literal);
            return if literal { text.parse().ok() } else { None };
        }
    };
    let digits = text
        .get(2..)
        .filter(|d| !d.is_empty() && d.chars().all(|c| c.is_digit(radix)))?;
    let digit = |c: char| f64::from(c.to_digit(radix).unwrap_or(0));
    Some(
        digits
            .chars()
            .fold(0.0, |acc, c| acc * f64::from(radix) + digit(c)),
    )
}

/// `JSON.stringify(value, null, 2)`: JS number text and JS key order (array-index keys first,
/// ascending). serde_json's string escaping is already `JSON.stringify`'s.
pub(super) fn write_js_json(value: &Value, depth: usize, out: &mut String) {
    let newline = |depth: usize, out: &mut String| {
        out.push('\n');
        out.push_str(&"  ".repeat(depth));
    };
    match value {
        Value::Number(number) => out.push_str(&json_number_text(number)),
        Value::Array(items) if !items.is_empty() => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                out.push_str(if index > 0 { "," } else { "" });
                newline(depth + 1, out);
                write_js_json(item, depth + 1, out);
            }
            newline(depth, out);
            out.push(']');
        }
        Value::Object(members) if !members.is_empty() => {
            let mut ordered: Vec<(Option<u32>, &String, &Value)> = members
                .iter()
                .map(|(key, member)| (array_index(key), key, member))
                .collect();
            // Stable: named keys keep their order after the array indices.
            ordered.sort_by_key(|(index, _, _)| index.map_or((1, 0), |index| (0, index)));
            out.push('{');
            for (position, (_, key, member)) in ordered.into_iter().enumerate() {
                out.push_str(if position > 0 { "," } else { "" });
                newline(depth + 1, out);
                out.push_str(&Value::String(key.clone()).to_string());
                out.push_str(": ");
                write_js_json(member, depth + 1, out);
            }
            newline(depth, out);
            out.push('}');
        }
        // null, booleans, strings, `[]` and `{}` print as compact JSON.
        other => out.push_str(&other.to_string()),
    }
}

/// A key JS orders first: the canonical decimal form of an integer below 2^32 - 1.
fn array_index(key: &str) -> Option<u32> {
    let canonical = !key.is_empty()
        && key.bytes().all(|b| b.is_ascii_digit())
        && (key == "0" || !key.starts_with('0'));
    key.parse()
        .ok()
        .filter(|index| canonical && *index != u32::MAX)
}

/// JavaScript's `String(x)` of a number.
pub(super) fn js_number(x: f64) -> String {
    rho_stdx::js::number_text(x)
}

/// `===` for primitives (numbers by value, so `1` equals `1.0`), deep equality for objects and
/// arrays, as pi-schema's `deepEqual`.
pub(super) fn js_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| js_equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(key, a)| y.get(key).is_some_and(|b| js_equal(a, b)))
        }
        _ => a == b,
    }
}

/// An object's keys in JavaScript's `Object.keys` order: array-index keys first, ascending.
pub(super) fn js_keys(members: &serde_json::Map<String, Value>) -> Vec<&String> {
    let mut keys: Vec<(Option<u32>, &String)> =
        members.keys().map(|key| (array_index(key), key)).collect();
    keys.sort_by_key(|(index, _)| index.map_or((1, 0), |index| (0, index)));
    keys.into_iter().map(|(_, key)| key).collect()
}

/// `JSON.stringify(value)`: compact, JS number text and key order.
pub(super) fn js_json(value: &Value) -> String {
    let mut out = String::new();
    write_compact(value, &mut out);
    out
}

fn write_compact(value: &Value, out: &mut String) {
    match value {
        Value::Number(number) => out.push_str(&json_number_text(number)),
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                out.push_str(if index > 0 { "," } else { "" });
                write_compact(item, out);
            }
            out.push(']');
        }
        Value::Object(members) => {
            out.push('{');
            for (position, key) in js_keys(members).into_iter().enumerate() {
                out.push_str(if position > 0 { "," } else { "" });
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                if let Some(member) = members.get(key) {
                    write_compact(member, out);
                }
            }
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}
