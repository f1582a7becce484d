//! Validation and coercion of a model's tool-call arguments against the tool's JSON Schema.
//!
//! Mirrors Pi's `validateToolArguments`: the arguments are deep-copied, coerced towards the
//! declared primitive types (TypeBox `Value.Convert` plus Pi's plain-JSON-Schema coercion),
//! validated, and on failure reported with TypeBox 1.x `en_US` messages in Pi's exact layout.

use jsonschema::error::{TypeKind, ValidationError, ValidationErrorKind as K};
use serde_json::{Map, Value};

mod js;
use js::{js_value, parse_js_number, write_js_json};
use rho_stdx::js::{json_number_text as js_number, number_value};

/// Deepest schema nesting followed while coercing; guards against `$ref` cycles.
const MAX_COERCION_DEPTH: usize = 64;
/// TypeBox's text for every error kind it has no wording for.
const UNKNOWN: &str = "an unknown validation error occurred";

/// A tool's parameter schema, compiled once.
#[derive(Debug)]
pub struct ArgumentValidator {
    validator: jsonschema::Validator,
    schema: Value,
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
    /// error, never a panic. Known `format`s are checked (as TypeBox does); unknown ones pass.
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
        let validator = jsonschema::options()
            .should_validate_formats(true)
            .build(schema)
            .map_err(|error| invalid(error.to_string()))?;
        let schema = schema.clone();
        Ok(Self { validator, schema })
    }

    /// Coerces a deep copy of `args` against the schema, validates it, and returns the coerced
    /// copy, or `Err` with Pi's full error text (which echoes the original, uncoerced `args`).
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
        let mut coerced = args.clone();
        coerce(&mut coerced, &self.schema, &self.schema, 0);
        // The fast path: valid arguments cost one pass, errors are collected only on failure.
        if self.validator.is_valid(&coerced) {
            return Ok(coerced);
        }
        let mut entries = Vec::new();
        for error in self.validator.iter_errors(&coerced) {
            self.push_error(&error, &mut entries);
        }
        let lines: Vec<String> = entries.iter().map(Entry::render).collect();
        let body = if lines.is_empty() {
            "Unknown validation error".to_owned()
        } else {
            lines.join("\n")
        };
        let mut shown = String::new();
        write_js_json(received, 0, &mut shown);
        Err(format!(
            "Validation failed for tool \"{tool_name}\":\n{body}\n\nReceived arguments:\n{shown}"
        ))
    }

    /// Turns one jsonschema error into report entries, merging what TypeBox reports as one error:
    /// all missing properties of one `required`, and all invalid names of one `propertyNames`.
    fn push_error(&self, error: &ValidationError<'_>, entries: &mut Vec<Entry>) {
        let base = dotted(error.instance_path().as_str());
        let schema_path = error.schema_path().as_str();
        let is_dependency =
            schema_path.ends_with("/dependentRequired") || schema_path.ends_with("/dependencies");
        let (key, name) = match error.kind() {
            K::Required { property } if !is_dependency => {
                (schema_path.to_owned(), text_of(property))
            }
            K::PropertyNames { error } => (String::new(), text_of(error.instance())),
            kind => {
                let message = self.message(error, kind, entries);
                entries.push(Entry::Line(format!("{}: {message}", or_root(&base))));
                return;
            }
        };
        match entries.last_mut() {
            Some(Entry::Names {
                base: last_base,
                key: last_key,
                names,
            }) if *last_base == base && *last_key == key => {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
            _ => entries.push(Entry::Names {
                base,
                key,
                names: vec![name],
            }),
        }
    }

    /// TypeBox's message for one error; `anyOf`/`oneOf` first push their failed branches' errors.
    fn message(&self, error: &ValidationError<'_>, kind: &K, entries: &mut Vec<Entry>) -> String {
        let schema_path = error.schema_path().as_str();
        let keyword_value = self.schema.pointer(schema_path);
        match kind {
            K::AnyOf { context } | K::OneOfNotValid { context } => {
                for branch_error in context.iter().flatten() {
                    self.push_error(branch_error, entries);
                }
                simple_message(kind)
            }
            K::Required { property } => self.dependency_message(error, &text_of(property)),
            // The schema's own type list keeps its order; a one-element list still reads "either".
            K::Type { kind } => match (keyword_value, kind) {
                (Some(Value::String(name)), _) => format!("must be {name}"),
                (Some(Value::Array(names)), _) => {
                    let names: Vec<&str> = names.iter().filter_map(Value::as_str).collect();
                    format!("must be either {}", names.join(" or "))
                }
                (_, TypeKind::Single(name)) => format!("must be {name}"),
                (_, TypeKind::Multiple(set)) => {
                    let names: Vec<&str> = set.iter().map(|name| name.as_str()).collect();
                    format!("must be either {}", names.join(" or "))
                }
            },
            // jsonschema reports `additionalProperties: false` without `properties` this way.
            K::FalseSchema if ends_in_keyword(schema_path, "additionalProperties") => {
                "must not have additional properties".to_owned()
            }
            K::MultipleOf { .. } => match keyword_value {
                Some(Value::Number(factor)) => format!("must be multiple of {}", js_number(factor)),
                _ => UNKNOWN.to_owned(),
            },
            _ => simple_message(kind),
        }
    }

    /// `dependentRequired`/`dependencies` wording, naming the present property whose dependency
    /// list contains `missing`.
    fn dependency_message(&self, error: &ValidationError<'_>, missing: &str) -> String {
        let rules = self
            .schema
            .pointer(error.schema_path().as_str())
            .and_then(Value::as_object);
        let instance = error.instance();
        let (Some(rules), Some(object)) = (rules, instance.as_object()) else {
            return UNKNOWN.to_owned();
        };
        for (property, dependencies) in rules {
            if let Some(dependencies) = dependencies.as_array()
                && object.contains_key(property)
                && dependencies
                    .iter()
                    .any(|name| name.as_str() == Some(missing))
            {
                let names: Vec<String> = dependencies.iter().map(text_of).collect();
                let names = names.join(", ");
                return format!("must have properties {names} when property {property} is present");
            }
        }
        UNKNOWN.to_owned()
    }
}

