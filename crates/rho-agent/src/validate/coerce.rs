//! pi-schema's coercion (`coerce.js`), run before the check, in three passes:
//! 1. a `null` in an optional property whose schema rejects null is dropped, as if omitted;
//! 2. TypeBox 1.3.27's `Value.Convert` rules, keyed on the schema's structure (`null` becomes
//!    `"null"` for a string, `"3.5"` becomes 3 for an integer, a single value becomes a one-item
//!    array, a union takes the first branch whose conversion passes);
//! 3. Ajv-style primitive coercion by `type` (also type arrays) for what pass 2 left.
//!
//! A value that cannot be coerced stays as it is; the check then reports it.

use serde_json::{Map, Value};

use super::js::{js_equal, js_keys, js_number, parse_js_number};
use super::schema::{Doc, MAX_DEPTH, Target, type_list};
use rho_stdx::js::number_value;

/// `value` coerced towards the schema of `doc`.
pub(super) fn coerce(doc: &Doc, value: &Value) -> Value {
    let without_nulls = drop_optional_nulls(doc, value, &doc.root, 0);
    let converted = Convert {
        doc,
        entered: Vec::new(),
    }
    .convert(&doc.root, &without_nulls, 0);
    coerce_types(doc, &converted, &doc.root, 0)
}

// ---------------------------------------------------------------------------------------------
// Pass 1: optional nulls
// ---------------------------------------------------------------------------------------------

fn drop_optional_nulls(doc: &Doc, value: &Value, schema: &Value, depth: usize) -> Value {
    let Some(schema) = schema.as_object().filter(|_| depth <= MAX_DEPTH) else {
        return value.clone();
    };
    let object =
        match value {
            Value::Array(items) => {
                let items = items.iter().enumerate().map(|(index, item)| {
                    match item_schema_at(schema, index) {
                        Some(s) => drop_optional_nulls(doc, item, s, depth + 1),
                        None => item.clone(),
                    }
                });
                return Value::Array(items.collect());
            }
            Value::Object(object) => object,
            other => return other.clone(),
        };
    let declared = schema.get("properties").and_then(Value::as_object);
    let patterns = schema.get("patternProperties").and_then(Value::as_object);
    let additional = schema.get("additionalProperties").filter(|s| s.is_object());
    if patterns.is_none() && additional.is_none() && declared.is_none() {
        return value.clone();
    }
    let empty = Map::new();
    let properties = declared.unwrap_or(&empty);
    let required = required_keys(schema);
    let mut out = object.clone();
    for key in js_keys(properties) {
        let (Some(property), Some(member)) = (properties.get(key), object.get(key)) else {
            continue;
        };
        let is_ref = property.get("$ref").is_some_and(Value::is_string);
        if member.is_null()
            && !required.contains(&key.as_str())
            && !is_ref
            && !doc.check(property, &Value::Null)
        {
            out.shift_remove(key);
            continue;
        }
        out.insert(
            key.clone(),
            drop_optional_nulls(doc, member, property, depth + 1),
        );
    }
    if patterns.is_some() || additional.is_some() {
        for key in js_keys(object) {
            let mut matched = properties.contains_key(key);
            for (pattern, item) in patterns.into_iter().flatten() {
                if !doc.matches(pattern, key) {
                    continue;
                }
                matched = true;
                if let Some(current) = out.get(key).cloned() {
                    out.insert(
                        key.clone(),
                        drop_optional_nulls(doc, &current, item, depth + 1),
                    );
                }
            }
            if let (false, Some(additional), Some(member)) = (matched, additional, object.get(key))
            {
                let next = drop_optional_nulls(doc, member, additional, depth + 1);
                out.insert(key.clone(), next);
            }
        }
    }
    Value::Object(out)
}

fn required_keys(schema: &Map<String, Value>) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

/// The schema of an array's item at `index`: a tuple's for its prefix, else `items`.
fn item_schema_at(schema: &Map<String, Value>, index: usize) -> Option<&Value> {
    match schema.get("items") {
        Some(Value::Array(prefix)) => prefix.get(index),
        items => match schema.get("prefixItems") {
            Some(Value::Array(prefix)) if index < prefix.len() => prefix.get(index),
            _ => items,
        },
    }
}

// ---------------------------------------------------------------------------------------------
// Pass 2: TypeBox's conversion rules
// ---------------------------------------------------------------------------------------------

struct Convert<'a> {
    doc: &'a Doc,
    /// The (schema node, value) pairs being converted through a re-entry point (`$ref`, or a
    /// single value wrapped into an array): meeting one again leaves the value unchanged.
    entered: Vec<(*const Value, Value)>,
}

