//! Why a value failed its schema, in pi-schema's words (`explain.js`): a walk over the schema
//! that reports each failing keyword at the value it failed on, using the check for subschemas.

use serde_json::{Map, Value};

use super::js::{js_equal, js_json, js_keys, js_number};
use super::schema::{
    Doc, MAX_DEPTH, Target, contains_bounds, has_type, is_multiple, item_schemas, number_of,
    type_list, unique,
};

/// Enum errors list at most this many values.
const LISTED_VALUES: usize = 20;

/// One failing keyword: where (a JSON pointer into the value) and why.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Failure {
    /// JSON pointer of the failing value (`""` is the whole value).
    pub path: String,
    /// pi-schema's message.
    pub message: String,
}

/// The failures of `v`, at least one (`v` failed the check).
pub(super) fn failures(doc: &Doc, v: &Value) -> Vec<Failure> {
    let mut out = Vec::new();
    Walk { doc }.walk(&doc.root, v, "", &mut out, 0);
    if out.is_empty() {
        out.push(failure("", "invalid"));
    }
    out
}

fn failure(path: &str, message: impl Into<String>) -> Failure {
    Failure {
        path: path.to_owned(),
        message: message.into(),
    }
}

struct Walk<'a> {
    doc: &'a Doc,
}

impl Walk<'_> {
    fn ok(&self, node: &Value, v: &Value, depth: usize) -> bool {
        self.doc.check_at(node, v, depth)
    }

    fn walk(&self, node: &Value, v: &Value, path: &str, out: &mut Vec<Failure>, depth: usize) {
        let schema = match node {
            Value::Bool(true) => return,
            Value::Bool(false) => {
                out.push(failure(path, "no value is allowed here"));
                return;
            }
            Value::Object(schema) => schema,
            _ => return,
        };
        if depth > MAX_DEPTH || self.ok(node, v, depth) {
            return;
        }
        let start = out.len();
        if let Some(types) = schema.get("type") {
            let list = type_list(types);
            if !list.iter().any(|t| has_type(v, t)) {
                let names: Vec<String> = list.iter().map(|t| js_string(t)).collect();
                let message = format!("expected {}, got {}", names.join(" or "), type_name(v));
                out.push(failure(path, message));
                return;
            }
        }
        if let Some(Value::Array(values)) = schema.get("enum")
            && !values.iter().any(|x| js_equal(x, v))
        {
            out.push(failure(
                path,
                format!("expected one of {}", list_values(values)),
            ));
        }
        if let Some(constant) = schema.get("const")
            && !js_equal(constant, v)
        {
            out.push(failure(path, format!("expected {}", js_json(constant))));
        }
        match v {
            Value::String(text) => self.walk_string(schema, text, path, out),
            Value::Number(_) => walk_number(schema, v, path, out),
            Value::Object(object) => self.walk_object(schema, v, object, path, out, depth),
            Value::Array(items) => self.walk_array(schema, items, path, out, depth),
            _ => {}
        }
        for part in schema
            .get("allOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            self.walk(part, v, path, out, depth + 1);
        }
        if let Some(Value::Array(branches)) = schema.get("anyOf") {
            self.walk_union(branches, v, path, out, depth, false);
        }
        if let Some(Value::Array(branches)) = schema.get("oneOf") {
            self.walk_union(branches, v, path, out, depth, true);
        }
        if let Some(not) = schema.get("not")
            && self.ok(not, v, depth + 1)
        {
            out.push(failure(path, "must not match the schema in not"));
        }
        if let Some(condition) = schema.get("if") {
            let branch = if self.ok(condition, v, depth + 1) {
                schema.get("then")
            } else {
                schema.get("else")
            };
            if let Some(branch) = branch {
                self.walk(branch, v, path, out, depth + 1);
            }
        }
        if let Some(Value::String(reference)) = schema.get("$ref") {
            match self.doc.resolve(reference) {
                Target::Found(target) => self.walk(target, v, path, out, depth + 1),
                Target::Unresolved => {
                    out.push(failure(path, format!("unresolved reference {reference}")));
                }
            }
        }
        if out.len() == start
            && (schema.contains_key("unevaluatedProperties")
                || schema.contains_key("unevaluatedItems"))
        {
            self.walk_unevaluated(schema, v, path, out, depth);
        }
        if out.len() == start && schema.get("$dynamicRef").is_some_and(Value::is_string) {
            out.push(failure(
                path,
                "does not match the dynamically referenced schema",
            ));
        }
    }

    fn walk_string(
        &self,
        schema: &Map<String, Value>,
        text: &str,
        path: &str,
        out: &mut Vec<Failure>,
    ) {
        let n = text.chars().count() as f64;
        if let Some(min) = number_of(schema, "minLength")
            && n < min
        {
            out.push(failure(
                path,
                format!("expected at least {} characters", js_number(min)),
            ));
        }
        if let Some(max) = number_of(schema, "maxLength")
            && n > max
        {
            out.push(failure(
                path,
                format!("expected at most {} characters", js_number(max)),
            ));
        }
        if let Some(Value::String(pattern)) = schema.get("pattern")
            && !self.doc.matches(pattern, text)
        {
            out.push(failure(path, format!("expected to match {pattern}")));
        }
        if let Some(Value::String(format)) = schema.get("format")
            && !self.doc.has_format(format, text)
        {
            out.push(failure(path, format!("expected format {format}")));
        }
    }

    fn walk_object(
        &self,
        schema: &Map<String, Value>,
        v: &Value,
        object: &Map<String, Value>,
        path: &str,
        out: &mut Vec<Failure>,
        depth: usize,
    ) {
        let empty = Map::new();
        let properties = schema
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        for key in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            if !object.contains_key(key) {
                out.push(failure(&pointer(path, key), "missing"));
            }
        }
        for key in js_keys(properties) {
            if let (Some(property), Some(member)) = (properties.get(key), object.get(key)) {
                self.walk(property, member, &pointer(path, key), out, depth + 1);
            }
        }
        let patterns = schema.get("patternProperties").and_then(Value::as_object);
        let additional = schema.get("additionalProperties");
        for key in js_keys(object) {
            let Some(member) = object.get(key) else {
                continue;
            };
            let at = pointer(path, key);
            let mut matched = properties.contains_key(key);
            for (pattern, s) in patterns.into_iter().flatten() {
                if self.doc.matches(pattern, key) {
                    matched = true;
                    self.walk(s, member, &at, out, depth + 1);
                }
            }
            match additional {
                Some(Value::Bool(false)) if !matched => out.push(failure(&at, "unknown field")),
                Some(s) if !matched => self.walk(s, member, &at, out, depth + 1),
                _ => {}
            }
            if let Some(names) = schema.get("propertyNames")
                && !self.ok(names, &Value::String(key.clone()), depth + 1)
            {
                out.push(failure(&at, "invalid property name"));
            }
        }
        let count = object.len() as f64;
        if let Some(min) = number_of(schema, "minProperties")
            && count < min
        {
            out.push(failure(
                path,
                format!("expected at least {} properties", js_number(min)),
            ));
        }
        if let Some(max) = number_of(schema, "maxProperties")
            && count > max
        {
            out.push(failure(
                path,
                format!("expected at most {} properties", js_number(max)),
            ));
        }
        // `dependencies` entries override `dependentRequired` ones of the same key, as a spread does.
        let mut dependencies: Vec<(&String, &Value)> = Vec::new();
        for keyword in ["dependentRequired", "dependencies"] {
            for (key, dependency) in schema
                .get(keyword)
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                match dependencies.iter_mut().find(|(k, _)| *k == key) {
                    Some(entry) => entry.1 = dependency,
                    None => dependencies.push((key, dependency)),
                }
            }
        }
        for (key, dependency) in dependencies {
            if !object.contains_key(key) {
                continue;
            }
            match dependency {
                Value::Array(names) => {
                    for name in names.iter().filter_map(Value::as_str) {
                        if !object.contains_key(name) {
                            let message = format!("required when {key} is present");
                            out.push(failure(&pointer(path, name), message));
                        }
                    }
                }
                schema => self.walk(schema, v, path, out, depth + 1),
            }
        }
        for (key, s) in schema
            .get("dependentSchemas")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            if object.contains_key(key) {
                self.walk(s, v, path, out, depth + 1);
            }
        }
    }

    fn walk_array(
        &self,
        schema: &Map<String, Value>,
        items: &[Value],
        path: &str,
        out: &mut Vec<Failure>,
        depth: usize,
    ) {
        let (prefix, rest) = item_schemas(schema);
        for (index, item) in items.iter().enumerate() {
            if let Some(s) = prefix.get(index).or(rest) {
                self.walk(s, item, &format!("{path}/{index}"), out, depth + 1);
            }
        }
        let count = items.len() as f64;
        if let Some(min) = number_of(schema, "minItems")
            && count < min
        {
            out.push(failure(
                path,
                format!("expected at least {} items", js_number(min)),
            ));
        }
        if let Some(max) = number_of(schema, "maxItems")
            && count > max
        {
            out.push(failure(
                path,
                format!("expected at most {} items", js_number(max)),
            ));
        }
        if schema.get("uniqueItems") == Some(&Value::Bool(true)) && !unique(items) {
            out.push(failure(path, "expected unique items"));
        }
        if let Some(contains) = schema.get("contains") {
            let (min, max) = contains_bounds(schema);
            let found = items
                .iter()
                .filter(|item| self.ok(contains, item, depth + 1))
                .count() as f64;
            if found < min || found > max {
                out.push(failure(path, contains_message(min, max)));
            }
        }
    }

    fn walk_union(
        &self,
        branches: &[Value],
        v: &Value,
        path: &str,
        out: &mut Vec<Failure>,
        depth: usize,
        exactly_one: bool,
    ) {
        let matches = branches.iter().filter(|s| self.ok(s, v, depth + 1)).count();
        if matches == 1 || (!exactly_one && matches > 0) {
            return;
        }
        if matches > 1 {
            out.push(failure(path, "matches more than one alternative"));
            return;
        }
        // A tagged union reports the branch its tag selects.
        if let (Some((key, values)), Value::Object(object)) = (self.tag_of(branches), v) {
            let chosen = object
                .get(key)
                .and_then(|tag| values.iter().position(|x| js_equal(x, tag)));
            match chosen.and_then(|i| branches.get(i)) {
                Some(branch) => self.walk(branch, v, path, out, depth + 1),
                None => out.push(failure(
                    &pointer(path, key),
                    format!("expected one of {}", list_values(&values)),
                )),
            }
            return;
        }
        // Otherwise the branch declaring most of the object's keys, then the deepest first error.
        let mut best: Option<(Vec<Failure>, usize)> = None;
        for branch in branches {
            let mut errors = Vec::new();
            self.walk(branch, v, path, &mut errors, depth + 1);
            let Some(first) = errors.first() else {
                continue;
            };
            let declared = match v {
                Value::Object(object) => self.declared_keys(branch, object),
                _ => 0,
            };
            let better = best.as_ref().is_none_or(|(best_errors, best_declared)| {
                declared > *best_declared
                    || (declared == *best_declared
                        && best_errors
                            .first()
                            .is_some_and(|b| first.path.len() > b.path.len()))
            });
            if better {
                best = Some((errors, declared));
            }
        }
        match best {
            Some((errors, _)) => out.extend(errors),
            None => out.push(failure(path, "matches no alternative")),
        }
    }

    /// A branch as written, or the schema its `$ref` names.
    fn resolved<'a>(&'a self, branch: &'a Value) -> Option<&'a Map<String, Value>> {
        match branch.get("$ref").and_then(Value::as_str) {
            Some(reference) => match self.doc.resolve(reference) {
                Target::Found(target) => target.as_object(),
                Target::Unresolved => None,
            },
            None => branch.as_object(),
        }
    }

    /// How many keys of `object` the branch declares in `properties`.
    fn declared_keys(&self, branch: &Value, object: &Map<String, Value>) -> usize {
        let properties = self
            .resolved(branch)
            .and_then(|s| s.get("properties"))
            .and_then(Value::as_object);
        properties.map_or(0, |p| object.keys().filter(|k| p.contains_key(*k)).count())
    }

    /// The key whose `const` tells the branches apart: primitive, distinct in every branch.
    fn tag_of<'a>(&'a self, branches: &'a [Value]) -> Option<(&'a String, Vec<Value>)> {
        let resolved: Vec<Option<&Map<String, Value>>> =
            branches.iter().map(|b| self.resolved(b)).collect();
        let first = resolved.first().copied().flatten()?;
        let properties = first.get("properties")?.as_object()?;
        for key in js_keys(properties) {
            let values: Option<Vec<Value>> = resolved
                .iter()
                .map(|s| {
                    let tag = (*s)?.get("properties")?.as_object()?.get(key)?;
                    tag.as_object()?
                        .get("const")
                        .filter(|c| !c.is_array() && !c.is_object())
                        .cloned()
                })
                .collect();
            let Some(values) = values else {
                continue;
            };
            let distinct = values
                .iter()
                .enumerate()
                .all(|(i, a)| values[..i].iter().all(|b| b != a));
            if distinct {
                return Some((key, values));
            }
        }
        None
    }

    fn walk_unevaluated(
        &self,
        schema: &Map<String, Value>,
        v: &Value,
        path: &str,
        out: &mut Vec<Failure>,
        depth: usize,
    ) {
        let mut rest = schema.clone();
        let properties = rest.remove("unevaluatedProperties");
        let items = rest.remove("unevaluatedItems");
        rest.remove("$id");
        let seen = self.doc.evaluated(&rest, v, depth);
        if let (Some(s), Value::Object(object)) = (&properties, v)
            && !seen.all_props
        {
            for key in js_keys(object) {
                if seen.props.contains(key) {
                    continue;
                }
                let at = pointer(path, key);
                match (s, object.get(key)) {
                    (Value::Bool(false), _) => out.push(failure(&at, "unknown field")),
                    (s, Some(member)) => self.walk(s, member, &at, out, depth + 1),
                    (_, None) => {}
                }
            }
        }
        if let (Some(s), Value::Array(list)) = (&items, v)
            && !seen.all_items
        {
            for (index, item) in list.iter().enumerate().skip(seen.items) {
                if seen.indexes.contains(&index) {
                    continue;
                }
                let at = format!("{path}/{index}");
                match s {
                    Value::Bool(false) => out.push(failure(&at, "unexpected item")),
                    s => self.walk(s, item, &at, out, depth + 1),
                }
            }
        }
    }
}