/// One line of the report, before its `  - ` prefix.
enum Entry {
    /// A finished `<path>: <message>` line.
    Line(String),
    /// Names collected from consecutive errors: missing properties of the `required` at schema
    /// location `key`, or (with an empty `key`) the invalid property names of an object.
    Names {
        base: String,
        key: String,
        names: Vec<String>,
    },
}

impl Entry {
    fn render(&self) -> String {
        match self {
            Entry::Line(line) => format!("  - {line}"),
            Entry::Names { base, key, names } if key.is_empty() => {
                format!(
                    "  - {}: property names {} are invalid",
                    or_root(base),
                    names.join(", ")
                )
            }
            Entry::Names { base, names, .. } => {
                // Pi appends the first missing property to the object's path.
                let path = match names.first().map(String::as_str) {
                    None | Some("") => or_root(base),
                    Some(first) if base.is_empty() => first.to_owned(),
                    Some(first) => format!("{base}.{first}"),
                };
                format!(
                    "  - {path}: must have required properties {}",
                    names.join(", ")
                )
            }
        }
    }
}

/// TypeBox wording for the error kinds that need nothing but the kind itself.
fn simple_message(kind: &K) -> String {
    match kind {
        K::AdditionalProperties { .. } => "must not have additional properties".to_owned(),
        K::AnyOf { .. } => "must match a schema in anyOf".to_owned(),
        K::OneOfNotValid { .. } | K::OneOfMultipleValid { .. } => {
            "must match exactly one schema in oneOf".to_owned()
        }
        K::FalseSchema => "schema is false".to_owned(),
        K::Constant { .. } => "must be equal to constant".to_owned(),
        K::Contains => "must contain at least 1 valid item".to_owned(),
        K::Enum { .. } => "must be equal to one of the allowed values".to_owned(),
        K::Not { .. } => "must not be valid".to_owned(),
        K::UnevaluatedItems { .. } => "must not have unevaluated items".to_owned(),
        K::UnevaluatedProperties { .. } => "must not have unevaluated properties".to_owned(),
        K::UniqueItems => "must not have duplicate items".to_owned(),
        K::ExclusiveMaximum { limit } => format!("must be < {}", js_value(limit)),
        K::ExclusiveMinimum { limit } => format!("must be > {}", js_value(limit)),
        K::Maximum { limit } => format!("must be <= {}", js_value(limit)),
        K::Minimum { limit } => format!("must be >= {}", js_value(limit)),
        K::Format { format } => format!("must match format \"{format}\""),
        K::Pattern { pattern } => format!("must match pattern \"{pattern}\""),
        K::MaxItems { limit } => format!("must not have more than {limit} items"),
        K::MaxLength { limit } => format!("must not have more than {limit} characters"),
        K::MaxProperties { limit } => format!("must not have more than {limit} properties"),
        K::MinItems { limit } => format!("must not have fewer than {limit} items"),
        K::MinLength { limit } => format!("must not have fewer than {limit} characters"),
        K::MinProperties { limit } => format!("must not have fewer than {limit} properties"),
        _ => UNKNOWN.to_owned(),
    }
}

