//! The GBNF grammar that constrains a tool call: `<tool_call>`, a JSON object naming one of the
//! registered tools, arguments shaped by that tool's JSON Schema, `</tool_call>`.
//!
//! Supported schema parts: object `properties` and `required`, `string` (with `enum`), `number`,
//! `integer`, `boolean`, `array` with `items`, and `enum` of any JSON values. Anything else
//! (`anyOf`, several types, an object without properties, …) accepts any JSON value of the
//! kind allowed, so a schema this builder does not understand never blocks a valid call.

use std::fmt::Write as _;

use rho_ai::ToolSpec;
use serde_json::Value;

/// The text that opens a tool call; in `auto` mode it triggers the grammar.
pub const TOOL_CALL_OPEN: &str = "<tool_call>";
/// The text that closes a tool call.
pub const TOOL_CALL_CLOSE: &str = "</tool_call>";

/// The generic JSON rules every grammar ends with (also the fallback for unsupported schemas). Whitespace is at most one space: a small
/// model left free to emit whitespace can fill its whole budget with it.
pub const JSON_RULES: &str = r#"ws ::= " "?
string ::= "\"" char* "\""
char ::= [^"\\\x7F\x00-\x1F] | "\\" (["\\/bfnrt] | "u" [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F] [0-9a-fA-F])
integer ::= "-"? ([0-9] | [1-9] [0-9]*)
number ::= integer ("." [0-9]+)? ([eE] [-+]? [0-9]+)?
boolean ::= "true" | "false"
value ::= object | array | string | number | boolean | "null"
object ::= "{" ws (string ws ":" ws value (ws "," ws string ws ":" ws value)*)? ws "}"
array ::= "[" ws (value (ws "," ws value)*)? ws "]"
"#;

/// Builds the grammar whose root is exactly one `<tool_call>…</tool_call>` calling one of
/// `tools`. `None` when there are no tools (nothing to call).
pub fn tool_call_grammar(tools: &[ToolSpec]) -> Option<String> {
    if tools.is_empty() {
        return None;
    }
    let mut builder = Builder::default();
    let calls: Vec<String> = tools
        .iter()
        .enumerate()
        .map(|(index, tool)| {
            let args = builder.value(&format!("tool{index}-args"), &tool.parameters, true);
            let rule = format!("tool{index}");
            let body = format!(
                r#""{{" ws "\"name\"" ws ":" ws {} ws "," ws "\"arguments\"" ws ":" ws {args} ws "}}""#,
                literal(&Value::String(tool.name.clone()).to_string())
            );
            builder.rules.push((rule.clone(), body));
            rule
        })
        .collect();
    let mut grammar = format!(
        "root ::= {} \"\\n\" call \"\\n\" {}\ncall ::= {}\n",
        literal(TOOL_CALL_OPEN),
        literal(TOOL_CALL_CLOSE),
        calls.join(" | ")
    );
    for (name, body) in &builder.rules {
        let _ = writeln!(grammar, "{name} ::= {body}");
    }
    grammar.push_str(JSON_RULES);
    Some(grammar)
}

#[derive(Default)]
struct Builder {
    rules: Vec<(String, String)>,
}

impl Builder {
    /// The grammar expression for a value matching `schema`; named rules are added for objects
    /// and arrays. `top` is the arguments object itself, which must be an object.
    fn value(&mut self, name: &str, schema: &Value, top: bool) -> String {
        let fallback = if top { "object" } else { "value" };
        let Some(schema) = schema.as_object() else {
            return fallback.to_owned();
        };
        if let Some(Value::Array(options)) = schema.get("enum") {
            if options.is_empty() {
                return fallback.to_owned();
            }
            let literals: Vec<String> = options.iter().map(|v| literal(&v.to_string())).collect();
            return format!("({})", literals.join(" | "));
        }
        let kind = match schema.get("type") {
            None => None,
            Some(Value::String(kind)) => Some(kind.as_str()),
            // A list of types (`["string", "null"]`) is beyond this builder.
            Some(_) => return fallback.to_owned(),
        };
        match kind {
            Some("string") => "string".to_owned(),
            Some("integer") => "integer".to_owned(),
            Some("number") => "number".to_owned(),
            Some("boolean") => "boolean".to_owned(),
            Some("array") => match schema.get("items") {
                Some(items) => {
                    let item = self.value(&format!("{name}-item"), items, false);
                    let rule = name.to_owned();
                    self.rules.push((
                        rule.clone(),
                        format!(r#""[" ws ({item} (ws "," ws {item})*)? ws "]""#),
                    ));
                    rule
                }
                None => "array".to_owned(),
            },
            Some("object") | None => match schema.get("properties") {
                Some(Value::Object(properties)) if !properties.is_empty() => {
                    self.object(name, properties, schema.get("required"))
                }
                _ if top || schema.get("type").is_some() => "object".to_owned(),
                _ => "value".to_owned(),
            },
            Some(_) => fallback.to_owned(),
        }
    }

    /// An object with the declared properties only: required ones first, in declaration order,
    /// then each optional one at most once, in declaration order.
    fn object(
        &mut self,
        name: &str,
        properties: &serde_json::Map<String, Value>,
        required: Option<&Value>,
    ) -> String {
        let required: Vec<&str> = required
            .and_then(Value::as_array)
            .map(|names| names.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut mandatory = Vec::new();
        let mut optional = Vec::new();
        for (index, (key, schema)) in properties.iter().enumerate() {
            let value = self.value(&format!("{name}-{index}"), schema, false);
            let pair = format!(
                r#"{} ws ":" ws {value}"#,
                literal(&Value::String(key.clone()).to_string())
            );
            if required.contains(&key.as_str()) {
                mandatory.push(pair);
            } else {
                optional.push(pair);
            }
        }
        let more = |pairs: &[String]| -> String {
            pairs
                .iter()
                .map(|pair| format!(r#" (ws "," ws {pair})?"#))
                .collect()
        };
        let inner = if mandatory.is_empty() {
            let starts: Vec<String> = (0..optional.len())
                .map(|first| format!("{}{}", optional[first], more(&optional[first + 1..])))
                .collect();
            format!("({})?", starts.join(" | "))
        } else {
            format!("{}{}", mandatory.join(r#" ws "," ws "#), more(&optional))
        };
        let rule = name.to_owned();
        self.rules
            .push((rule.clone(), format!(r#""{{" ws {inner} ws "}}""#)));
        rule
    }
}

/// `text` as a GBNF string literal.
fn literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\x{:02X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