impl Convert<'_> {
    fn passes(&self, node: &Value, value: &Value) -> bool {
        self.doc.check(node, value)
    }

    fn convert(&mut self, node: &Value, value: &Value, depth: usize) -> Value {
        if !node.is_object() || depth > MAX_DEPTH {
            return value.clone();
        }
        if let Some(Value::String(reference)) = node.get("$ref") {
            return match self.doc.resolve(reference) {
                Target::Found(target) if target.is_object() => self.reenter(target, value, depth),
                _ => value.clone(),
            };
        }
        self.convert_node(node, value, depth)
    }

    fn reenter(&mut self, node: &Value, value: &Value, depth: usize) -> Value {
        let key = node as *const Value;
        if self
            .entered
            .iter()
            .any(|(n, v)| std::ptr::eq(*n, key) && v == value)
        {
            return value.clone();
        }
        self.entered.push((key, value.clone()));
        let result = self.convert(node, value, depth + 1);
        self.entered.pop();
        result
    }

    fn convert_node(&mut self, node: &Value, value: &Value, depth: usize) -> Value {
        let Some(schema) = node.as_object() else {
            return value.clone();
        };
        if let Some(constant) = schema.get("const") {
            return convert_literal(constant, value);
        }
        if let Some(Value::Array(values)) = schema.get("enum") {
            if values.iter().any(|member| js_equal(member, value)) {
                return value.clone();
            }
            for member in values {
                let candidate = convert_literal(member, value);
                if !js_equal(&candidate, value) && self.passes(node, &candidate) {
                    return candidate;
                }
            }
            return value.clone();
        }
        for keyword in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = schema.get(keyword) {
                return self.convert_union(node, branches, value, depth);
            }
        }
        if let Some(Value::Array(parts)) = schema.get("allOf") {
            let mut next = value.clone();
            for part in parts {
                next = self.convert(part, &next, depth + 1);
            }
            return self.convert_members(schema, &next, depth);
        }
        let converted = match schema.get("type") {
            Some(Value::String(name)) => match name.as_str() {
                "string" => try_string(value),
                "number" => try_number(value).map(number_value),
                "integer" => try_number(value).map(|x| number_value(x.trunc())),
                "boolean" => try_boolean(value).map(Value::Bool),
                "null" => try_null(value).then_some(Value::Null),
                "array" => Some(self.convert_array(schema, value, depth)),
                "object" => Some(self.convert_object(schema, value, depth)),
                _ => None,
            },
            None if schema.contains_key("properties")
                || schema.contains_key("patternProperties") =>
            {
                Some(self.convert_object(schema, value, depth))
            }
            None if schema.contains_key("items") || schema.contains_key("prefixItems") => {
                Some(self.convert_array(schema, value, depth))
            }
            _ => None,
        };
        converted.unwrap_or_else(|| value.clone())
    }

    /// A value one branch accepts stays; else the first branch's conversion the whole union accepts.
    fn convert_union(
        &mut self,
        node: &Value,
        branches: &[Value],
        value: &Value,
        depth: usize,
    ) -> Value {
        let Some(schema) = node.as_object() else {
            return value.clone();
        };
        if branches.iter().any(|branch| self.passes(branch, value)) {
            return self.convert_members(schema, value, depth);
        }
        for branch in branches {
            let converted = self.convert(branch, value, depth + 1);
            let candidate = self.convert_members(schema, &converted, depth);
            if self.passes(node, &candidate) {
                return candidate;
            }
        }
        self.convert_members(schema, value, depth)
    }

    fn convert_members(
        &mut self,
        schema: &Map<String, Value>,
        value: &Value,
        depth: usize,
    ) -> Value {
        let declares = ["properties", "patternProperties", "additionalProperties"]
            .iter()
            .any(|keyword| schema.contains_key(*keyword));
        if declares {
            self.convert_object(schema, value, depth)
        } else {
            value.clone()
        }
    }

    fn convert_array(&mut self, schema: &Map<String, Value>, value: &Value, depth: usize) -> Value {
        let prefix = match (schema.get("items"), schema.get("prefixItems")) {
            (Some(Value::Array(prefix)), _) | (_, Some(Value::Array(prefix))) => Some(prefix),
            _ => None,
        };
        let items = schema.get("items");
        if let Some(prefix) = prefix {
            // A tuple converts its items and never wraps a single value.
            let Value::Array(list) = value else {
                return value.clone();
            };
            let rest = items.filter(|items| !items.is_array());
            let converted =
                list.iter()
                    .enumerate()
                    .map(|(index, item)| match prefix.get(index).or(rest) {
                        Some(s) => self.convert(s, item, depth + 1),
                        None => item.clone(),
                    });
            return Value::Array(converted.collect());
        }
        match (value, items) {
            (Value::Array(_), None) => value.clone(),
            (Value::Array(list), Some(s)) => Value::Array(
                list.iter()
                    .map(|item| self.convert(s, item, depth + 1))
                    .collect(),
            ),
            (single, Some(s)) if s.is_object() => {
                Value::Array(vec![self.reenter(s, single, depth)])
            }
            (single, _) => Value::Array(vec![single.clone()]),
        }
    }

    fn convert_object(
        &mut self,
        schema: &Map<String, Value>,
        value: &Value,
        depth: usize,
    ) -> Value {
        let Value::Object(object) = value else {
            return value.clone();
        };
        let properties = schema.get("properties").and_then(Value::as_object);
        let patterns = schema.get("patternProperties").and_then(Value::as_object);
        let additional = schema.get("additionalProperties").filter(|s| s.is_object());
        let mut out = object.clone();
        for key in js_keys(object) {
            let Some(mut next) = object.get(key).cloned() else {
                continue;
            };
            let declared = properties.and_then(|p| p.get(key));
            let mut matched = declared.is_some();
            if let Some(s) = declared {
                next = self.convert(s, &next, depth + 1);
            }
            for (pattern, s) in patterns.into_iter().flatten() {
                if self.doc.matches(pattern, key) {
                    matched = true;
                    next = self.convert(s, &next, depth + 1);
                }
            }
            if let (false, Some(s)) = (matched, additional) {
                next = self.convert(s, &next, depth + 1);
            }
            out.insert(key.clone(), next);
        }
        Value::Object(out)
    }
}

