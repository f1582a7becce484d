//! The `errorMessage` of an HTTP error response as Pi 1.6 words it for the OpenAI APIs: the
//! OpenAI SDK's own text (`"<status> <error.message>"`), then Pi's `formatProviderError`
//! (pi-ai `utils/error-body.js`), which prefers the body's `error` object, as JSON, to the SDK's
//! summary of it: `529: {"type":"overloaded_error","message":"Overloaded"}` on Chat Completions,
//! `OpenAI API error (529): {…}` on Responses.

use rho_stdx::js::json_number_text;
use serde_json::Value;

/// Pi's cap on the body quoted in an `errorMessage` (`MAX_PROVIDER_ERROR_BODY_CHARS`), in
/// JavaScript string units (UTF-16).
const MAX_BODY_CHARS: usize = 4000;

/// An HTTP error response as the OpenAI SDK's `APIError` holds it.
#[derive(Debug)]
pub struct SdkHttpError {
    /// The HTTP status.
    status: u16,
    /// The SDK's message (`APIError.makeMessage`).
    message: String,
    /// The body's `error` member (the SDK's `error.error`), when the body is JSON.
    error: Option<Value>,
}

/// JavaScript's `String()` of a parsed JSON value (an object prints as `[object Object]`).
pub(crate) fn js_string(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Object(_) => "[object Object]".to_owned(),
        Value::Array(items) => items
            .iter()
            .map(|item| {
                if item.is_null() {
                    String::new()
                } else {
                    js_string(item)
                }
            })
            .collect::<Vec<_>>()
            .join(","),
        other => js_stringify(other),
    }
}

/// JavaScript's truthiness of a JSON value.
pub(crate) fn truthy(value: &Value) -> bool {
    match value {
        Value::Null | Value::Bool(false) => false,
        Value::String(text) => !text.is_empty(),
        Value::Number(number) => number.as_f64().is_some_and(|x| x != 0.0),
        _ => true,
    }
}

impl SdkHttpError {
    /// The error the SDK makes of a response with `status` and `body`.
    pub fn parse(status: u16, body: &str) -> Self {
        let text = body.trim();
        // The SDK's `safeJSON`: a body that parses to a falsy value counts as text.
        let json = serde_json::from_str::<Value>(text).ok().filter(truthy);
        let error = json
            .as_ref()
            .and_then(|json| json.get("error"))
            .cloned()
            .filter(truthy);
        let detail = match &error {
            Some(error) => match error.get("message").filter(|m| truthy(m)) {
                Some(Value::String(text)) => text.clone(),
                Some(other) => js_stringify(other),
                None => js_stringify(error),
            },
            None if json.is_none() => text.to_owned(),
            None => String::new(),
        };
        let message = if detail.is_empty() {
            format!("{status} status code (no body)")
        } else {
            format!("{status} {detail}")
        };
        SdkHttpError {
            status,
            message,
            error,
        }
    }

    /// The SDK's own message, `"<status> <error.message>"` (what Pi's provider-level retry quotes).
    pub fn sdk_message(&self) -> &str {
        &self.message
    }

    /// The body Pi quotes: the `error` object as JSON when it is a non-empty object, truncated.
    fn quoted_body(&self) -> Option<String> {
        let error = self.error.as_ref()?.as_object().filter(|e| !e.is_empty())?;
        let text = js_stringify(&Value::Object(error.clone()));
        let text = text.trim();
        (!text.is_empty()).then(|| truncate_error_text(text, MAX_BODY_CHARS))
    }

    /// Pi's `formatProviderError`: the body's error object after the status (`"<status>: <body>"`,
    /// or `"<prefix> (<status>): <body>"`), unless the SDK's message already carries it.
    pub fn display(&self, prefix: Option<&str>) -> String {
        let status = self.status;
        match (self.quoted_body(), prefix) {
            (Some(body), Some(prefix)) if !self.message.contains(&body) => {
                format!("{prefix} ({status}): {body}")
            }
            (Some(body), None) if !self.message.contains(&body) => format!("{status}: {body}"),
            (_, Some(prefix)) => format!("{prefix} ({status}): {}", self.message),
            (_, None) => self.message.clone(),
        }
    }

    /// OpenRouter's upstream detail, `error.metadata.raw`, as JavaScript's `String()` prints it,
    /// when it is truthy.
    pub fn raw_metadata(&self) -> Option<String> {
        let raw = self.error.as_ref()?.pointer("/metadata/raw")?;
        truthy(raw).then(|| js_string(raw))
    }
}