fn walk_number(schema: &Map<String, Value>, v: &Value, path: &str, out: &mut Vec<Failure>) {
    let Some(x) = v.as_f64() else {
        return;
    };
    let bound = |keyword: &str| number_of(schema, keyword);
    let mut push = |message: String| out.push(failure(path, message));
    if let Some(m) = bound("minimum").filter(|m| x < *m) {
        push(format!("expected >= {}", js_number(m)));
    }
    if let Some(m) = bound("maximum").filter(|m| x > *m) {
        push(format!("expected <= {}", js_number(m)));
    }
    if let Some(m) = bound("exclusiveMinimum").filter(|m| x <= *m) {
        push(format!("expected > {}", js_number(m)));
    }
    if let Some(m) = bound("exclusiveMaximum").filter(|m| x >= *m) {
        push(format!("expected < {}", js_number(m)));
    }
    if let Some(d) = bound("multipleOf").filter(|d| !is_multiple(x, *d)) {
        push(format!("expected a multiple of {}", js_number(d)));
    }
}

/// `JSON.stringify(values)`, cut after [`LISTED_VALUES`] values.
fn list_values(values: &[Value]) -> String {
    if values.len() <= LISTED_VALUES {
        return js_json(&Value::Array(values.to_vec()));
    }
    let listed = js_json(&Value::Array(values[..LISTED_VALUES].to_vec()));
    let open = listed.strip_suffix(']').unwrap_or(&listed);
    format!("{open}, ... and {} more]", values.len() - LISTED_VALUES)
}

fn contains_message(min: f64, max: f64) -> String {
    let noun = |n: f64| if n == 1.0 { "item" } else { "items" };
    if max == f64::INFINITY {
        format!(
            "expected at least {} matching {}",
            js_number(min),
            noun(min)
        )
    } else if min == 0.0 {
        format!("expected at most {} matching {}", js_number(max), noun(max))
    } else {
        format!(
            "expected between {} and {} matching items",
            js_number(min),
            js_number(max)
        )
    }
}

/// `path` extended by `key`, escaped as a JSON pointer segment.
fn pointer(path: &str, key: &str) -> String {
    format!("{path}/{}", key.replace('~', "~0").replace('/', "~1"))
}

/// JavaScript's `String(x)` of a `type` entry.
fn js_string(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        other => js_json(other),
    }
}

/// pi-schema's name of a value's type.
fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Array(_) => "array",
        Value::Number(n) if n.as_f64().is_some_and(|x| x.fract() == 0.0) => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Bool(_) => "boolean",
        Value::Object(_) => "object",
    }
}
