//! Validation and coercion of a model's tool-call arguments against the tool's JSON Schema.
//!
//! Mirrors Pi 1.6's `validateToolArguments` (pi-ai over pi-schema): the arguments are coerced
//! (`coerce`: optional nulls dropped, TypeBox's `Value.Convert` rules, Ajv-style primitive
//! coercion), checked (`schema`), and on failure explained in pi-schema's words (`explain`), one
//! `  - <dotted path>: <message>` line per failing keyword, in Pi's exact layout.

use serde_json::Value;

mod coerce;
mod explain;
mod js;
mod schema;

use js::write_js_json;
use schema::Doc;

/// A tool's parameter schema, compiled once.
#[derive(Debug)]
pub struct ArgumentValidator {
    doc: Doc,
}

/// A tool's parameter schema that cannot be compiled.
#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    /// The schema is not valid JSON Schema, or is neither an object nor a boolean.
    #[error("invalid parameter schema for tool \"{tool}\": {reason}")]
    Invalid {
        /// The tool whose schema was rejected.
        tool: String,
        /// Why the schema was rejected.
        reason: String,
    },
}

impl ArgumentValidator {
    /// Compiles `schema`; a schema that is not valid JSON Schema (or not an object/bool) is an
    /// error, never a panic.
    pub fn compile(tool_name: &str, schema: &Value) -> Result<Self, SchemaError> {
        let invalid = |reason: String| SchemaError::Invalid {
            tool: tool_name.to_owned(),
            reason,
        };
        if !schema.is_object() && !schema.is_boolean() {
            return Err(invalid(
                "a schema must be an object or a boolean".to_owned(),
            ));
        }
        // Checked against the meta-schema only: the check, the coercion and the explanation all
        // run on `Doc`, pi-schema's reading of the schema, where a `$ref` that names nothing
        // rejects only the values at its place (pi-ai's `unresolvedRefs: "reject"`).
        jsonschema::meta::validate(schema).map_err(|error| invalid(error.to_string()))?;
        Ok(Self {
            doc: Doc::new(schema.clone()),
        })
    }

    /// Coerces a copy of `args` against the schema, checks it, and returns the coerced copy, or
    /// `Err` with Pi's full error text (which echoes the original, uncoerced `args`).
    pub fn validate(&self, tool_name: &str, args: &Value) -> Result<Value, String> {
        self.validate_reporting(tool_name, args, args)
    }

    /// As [`validate`](Self::validate), but the error text echoes `received` — the model's
    /// original arguments when a `prepare_arguments` shim reshaped them into `args`.
    pub fn validate_reporting(
        &self,
        tool_name: &str,
        args: &Value,
        received: &Value,
    ) -> Result<Value, String> {
        let coerced = coerce::coerce(&self.doc, args);
        if self.doc.check(&self.doc.root, &coerced) {
            return Ok(coerced);
        }
        let lines: Vec<String> = explain::failures(&self.doc, &coerced)
            .into_iter()
            .map(|failure| format!("  - {}: {}", dotted(&failure.path), failure.message))
            .collect();
        let mut shown = String::new();
        write_js_json(received, 0, &mut shown);
        Err(format!(
            "Validation failed for tool \"{tool_name}\":\n{}\n\nReceived arguments:\n{shown}",
            lines.join("\n")
        ))
    }
}

/// A JSON pointer as the dotted path Pi prints: `/edits/0/oldText` → `edits.0.oldText`,
/// `~1` → `/`, `~0` → `~`, and the whole value is `root`.
fn dotted(pointer: &str) -> String {
    if pointer.is_empty() {
        return "root".to_owned();
    }
    let segments = pointer.strip_prefix('/').unwrap_or(pointer).split('/');
    segments
        .map(|segment| segment.replace("~1", "/").replace("~0", "~"))
        .collect::<Vec<_>>()
        .join(".")
}

#[cfg(test)]
mod tests;