/// A literal (`const`, an enum value) taken from a value of another type that converts to it.
fn convert_literal(literal: &Value, value: &Value) -> Value {
    if js_equal(literal, value) {
        return value.clone();
    }
    let converted = match literal {
        Value::String(_) => try_string(value),
        Value::Number(_) => try_number(value).map(number_value),
        Value::Bool(_) => try_boolean(value).map(Value::Bool),
        _ => None,
    };
    match converted {
        Some(converted) if js_equal(&converted, literal) => converted,
        _ => value.clone(),
    }
}

fn try_string(value: &Value) -> Option<Value> {
    let text = match value {
        Value::Bool(flag) => flag.to_string(),
        Value::Number(number) => js_number(number.as_f64()?),
        Value::Null => "null".to_owned(),
        Value::String(text) => text.clone(),
        _ => return None,
    };
    Some(Value::String(text))
}

fn try_number(value: &Value) -> Option<f64> {
    match value {
        Value::Bool(flag) => Some(f64::from(u8::from(*flag))),
        Value::Number(number) => number.as_f64(),
        Value::Null => Some(0.0),
        Value::String(text) => {
            if let Some(x) = js_unary_plus(text).filter(|x| x.is_finite()) {
                return Some(x);
            }
            match text.to_lowercase().as_str() {
                "false" => Some(0.0),
                "true" => Some(1.0),
                _ => big_int_text(text),
            }
        }
        _ => None,
    }
}

/// JavaScript's `+text`: blank text is 0.
fn js_unary_plus(text: &str) -> Option<f64> {
    if text
        .trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}')
        .is_empty()
    {
        return Some(0.0);
    }
    parse_js_number(text)
}

/// TypeBox's bigint text `12n`, as a safe integer.
fn big_int_text(text: &str) -> Option<f64> {
    let digits = text.strip_suffix('n')?;
    let unsigned = digits.strip_prefix('-').unwrap_or(digits);
    let canonical = !unsigned.is_empty()
        && unsigned.bytes().all(|b| b.is_ascii_digit())
        && (unsigned == "0" || !unsigned.starts_with('0'));
    let x: f64 = digits.parse().ok().filter(|_| canonical)?;
    (x.abs() <= 9_007_199_254_740_991.0).then_some(x)
}

fn try_boolean(value: &Value) -> Option<bool> {
    match value {
        Value::Bool(flag) => Some(*flag),
        Value::Number(number) => match number.as_f64() {
            Some(0.0) => Some(false),
            Some(1.0) => Some(true),
            _ => None,
        },
        Value::Null => Some(false),
        Value::String(text) => match text.to_lowercase().as_str() {
            "false" | "0" => Some(false),
            "true" | "1" => Some(true),
            _ => None,
        },
        _ => None,
    }
}

fn try_null(value: &Value) -> bool {
    match value {
        Value::Bool(flag) => !flag,
        Value::Number(number) => number.as_f64() == Some(0.0),
        Value::Null => true,
        Value::String(text) => {
            matches!(
                text.to_lowercase().as_str(),
                "undefined" | "null" | "" | "0"
            )
        }
        _ => false,
    }
}

// ---------------------------------------------------------------------------------------------
// Pass 3: primitive coercion by type
// ---------------------------------------------------------------------------------------------

