//! Output helpers shared by `grep`, `find` and `ls`: JavaScript number printing, the 50 KB byte
//! cut, and Pi's `[notice. notice]` footer.

use serde_json::{Map, Value};

use crate::tools::truncate::{DEFAULT_MAX_BYTES, Truncation, format_size, truncate_head};

/// `Number.MAX_SAFE_INTEGER`: the line limit Pi passes when only bytes should cut.
pub(crate) const NO_LINE_LIMIT: usize = 9_007_199_254_740_991;

/// A number as JavaScript prints it (`String(n)`).
pub(crate) use rho_stdx::js::number_text as js_number;
/// The JSON value JavaScript would write for `n` (`100`, not `100.0`).
pub(crate) use rho_stdx::js::number_value as js_number_value;

/// A numeric argument as `f64`; anything else (absent, `null`, wrong type) is `None`.
pub(crate) fn number_arg(args: &Value, key: &str) -> Option<f64> {
    args.get(key).and_then(Value::as_f64)
}

/// The result of a listing tool before it becomes a [`rho_agent::ToolOutput`].
pub(crate) struct Listing {
    /// The text for the model.
    pub text: String,
    /// `details`, or `None` when Pi leaves them undefined.
    pub details: Option<Value>,
}

/// Cuts `lines` to 50 KB and appends the notices, as Pi's grep/find/ls do.
///
/// `limit_notice` is `(details key, limit, notice text)` when the tool's count limit was hit;
/// `extra` are notices (with their details entry) that follow the byte-limit notice.
pub(crate) fn finish(
    lines: &[String],
    limit_notice: Option<(&str, f64, String)>,
    extra: Option<(&str, String)>,
) -> Listing {
    let raw = lines.join("\n");
    let truncation: Truncation = truncate_head(&raw, NO_LINE_LIMIT, DEFAULT_MAX_BYTES);
    let mut text = truncation.content.clone();
    let mut details = Map::new();
    let mut notices = Vec::new();
    if let Some((key, limit, notice)) = limit_notice {
        notices.push(notice);
        details.insert(key.to_owned(), js_number_value(limit));
    }
    if truncation.truncated {
        notices.push(format!("{} limit reached", format_size(DEFAULT_MAX_BYTES)));
        let value = serde_json::to_value(&truncation).unwrap_or(Value::Null);
        details.insert("truncation".to_owned(), value);
    }
    if let Some((key, notice)) = extra {
        notices.push(notice);
        details.insert(key.to_owned(), Value::Bool(true));
    }
    if !notices.is_empty() {
        text.push_str(&format!("\n\n[{}]", notices.join(". ")));
    }
    Listing {
        text,
        details: (!details.is_empty()).then_some(Value::Object(details)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_like_javascript() {
        assert_eq!(js_number(100.0), "100");
        assert_eq!(js_number(2.5), "2.5");
        assert_eq!(js_number_value(200.0), Value::from(200));
        assert_eq!(js_number_value(2.5), serde_json::json!(2.5));
    }
}
