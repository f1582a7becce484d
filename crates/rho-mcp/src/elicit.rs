//! Elicitation: a server asks the user for some values (`elicitation/create`, a form with a
//! JSON Schema). The mode decides who answers: a dialog in the interactive mode, Pi's
//! `extension_ui_request` in RPC, and with nobody to ask, the schema's defaults — accepted when
//! they fill every required field, declined otherwise.

use async_trait::async_trait;
use serde_json::{Map, Value};

/// One question from a server.
#[derive(Clone, Debug, PartialEq)]
pub struct Elicitation {
    /// The configured server name.
    pub server: String,
    /// What the server says it wants.
    pub message: String,
    /// The form: a JSON Schema object of flat properties.
    pub schema: Value,
}

/// The user's answer.
#[derive(Clone, Debug, PartialEq)]
pub enum ElicitationAnswer {
    /// The values given (an object).
    Accept(Value),
    /// The user said no.
    Decline,
    /// The user dismissed the question.
    Cancel,
}

/// Who answers elicitation.
#[async_trait]
pub trait Elicitor: Send + Sync {
    /// Asks the user; waits for the answer.
    async fn elicit(&self, question: Elicitation) -> ElicitationAnswer;
}

/// Nobody to ask: the schema's defaults (SEP-1034).
pub struct Defaults;

#[async_trait]
impl Elicitor for Defaults {
    async fn elicit(&self, question: Elicitation) -> ElicitationAnswer {
        match defaults(&question.schema) {
            Some(values) => ElicitationAnswer::Accept(values),
            None => ElicitationAnswer::Decline,
        }
    }
}

/// The object of every property's `default`, or `None` when a required property has none.
pub fn defaults(schema: &Value) -> Option<Value> {
    let values = defaults_lenient(schema);
    let required = schema.get("required").and_then(Value::as_array);
    let complete = required
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .all(|name| values.contains_key(name));
    complete.then_some(Value::Object(values))
}

/// Fills what `given` lacks with the schema's defaults (a dialog's answer).
pub fn with_defaults(schema: &Value, given: Map<String, Value>) -> Value {
    let mut values = defaults_lenient(schema);
    values.extend(given);
    Value::Object(values)
}

/// Every default, required properties or not.
fn defaults_lenient(schema: &Value) -> Map<String, Value> {
    let mut values = Map::new();
    let properties = schema.get("properties").and_then(Value::as_object);
    for (name, property) in properties.into_iter().flatten() {
        if let Some(default) = property.get("default") {
            values.insert(name.clone(), default.clone());
        }
    }
    values
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn defaults_answer_when_they_fill_every_required_field() {
        let schema = json!({"type": "object", "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "verified": {"type": "boolean", "default": true},
            "note": {"type": "string"}
        }, "required": []});
        assert_eq!(
            defaults(&schema),
            Some(json!({"name": "John Doe", "age": 30, "verified": true}))
        );
        let required = json!({"properties": {"note": {"type": "string"}}, "required": ["note"]});
        assert_eq!(defaults(&required), None);
        let mut given = Map::new();
        given.insert("age".into(), json!(41));
        assert_eq!(
            with_defaults(&schema, given),
            json!({"name": "John Doe", "age": 41, "verified": true})
        );
    }
}