/// Appends OpenRouter's `metadata.raw` on a new line unless the text already holds it (Pi's
/// Chat Completions provider does this for every failure).
pub fn with_raw_metadata(mut text: String, raw: Option<String>) -> String {
    if let Some(raw) = raw.filter(|raw| !text.contains(raw.as_str())) {
        text.push('\n');
        text.push_str(&raw);
    }
    text
}

/// Pi's `truncateErrorText`: the first `max` UTF-16 units, then `... [truncated N chars]`.
fn truncate_error_text(text: &str, max: usize) -> String {
    let total: usize = text.chars().map(char::len_utf16).sum();
    if total <= max {
        return text.to_owned();
    }
    let mut units = 0;
    let mut end = 0;
    for (at, c) in text.char_indices() {
        if units + c.len_utf16() > max {
            break;
        }
        units += c.len_utf16();
        end = at + c.len_utf8();
    }
    format!("{}... [truncated {} chars]", &text[..end], total - max)
}

/// `JSON.stringify` of a parsed JSON value: numbers as JavaScript prints them (`1`, not `1.0`).
pub(crate) fn js_stringify(value: &Value) -> String {
    let mut out = String::new();
    write_js(value, &mut out);
    out
}

fn write_js(value: &Value, out: &mut String) {
    match value {
        Value::Number(number) => out.push_str(&json_number_text(number)),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_js(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_js(item, out);
            }
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chat(status: u16, body: &str) -> String {
        let error = SdkHttpError::parse(status, body);
        with_raw_metadata(error.display(None), error.raw_metadata())
    }

    #[test]
    fn chat_completions_quotes_the_error_object_after_the_status() {
        let texts = [
            chat(
                529,
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
            ),
            chat(
                400,
                r#"{"error":{"message":"bad thing","type":"invalid_request_error"}}"#,
            ),
            chat(
                400,
                r#"{"error":{"code":400,"message":"Provider returned error","metadata":{"raw":"bad"}}}"#,
            ),
            chat(
                400,
                r#"{"error":{"message":"x","metadata":{"raw":{"a":1}}}}"#,
            ),
            // The SDK's text already holds the object: it stays as it is.
            chat(401, r#"{"error":{"code":"invalid_api_key"}}"#),
            chat(500, r#"{"detail":"nope"}"#),
            chat(502, "<html>bad gateway</html>\n"),
            chat(503, ""),
            chat(400, r#"{"error":"plain"}"#),
            chat(400, r#"{"error":{}}"#),
            chat(400, r#"{"error":{"message":"m","n":1.0}}"#),
        ];
        assert_eq!(
            texts,
            [
                r#"529: {"type":"overloaded_error","message":"Overloaded"}"#,
                r#"400: {"message":"bad thing","type":"invalid_request_error"}"#,
                r#"400: {"code":400,"message":"Provider returned error","metadata":{"raw":"bad"}}"#,
                "400: {\"message\":\"x\",\"metadata\":{\"raw\":{\"a\":1}}}\n[object Object]",
                r#"401 {"code":"invalid_api_key"}"#,
                "500 status code (no body)",
                "502 <html>bad gateway</html>",
                "503 status code (no body)",
                r#"400 "plain""#,
                "400 {}",
                r#"400: {"message":"m","n":1}"#,
            ]
        );
    }

    #[test]
    fn responses_put_the_provider_label_and_status_first() {
        let overloaded = SdkHttpError::parse(
            529,
            r#"{"error":{"type":"overloaded_error","message":"Over"}}"#,
        );
        let empty = SdkHttpError::parse(503, "");
        assert_eq!(
            [
                overloaded.display(Some("OpenAI API error")),
                empty.display(Some("mock-responses API error")),
            ],
            [
                r#"OpenAI API error (529): {"type":"overloaded_error","message":"Over"}"#,
                "mock-responses API error (503): 503 status code (no body)",
            ]
        );
        assert_eq!(overloaded.sdk_message(), "529 Over");
    }

    #[test]
    fn a_long_body_is_cut_at_4000_units_and_says_how_much_was_left_out() {
        let long = "é".repeat(4100);
        let body = format!(r#"{{"error":{{"message":"{long}"}}}}"#);
        let text = SdkHttpError::parse(400, &body).display(None);
        // `{"message":"` is 12 units, the closing `"}` 2: 4114 units in all.
        let kept = format!(r#"{{"message":"{}"#, "é".repeat(3988));
        assert_eq!(text, format!("400: {kept}... [truncated 114 chars]"));
    }
}
