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

/// A JSON value's text as JS prints a number (`5`, not `5.0`); other values as JSON.
pub(super) fn js_value(value: &Value) -> String {
    match value {
        Value::Number(number) => json_number_text(number),
        other => other.to_string(),
    }
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