/// Whether a schema location ends in the keyword `keyword`, not in a property of that name.
fn ends_in_keyword(schema_path: &str, keyword: &str) -> bool {
    /// Keywords whose next segment is a name or an index rather than a keyword.
    const NAMING: &str = "properties patternProperties $defs definitions dependentSchemas \
                          dependencies allOf anyOf oneOf prefixItems";
    let segments: Vec<&str> = schema_path.split('/').skip(1).collect();
    let (mut at_keyword, mut last_was_keyword) = (true, false);
    for (position, segment) in segments.iter().enumerate() {
        last_was_keyword = at_keyword;
        let index_follows = segments
            .get(position + 1)
            .is_some_and(|next| !next.is_empty() && next.bytes().all(|b| b.is_ascii_digit()));
        let naming = NAMING.split_whitespace().any(|name| name == *segment);
        at_keyword = !at_keyword || !(naming || (*segment == "items" && index_follows));
    }
    last_was_keyword && segments.last() == Some(&keyword)
}

/// A JSON pointer as Pi prints it: leading `/` dropped, the others turned into `.`.
fn dotted(pointer: &str) -> String {
    pointer
        .strip_prefix('/')
        .unwrap_or(pointer)
        .replace('/', ".")
}

fn or_root(path: &str) -> String {
    if path.is_empty() { "root" } else { path }.to_owned()
}

/// A string's text, or any other value's JSON.
fn text_of(value: &Value) -> String {
    value
        .as_str()
        .map_or_else(|| value.to_string(), str::to_owned)
}

// ---------------------------------------------------------------------------------------------
// Coercion
// ---------------------------------------------------------------------------------------------

