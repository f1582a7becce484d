//! `models.json` may hold `//` line comments and trailing commas (Pi's `stripJsonComments`).
//!
//! Two passes, as in Pi: comments first, then a comma followed only by whitespace and a closing
//! bracket. Text inside string literals is never touched; a quote without its closing quote is
//! an ordinary character (so the JSON parser reports the real problem).

/// The text with `//` comments and trailing commas removed.
pub(crate) fn strip_comments_and_trailing_commas(text: &str) -> String {
    let without_comments = scan(text, |rest| {
        rest.starts_with("//")
            .then(|| rest.find('\n').unwrap_or(rest.len()))
            .map(|len| (len, ""))
    });
    scan(&without_comments, |rest| {
        let after_comma = rest.strip_prefix(',')?;
        let tail = after_comma.trim_start();
        (tail.starts_with('}') || tail.starts_with(']')).then_some((1, ""))
    })
}

/// Copies `text`, skipping over string literals, and lets `replace` turn the text at each other
/// position into a replacement: `Some((consumed_bytes, replacement))`.
fn scan(text: &str, replace: impl Fn(&str) -> Option<(usize, &'static str)>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut index = 0;
    while index < text.len() {
        let rest = &text[index..];
        if rest.starts_with('"')
            && let Some(len) = string_literal_len(rest)
        {
            out.push_str(&rest[..len]);
            index += len;
            continue;
        }
        if let Some((consumed, replacement)) = replace(rest) {
            out.push_str(replacement);
            index += consumed;
            continue;
        }
        let Some(ch) = rest.chars().next() else {
            break;
        };
        out.push(ch);
        index += ch.len_utf8();
    }
    out
}

/// Byte length of the string literal at the start of `text` (which starts with `"`), closing
/// quote included; `None` when it is never closed. An escape is a backslash and any character
/// but a newline, as in Pi's pattern.
fn string_literal_len(text: &str) -> Option<usize> {
    let mut chars = text.char_indices().skip(1);
    while let Some((index, ch)) = chars.next() {
        match ch {
            '"' => return Some(index + 1),
            '\\' => match chars.next() {
                Some((_, '\n')) | None => return None,
                Some(_) => {}
            },
            _ => {}
        }
    }
    None
}
