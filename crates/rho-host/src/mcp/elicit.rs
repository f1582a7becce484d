//! A server's elicitation answered through dialogs (the interactive mode's, or an RPC client's
//! `extension_ui_request`s): first whether to answer at all, then one question per field of
//! the server's form — a choice for enums and booleans, a line of text for strings and
//! numbers (empty keeps the default). Declining the first question declines; dismissing any
//! question cancels.

use std::sync::Arc;

use async_trait::async_trait;
use rho_mcp::elicit::with_defaults;
use rho_mcp::{Elicitation, ElicitationAnswer, Elicitor};
use serde_json::{Map, Value};

use crate::ui::{HostUi, NoticeLevel};

/// How many times a field is asked again after an answer that does not fit it.
const ATTEMPTS: usize = 3;

/// Elicitation answered by the user through `ui`.
pub struct DialogElicitor {
    ui: Arc<dyn HostUi>,
}

impl DialogElicitor {
    /// Asks through `ui`.
    pub fn new(ui: Arc<dyn HostUi>) -> DialogElicitor {
        DialogElicitor { ui }
    }
}

/// What was asked for one field, and how to read the answer.
enum Field {
    Choice(Vec<(String, Value)>),
    Text { kind: TextKind, placeholder: String },
    Many(Vec<String>),
}

#[derive(Clone, Copy)]
enum TextKind {
    String,
    Number,
    Integer,
}

#[async_trait]
impl Elicitor for DialogElicitor {
    async fn elicit(&self, question: Elicitation) -> ElicitationAnswer {
        let title = format!("MCP server \"{}\" asks for information", question.server);
        match self.ui.confirm(&title, &question.message).await {
            Some(true) => {}
            Some(false) => return ElicitationAnswer::Decline,
            None => return ElicitationAnswer::Cancel,
        }
        let required: Vec<&str> = question
            .schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let properties = question
            .schema
            .get("properties")
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        let mut given = Map::new();
        for (name, property) in &properties {
            let optional = !required.contains(&name.as_str());
            match self.ask(name, property, optional).await {
                Asked::Value(value) => {
                    given.insert(name.clone(), value);
                }
                Asked::Skipped => {}
                Asked::Dismissed => return ElicitationAnswer::Cancel,
            }
        }
        ElicitationAnswer::Accept(with_defaults(&question.schema, given))
    }
}

enum Asked {
    Value(Value),
    Skipped,
    Dismissed,
}

impl DialogElicitor {
    async fn ask(&self, name: &str, property: &Value, optional: bool) -> Asked {
        let label = property
            .get("title")
            .and_then(Value::as_str)
            .unwrap_or(name);
        let description = property
            .get("description")
            .and_then(Value::as_str)
            .map(|d| format!(": {d}"))
            .unwrap_or_default();
        let marker = if optional { " (optional)" } else { "" };
        let title = format!("{label}{marker}{description}");
        let default = property.get("default");
        match field(property) {
            Field::Choice(options) => {
                let labels: Vec<String> = options.iter().map(|(label, _)| label.clone()).collect();
                let Some(choice) = self.ui.select(&title, &labels).await else {
                    return Asked::Dismissed;
                };
                options
                    .into_iter()
                    .find(|(label, _)| *label == choice)
                    .map_or(Asked::Dismissed, |(_, value)| Asked::Value(value))
            }
            Field::Text { kind, placeholder } => {
                for _ in 0..ATTEMPTS {
                    let Some(typed) = self.ui.input(&title, &placeholder).await else {
                        return Asked::Dismissed;
                    };
                    let typed = typed.trim();
                    if typed.is_empty() && (optional || default.is_some()) {
                        return Asked::Skipped;
                    }
                    match read_text(typed, kind) {
                        Some(value) => return Asked::Value(value),
                        None => self.ui.notify(
                            &format!("\"{typed}\" is not a valid {label}."),
                            NoticeLevel::Warning,
                        ),
                    }
                }
                Asked::Dismissed
            }
            Field::Many(options) => {
                let placeholder = format!("some of: {}", options.join(", "));
                for _ in 0..ATTEMPTS {
                    let Some(typed) = self.ui.input(&title, &placeholder).await else {
                        return Asked::Dismissed;
                    };
                    let picked: Vec<String> = typed
                        .split(',')
                        .map(|item| item.trim().to_owned())
                        .filter(|item| !item.is_empty())
                        .collect();
                    if picked.is_empty() && (optional || default.is_some()) {
                        return Asked::Skipped;
                    }
                    if picked.iter().all(|item| options.contains(item)) {
                        return Asked::Value(picked.into());
                    }
                    self.ui.notify(
                        &format!("Choose among: {}.", options.join(", ")),
                        NoticeLevel::Warning,
                    );
                }
                Asked::Dismissed
            }
        }
    }
}

/// How a property of the form is asked.
fn field(property: &Value) -> Field {
    let strings = |values: &Value| -> Vec<String> {
        values
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect()
    };
    if let Some(values) = property.get("enum") {
        let names = property.get("enumNames").map(strings).unwrap_or_default();
        let options = strings(values)
            .into_iter()
            .enumerate()
            .map(|(i, value)| {
                (
                    names.get(i).cloned().unwrap_or_else(|| value.clone()),
                    value.into(),
                )
            })
            .collect();
        return Field::Choice(options);
    }
    if let Some(Value::Array(variants)) = property.get("oneOf").or_else(|| property.get("anyOf")) {
        let options = variants
            .iter()
            .filter_map(|variant| {
                let value = variant.get("const")?.clone();
                let label = variant
                    .get("title")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .unwrap_or_else(|| {
                        value
                            .as_str()
                            .map_or_else(|| value.to_string(), str::to_owned)
                    });
                Some((label, value))
            })
            .collect();
        return Field::Choice(options);
    }
    let default = property.get("default");
    match property.get("type").and_then(Value::as_str) {
        Some("boolean") => {
            let yes = ("yes".to_owned(), Value::Bool(true));
            let no = ("no".to_owned(), Value::Bool(false));
            // The default first, so accepting the first option keeps it.
            Field::Choice(if default == Some(&Value::Bool(false)) {
                vec![no, yes]
            } else {
                vec![yes, no]
            })
        }
        Some("array") => {
            let items = property.get("items");
            let from_enum = items.and_then(|i| i.get("enum")).map(strings);
            let from_variants = items
                .and_then(|i| i.get("anyOf").or_else(|| i.get("oneOf")))
                .and_then(Value::as_array)
                .map(|variants| {
                    variants
                        .iter()
                        .filter_map(|v| v.get("const").and_then(Value::as_str).map(str::to_owned))
                        .collect()
                });
            Field::Many(from_enum.or(from_variants).unwrap_or_default())
        }
        kind => {
            let kind = match kind {
                Some("number") => TextKind::Number,
                Some("integer") => TextKind::Integer,
                _ => TextKind::String,
            };
            let placeholder = match default {
                Some(Value::String(text)) => text.clone(),
                Some(other) => other.to_string(),
                None => String::new(),
            };
            Field::Text { kind, placeholder }
        }
    }
}

/// The typed text as the field's JSON type, or `None` when it is not one.
fn read_text(typed: &str, kind: TextKind) -> Option<Value> {
    match kind {
        TextKind::String => Some(typed.into()),
        TextKind::Integer => typed.parse::<i64>().ok().map(Value::from),
        TextKind::Number => typed
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number),
    }
}