/// Coerces `value` in place towards `schema`'s declared types, recursing into members and items.
fn coerce(value: &mut Value, schema: &Value, root: &Value, depth: usize) {
    let Some(schema) = schema.as_object().filter(|_| depth <= MAX_COERCION_DEPTH) else {
        return;
    };
    let reference = schema.get("$ref").and_then(Value::as_str);
    if let Some(target) = reference
        .and_then(|r| r.strip_prefix('#'))
        .and_then(|p| root.pointer(p))
    {
        coerce(value, target, root, depth + 1);
    }
    if let Some(Value::Array(parts)) = schema.get("allOf") {
        for part in parts {
            coerce(value, part, root, depth + 1);
        }
    }
    for keyword in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = schema.get(keyword) {
            coerce_union(value, branches, root, depth + 1);
        }
    }
    let types = declared_types(schema);
    // Only a value of none of the declared types converts; the first type it converts to wins.
    if !types.iter().any(|name| has_type(value, name))
        && let Some(converted) = types.iter().find_map(|name| convert(value, name))
    {
        *value = converted;
    }
    match value {
        Value::Object(members) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            let additional = schema.get("additionalProperties").filter(|s| s.is_object());
            for (key, member) in members.iter_mut() {
                if let Some(sub) = properties.and_then(|p| p.get(key)).or(additional) {
                    coerce(member, sub, root, depth + 1);
                }
            }
        }
        Value::Array(items) => {
            let prefix = schema.get("prefixItems").or_else(|| schema.get("items"));
            let prefix = prefix
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice);
            let rest = schema.get("items").filter(|items| items.is_object());
            for (index, item) in items.iter_mut().enumerate() {
                if let Some(sub) = prefix.get(index).or(rest) {
                    coerce(item, sub, root, depth + 1);
                }
            }
        }
        _ => {}
    }
}

/// Leaves a value some branch already accepts; otherwise takes the first branch it converts to.
fn coerce_union(value: &mut Value, branches: &[Value], root: &Value, depth: usize) {
    if branches.iter().any(|branch| accepts(branch, value)) {
        return;
    }
    for branch in branches {
        let mut candidate = value.clone();
        coerce(&mut candidate, branch, root, depth);
        if accepts(branch, &candidate) {
            *value = candidate;
            return;
        }
    }
}

/// Whether `branch` plausibly accepts `value`, judged by its `type`, `const` and `enum`.
fn accepts(branch: &Value, value: &Value) -> bool {
    let Some(schema) = branch.as_object() else {
        return branch.as_bool() != Some(false);
    };
    let types = declared_types(schema);
    (types.is_empty() || types.iter().any(|name| has_type(value, name)))
        && schema.get("const").is_none_or(|constant| constant == value)
        && schema
            .get("enum")
            .and_then(Value::as_array)
            .is_none_or(|options| options.contains(value))
}

fn declared_types(schema: &Map<String, Value>) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(name)) => vec![name.as_str()],
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn has_type(value: &Value, name: &str) -> bool {
    match name {
        "null" => value.is_null(),
        "boolean" => value.is_boolean(),
        "string" => value.is_string(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "number" => value.is_number(),
        "integer" => value.as_f64().is_some_and(|x| x.fract() == 0.0),
        _ => false,
    }
}

/// The value converted to the primitive type `name`, or `None` when it does not convert.
fn convert(value: &Value, name: &str) -> Option<Value> {
    let integral = name == "integer";
    match (name, value) {
        ("number" | "integer", Value::Null) => Some(Value::from(0)),
        ("number" | "integer", Value::Bool(flag)) => Some(Value::from(u8::from(*flag))),
        ("number" | "integer", Value::String(text)) => parse_js_number(text)
            .filter(|x| x.is_finite() && (!integral || x.fract() == 0.0))
            .map(number_value),
        ("boolean", Value::Null) => Some(Value::Bool(false)),
        ("boolean", Value::String(text)) => match text.as_str() {
            "true" | "1" => Some(Value::Bool(true)),
            "false" | "0" => Some(Value::Bool(false)),
            _ => None,
        },
        ("boolean", Value::Number(number)) => match number.as_f64() {
            Some(1.0) => Some(Value::Bool(true)),
            Some(0.0) => Some(Value::Bool(false)),
            _ => None,
        },
        ("string", Value::Null) => Some(Value::String(String::new())),
        ("string", Value::Number(number)) => Some(Value::String(js_number(number))),
        ("string", Value::Bool(flag)) => Some(Value::String(flag.to_string())),
        ("null", Value::Bool(false)) => Some(Value::Null),
        ("null", Value::String(text)) if text.is_empty() => Some(Value::Null),
        ("null", Value::Number(number)) if number.as_f64() == Some(0.0) => Some(Value::Null),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