fn coerce_types(doc: &Doc, value: &Value, schema: &Value, depth: usize) -> Value {
    let Some(map) = schema.as_object().filter(|_| depth <= MAX_DEPTH) else {
        return value.clone();
    };
    let mut next = value.clone();
    for part in map
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        next = coerce_types(doc, &next, part, depth + 1);
    }
    for keyword in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = map.get(keyword) {
            next = coerce_union(doc, &next, branches, depth);
        }
    }
    let types: Vec<&str> = map
        .get("type")
        .map(type_list)
        .unwrap_or_default()
        .into_iter()
        .filter_map(Value::as_str)
        .collect();
    let matches_member = types.len() > 1 && types.iter().any(|t| matches_type(&next, t));
    if !matches_member
        && let Some(candidate) = types.iter().find_map(|t| coerce_primitive(&next, t))
    {
        next = candidate;
    }
    if types.contains(&"object") && next.is_object() {
        next = coerce_properties(doc, &next, map, depth);
    }
    if types.contains(&"array")
        && let Value::Array(items) = &next
    {
        let items = items.iter().enumerate().map(|(index, item)| {
            match item_schema_at(map, index).filter(|s| s.is_object()) {
                Some(s) => coerce_types(doc, item, s, depth + 1),
                None => item.clone(),
            }
        });
        next = Value::Array(items.collect());
    }
    next
}

fn coerce_union(doc: &Doc, value: &Value, branches: &[Value], depth: usize) -> Value {
    if branches.iter().any(|branch| doc.check(branch, value)) {
        return value.clone();
    }
    for branch in branches {
        let coerced = coerce_types(doc, value, branch, depth + 1);
        if doc.check(branch, &coerced) {
            return coerced;
        }
    }
    value.clone()
}

fn coerce_properties(doc: &Doc, value: &Value, schema: &Map<String, Value>, depth: usize) -> Value {
    let Value::Object(object) = value else {
        return value.clone();
    };
    let properties = schema.get("properties").and_then(Value::as_object);
    let patterns = schema.get("patternProperties").and_then(Value::as_object);
    let additional = schema.get("additionalProperties").filter(|s| s.is_object());
    let mut out = object.clone();
    for key in properties.map(js_keys).unwrap_or_default() {
        if let (Some(property), Some(member)) =
            (properties.and_then(|p| p.get(key)), object.get(key))
        {
            out.insert(key.clone(), coerce_types(doc, member, property, depth + 1));
        }
    }
    for key in js_keys(object) {
        let mut matched = properties.is_some_and(|p| p.contains_key(key));
        for (pattern, item) in patterns.into_iter().flatten() {
            if !doc.matches(pattern, key) {
                continue;
            }
            matched = true;
            if let Some(current) = out.get(key).cloned() {
                out.insert(key.clone(), coerce_types(doc, &current, item, depth + 1));
            }
        }
        if let (false, Some(additional), Some(member)) = (matched, additional, object.get(key)) {
            out.insert(
                key.clone(),
                coerce_types(doc, member, additional, depth + 1),
            );
        }
    }
    Value::Object(out)
}

fn matches_type(value: &Value, name: &str) -> bool {
    match name {
        "number" => value.is_number(),
        "integer" => value.as_f64().is_some_and(|x| x.fract() == 0.0),
        "boolean" => value.is_boolean(),
        "string" => value.is_string(),
        "null" => value.is_null(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        _ => false,
    }
}

/// Ajv's coercion of `value` to the primitive type `name`; `None` when it does not change.
fn coerce_primitive(value: &Value, name: &str) -> Option<Value> {
    match (name, value) {
        ("number" | "integer", Value::Null) => Some(Value::from(0)),
        ("number" | "integer", Value::String(text)) if !text.trim().is_empty() => {
            parse_js_number(text)
                .filter(|x| x.is_finite() && (name == "number" || x.fract() == 0.0))
                .map(number_value)
        }
        ("number" | "integer", Value::Bool(flag)) => Some(Value::from(u8::from(*flag))),
        ("boolean", Value::Null) => Some(Value::Bool(false)),
        ("boolean", Value::String(text)) => match text.as_str() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        ("boolean", Value::Number(number)) => match number.as_f64() {
            Some(1.0) => Some(Value::Bool(true)),
            Some(0.0) => Some(Value::Bool(false)),
            _ => None,
        },
        ("string", Value::Null) => Some(Value::String(String::new())),
        ("string", Value::Number(number)) => number.as_f64().map(|x| Value::String(js_number(x))),
        ("string", Value::Bool(flag)) => Some(Value::String(flag.to_string())),
        ("null", Value::String(text)) if text.is_empty() => Some(Value::Null),
        ("null", Value::Number(number)) if number.as_f64() == Some(0.0) => Some(Value::Null),
        ("null", Value::Bool(false)) => Some(Value::Null),
        _ => None,
    }
}
