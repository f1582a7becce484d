//! Text made safe and readable for the page: HTML escaping, terminal colour codes removed,
//! long output folded, numbers and times formatted.

use std::fmt::Write as _;

/// Lines of tool output shown before the rest is folded away.
pub const PREVIEW_LINES: usize = 10;

/// Escapes `text` for element content and for quoted attribute values alike: every character
/// that could end a text run, a tag or an attribute is replaced by its entity, so message
/// content (`</script>`, `"`, `<img onerror=…>`) can never become markup.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // A NUL in the page makes some browsers drop the rest of the text run.
            '\0' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

/// Removes terminal escape sequences (colours, cursor moves, titles): a page cannot show them,
/// and bash output is full of them.
pub fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match chars.next() {
            // CSI: parameters and intermediates up to one final byte in `@`..=`~`.
            Some('[') => {
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            // OSC: up to BEL or ST (`ESC \`).
            Some(']') => {
                while let Some(c) = chars.next() {
                    if c == '\u{7}' {
                        break;
                    }
                    if c == '\u{1b}' && chars.peek() == Some(&'\\') {
                        chars.next();
                        break;
                    }
                }
            }
            // Any other escape is two characters long.
            _ => {}
        }
    }
    out
}

/// Terminal output as a `<pre>`: the first `preview` lines visible, the rest behind a
/// `<details>` so a long listing does not bury the conversation (no script needed).
pub fn output_block(text: &str, preview: usize) -> String {
    let text = strip_ansi(text);
    let lines: Vec<&str> = text.split('\n').collect();
    if lines.len() <= preview {
        return format!("<pre class=\"output\">{}</pre>", escape(&text));
    }
    let (head, rest) = lines.split_at(preview);
    format!(
        "<pre class=\"output\">{}</pre><details class=\"more\"><summary>{} more lines</summary>\
         <pre class=\"output\">{}</pre></details>",
        escape(&head.join("\n")),
        rest.len(),
        escape(&rest.join("\n")),
    )
}

/// Token counts as Pi's export writes them: `999`, `1.2k`, `12k`, `1.5M`.
pub fn format_tokens(count: u64) -> String {
    match count {
        0..1_000 => count.to_string(),
        1_000..10_000 => format!("{:.1}k", count as f64 / 1_000.0),
        10_000..1_000_000 => format!("{}k", (count as f64 / 1_000.0).round()),
        _ => format!("{:.1}M", count as f64 / 1_000_000.0),
    }
}

/// A message timestamp (epoch ms) as a `<time>` element in UTC; nothing for a missing (0) or
/// out-of-range time.
pub fn time_element(epoch_ms: i64) -> String {
    if epoch_ms == 0 {
        return String::new();
    }
    match chrono::DateTime::from_timestamp_millis(epoch_ms) {
        Some(t) => {
            let mut out = String::new();
            let _ = write!(
                out,
                "<time datetime=\"{}\">{}</time>",
                t.format("%Y-%m-%dT%H:%M:%S%.3fZ"),
                t.format("%Y-%m-%d %H:%M:%S UTC")
            );
            out
        }
        None => String::new(),
    }
}
