//! A parameter schema as pi-schema reads it (JSON Schema 2020-12): `$ref` resolution, the
//! boolean check of any subschema, and the annotations `unevaluated*` need. The explainer and the
//! coercion passes both stand on this check, as Pi's stand on its compiled checks.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::js::{js_equal, js_number};

/// Deepest schema nesting followed for one value; guards against `$ref` cycles.
pub(super) const MAX_DEPTH: usize = 96;

/// The formats pi-schema checks; every other `format` passes.
const FORMATS: [&str; 21] = [
    "date",
    "date-time",
    "duration",
    "email",
    "hostname",
    "idn-email",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "iri",
    "iri-reference",
    "json-pointer",
    "json-pointer-uri-fragment",
    "regex",
    "relative-json-pointer",
    "time",
    "uri",
    "uri-reference",
    "uri-template",
    "url",
    "uuid",
];

/// A schema with what its checks need, built once per tool.
#[derive(Debug)]
pub(super) struct Doc {
    /// The root schema.
    pub root: Value,
    /// `pattern`s and `patternProperties` keys, compiled (ECMAScript syntax, as jsonschema reads it).
    regexes: HashMap<String, jsonschema::Validator>,
    /// The checker of each known `format` the schema uses.
    formats: HashMap<String, jsonschema::Validator>,
    /// `$anchor`/`$dynamicAnchor` names and `$id`s, to the JSON pointer of their schema.
    names: HashMap<String, String>,
}

/// A `$ref` that named something, or not.
pub(super) enum Target<'a> {
    /// The schema it names.
    Found(&'a Value),
    /// It names nothing: no value passes (pi-schema's `unresolvedRefs: "reject"`).
    Unresolved,
}

impl Doc {
    /// Indexes `root`: its patterns, formats, anchors and ids.
    pub fn new(root: Value) -> Self {
        let mut doc = Doc {
            root: Value::Null,
            regexes: HashMap::new(),
            formats: HashMap::new(),
            names: HashMap::new(),
        };
        doc.index(&root, String::new(), 0);
        doc.root = root;
        doc
    }

    fn index(&mut self, node: &Value, pointer: String, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        match node {
            Value::Object(map) => {
                if let Some(Value::String(pattern)) = map.get("pattern") {
                    self.add_regex(pattern);
                }
                if let Some(Value::Object(patterns)) = map.get("patternProperties") {
                    for pattern in patterns.keys() {
                        self.add_regex(pattern);
                    }
                }
                if let Some(Value::String(format)) = map.get("format") {
                    self.add_format(format);
                }
                for keyword in ["$anchor", "$dynamicAnchor"] {
                    if let Some(Value::String(name)) = map.get(keyword) {
                        self.names.insert(format!("#{name}"), pointer.clone());
                    }
                }
                if let Some(Value::String(id)) = map.get("$id") {
                    self.names.insert(id.clone(), pointer.clone());
                }
                for (key, child) in map {
                    let escaped = key.replace('~', "~0").replace('/', "~1");
                    self.index(child, format!("{pointer}/{escaped}"), depth + 1);
                }
            }
            Value::Array(items) => {
                for (index, child) in items.iter().enumerate() {
                    self.index(child, format!("{pointer}/{index}"), depth + 1);
                }
            }
            _ => {}
        }
    }

    fn add_regex(&mut self, pattern: &str) {
        if self.regexes.contains_key(pattern) {
            return;
        }
        let schema = serde_json::json!({ "pattern": pattern });
        if let Ok(validator) = jsonschema::validator_for(&schema) {
            self.regexes.insert(pattern.to_owned(), validator);
        }
    }

    fn add_format(&mut self, format: &str) {
        if !FORMATS.contains(&format) || self.formats.contains_key(format) {
            return;
        }
        let schema = serde_json::json!({ "format": format });
        if let Ok(validator) = jsonschema::options()
            .should_validate_formats(true)
            .build(&schema)
        {
            self.formats.insert(format.to_owned(), validator);
        }
    }

    /// Whether `text` matches the regular expression `pattern` (one that did not compile never
    /// fails: the schema was checked when the tool's validator was built).
    pub fn matches(&self, pattern: &str, text: &str) -> bool {
        self.regexes
            .get(pattern)
            .is_none_or(|re| re.is_valid(&Value::String(text.to_owned())))
    }

    /// Whether `text` has `format` (formats pi-schema does not know always pass).
    pub fn has_format(&self, format: &str, text: &str) -> bool {
        self.formats
            .get(format)
            .is_none_or(|check| check.is_valid(&Value::String(text.to_owned())))
    }

    /// The schema a `$ref` names: `#`, a JSON pointer, an anchor, or an `$id` in this schema.
    pub fn resolve(&self, reference: &str) -> Target<'_> {
        let (document, fragment) = match reference.split_once('#') {
            Some((document, fragment)) => (document, fragment),
            None => (reference, ""),
        };
        let base = if document.is_empty() {
            Some(&self.root)
        } else {
            self.names
                .get(document)
                .and_then(|pointer| self.root.pointer(pointer))
        };
        let Some(base) = base else {
            return Target::Unresolved;
        };
        let fragment = percent_decode(fragment);
        let found = if fragment.is_empty() {
            Some(base)
        } else if fragment.starts_with('/') {
            base.pointer(&fragment)
        } else {
            self.names
                .get(&format!("#{fragment}"))
                .and_then(|pointer| self.root.pointer(pointer))
        };
        found.map_or(Target::Unresolved, Target::Found)
    }

    /// Whether `v` passes `node` (pi-schema's compiled check).
    pub fn check(&self, node: &Value, v: &Value) -> bool {
        self.check_at(node, v, 0)
    }

    pub(super) fn check_at(&self, node: &Value, v: &Value, depth: usize) -> bool {
        let schema = match node {
            Value::Bool(pass) => return *pass,
            Value::Object(schema) => schema,
            _ => return true,
        };
        if depth > MAX_DEPTH {
            return false;
        }
        let sub = |node: &Value, v: &Value| self.check_at(node, v, depth + 1);
        if let Some(types) = schema.get("type")
            && !type_list(types).iter().any(|t| has_type(v, t))
        {
            return false;
        }
        if let Some(Value::Array(values)) = schema.get("enum")
            && !values.iter().any(|x| js_equal(x, v))
        {
            return false;
        }
        if let Some(constant) = schema.get("const")
            && !js_equal(constant, v)
        {
            return false;
        }
        let own = match v {
            Value::String(text) => self.string_ok(schema, text),
            Value::Number(_) => number_ok(schema, v),
            Value::Object(object) => self.object_ok(schema, v, object, depth),
            Value::Array(items) => self.array_ok(schema, items, depth),
            _ => true,
        };
        if !own {
            return false;
        }
        if let Some(Value::Array(parts)) = schema.get("allOf")
            && !parts.iter().all(|part| sub(part, v))
        {
            return false;
        }
        if let Some(Value::Array(branches)) = schema.get("anyOf")
            && !branches.iter().any(|branch| sub(branch, v))
        {
            return false;
        }
        if let Some(Value::Array(branches)) = schema.get("oneOf")
            && branches.iter().filter(|branch| sub(branch, v)).count() != 1
        {
            return false;
        }
        if let Some(not) = schema.get("not")
            && sub(not, v)
        {
            return false;
        }
        if let Some(condition) = schema.get("if") {
            let branch = if sub(condition, v) {
                schema.get("then")
            } else {
                schema.get("else")
            };
            if branch.is_some_and(|branch| !sub(branch, v)) {
                return false;
            }
        }
        for keyword in ["$ref", "$dynamicRef"] {
            if let Some(Value::String(reference)) = schema.get(keyword) {
                let passes = match self.resolve(reference) {
                    Target::Found(target) => sub(target, v),
                    Target::Unresolved => false,
                };
                if !passes {
                    return false;
                }
            }
        }
        self.unevaluated_ok(schema, v, depth)
    }

    fn string_ok(&self, schema: &Map<String, Value>, text: &str) -> bool {
        let length = text.chars().count() as f64;
        if number_of(schema, "minLength").is_some_and(|min| length < min)
            || number_of(schema, "maxLength").is_some_and(|max| length > max)
        {
            return false;
        }
        if let Some(Value::String(pattern)) = schema.get("pattern")
            && !self.matches(pattern, text)
        {
            return false;
        }
        match schema.get("format") {
            Some(Value::String(format)) => self.has_format(format, text),
            _ => true,
        }
    }

    fn object_ok(
        &self,
        schema: &Map<String, Value>,
        v: &Value,
        object: &Map<String, Value>,
        depth: usize,
    ) -> bool {
        let sub = |node: &Value, v: &Value| self.check_at(node, v, depth + 1);
        let properties = schema.get("properties").and_then(Value::as_object);
        if let Some(Value::Array(required)) = schema.get("required")
            && required
                .iter()
                .filter_map(Value::as_str)
                .any(|key| !object.contains_key(key))
        {
            return false;
        }
        let patterns = schema.get("patternProperties").and_then(Value::as_object);
        let additional = schema.get("additionalProperties");
        for (key, member) in object {
            let declared = properties.and_then(|p| p.get(key));
            if declared.is_some_and(|s| !sub(s, member)) {
                return false;
            }
            let mut matched = declared.is_some();
            for (pattern, s) in patterns.into_iter().flatten() {
                if self.matches(pattern, key) {
                    matched = true;
                    if !sub(s, member) {
                        return false;
                    }
                }
            }
            if !matched && additional.is_some_and(|s| !sub(s, member)) {
                return false;
            }
            if let Some(names) = schema.get("propertyNames")
                && !sub(names, &Value::String(key.clone()))
            {
                return false;
            }
        }
        let count = object.len() as f64;
        if number_of(schema, "minProperties").is_some_and(|min| count < min)
            || number_of(schema, "maxProperties").is_some_and(|max| count > max)
        {
            return false;
        }
        for keyword in ["dependentRequired", "dependencies", "dependentSchemas"] {
            for (key, dependency) in schema
                .get(keyword)
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                if !object.contains_key(key) {
                    continue;
                }
                let passes = match dependency {
                    Value::Array(names) => names
                        .iter()
                        .filter_map(Value::as_str)
                        .all(|name| object.contains_key(name)),
                    _ if keyword == "dependentRequired" => true,
                    schema => sub(schema, v),
                };
                if !passes {
                    return false;
                }
            }
        }
        true
    }

    fn array_ok(&self, schema: &Map<String, Value>, items: &[Value], depth: usize) -> bool {
        let sub = |node: &Value, v: &Value| self.check_at(node, v, depth + 1);
        let (prefix, rest) = item_schemas(schema);
        for (index, item) in items.iter().enumerate() {
            if let Some(s) = prefix.get(index).or(rest)
                && !sub(s, item)
            {
                return false;
            }
        }
        let count = items.len() as f64;
        if number_of(schema, "minItems").is_some_and(|min| count < min)
            || number_of(schema, "maxItems").is_some_and(|max| count > max)
        {
            return false;
        }
        if schema.get("uniqueItems") == Some(&Value::Bool(true)) && !unique(items) {
            return false;
        }
        if let Some(contains) = schema.get("contains") {
            let (min, max) = contains_bounds(schema);
            let found = items.iter().filter(|item| sub(contains, item)).count() as f64;
            if found < min || found > max {
                return false;
            }
        }
        true
    }

    /// `unevaluatedProperties` / `unevaluatedItems`: the members no other keyword of the schema
    /// evaluated must pass them.
    fn unevaluated_ok(&self, schema: &Map<String, Value>, v: &Value, depth: usize) -> bool {
        let properties = schema.get("unevaluatedProperties");
        let items = schema.get("unevaluatedItems");
        if properties.is_none() && items.is_none() {
            return true;
        }
        let seen = self.evaluated(schema, v, depth);
        let sub = |node: &Value, v: &Value| self.check_at(node, v, depth + 1);
        if let (Some(s), Value::Object(object)) = (properties, v)
            && !seen.all_props
            && object
                .iter()
                .any(|(key, member)| !seen.props.contains(key) && !sub(s, member))
        {
            return false;
        }
        if let (Some(s), Value::Array(list)) = (items, v)
            && !seen.all_items
            && list
                .iter()
                .enumerate()
                .skip(seen.items)
                .any(|(index, item)| !seen.indexes.contains(&index) && !sub(s, item))
        {
            return false;
        }
        true
    }

    /// What the keywords of `schema` other than its own `unevaluated*` evaluated of `v`.
    pub(super) fn evaluated(&self, schema: &Map<String, Value>, v: &Value, depth: usize) -> Seen {
        let mut seen = Seen::default();
        self.annotate(schema, v, depth, &mut seen);
        seen
    }

    fn annotate(&self, schema: &Map<String, Value>, v: &Value, depth: usize, seen: &mut Seen) {
        if depth > MAX_DEPTH {
            return;
        }
        let sub = |node: &Value, v: &Value| self.check_at(node, v, depth + 1);
        let nested = |node: &Value, seen: &mut Seen| {
            if let Value::Object(inner) = node {
                self.annotate(inner, v, depth + 1, seen);
                if inner.contains_key("unevaluatedProperties") {
                    seen.all_props = true;
                }
                if inner.contains_key("unevaluatedItems") {
                    seen.all_items = true;
                }
            }
        };
        if let Value::Object(object) = v {
            let properties = schema.get("properties").and_then(Value::as_object);
            let patterns = schema.get("patternProperties").and_then(Value::as_object);
            for key in object.keys() {
                let declared = properties.is_some_and(|p| p.contains_key(key));
                let matched =
                    patterns.is_some_and(|p| p.keys().any(|pattern| self.matches(pattern, key)));
                if declared || matched {
                    seen.props.insert(key.clone());
                }
            }
            if schema.contains_key("additionalProperties") {
                seen.all_props = true;
            }
        }
        if let Value::Array(items) = v {
            let (prefix, rest) = item_schemas(schema);
            seen.items = seen.items.max(prefix.len().min(items.len()));
            if rest.is_some() {
                seen.all_items = true;
            }
            if let Some(contains) = schema.get("contains") {
                for (index, item) in items.iter().enumerate() {
                    if sub(contains, item) {
                        seen.indexes.insert(index);
                    }
                }
            }
        }
        for part in schema
            .get("allOf")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            nested(part, seen);
        }
        for keyword in ["anyOf", "oneOf"] {
            for branch in schema
                .get(keyword)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if sub(branch, v) {
                    nested(branch, seen);
                }
            }
        }
        if let Some(condition) = schema.get("if") {
            if sub(condition, v) {
                nested(condition, seen);
                if let Some(then) = schema.get("then") {
                    nested(then, seen);
                }
            } else if let Some(otherwise) = schema.get("else") {
                nested(otherwise, seen);
            }
        }
        for keyword in ["$ref", "$dynamicRef"] {
            if let Some(Value::String(reference)) = schema.get(keyword)
                && let Target::Found(target) = self.resolve(reference)
            {
                nested(target, seen);
            }
        }
        if let (Some(Value::Object(dependent)), Value::Object(object)) =
            (schema.get("dependentSchemas"), v)
        {
            for (key, s) in dependent {
                if object.contains_key(key) {
                    nested(s, seen);
                }
            }
        }
    }
}

/// Members of an object and items of an array some keyword evaluated.
#[derive(Debug, Default)]
pub(super) struct Seen {
    /// Every member was evaluated.
    pub all_props: bool,
    /// The members evaluated by name.
    pub props: HashSet<String>,
    /// Every item was evaluated.
    pub all_items: bool,
    /// The leading items evaluated by position.
    pub items: usize,
    /// Items evaluated by `contains`.
    pub indexes: HashSet<usize>,
}

/// The tuple schemas and the schema of the other items: `prefixItems` (or an `items` array, then
/// `additionalItems`) and `items`.
pub(super) fn item_schemas(schema: &Map<String, Value>) -> (&[Value], Option<&Value>) {
    match schema.get("items") {
        Some(Value::Array(prefix)) => (prefix.as_slice(), schema.get("additionalItems")),
        rest => {
            let prefix = schema
                .get("prefixItems")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice);
            (prefix, rest)
        }
    }
}

/// `minContains`/`maxContains`, defaulting to at least one.
pub(super) fn contains_bounds(schema: &Map<String, Value>) -> (f64, f64) {
    (
        number_of(schema, "minContains").unwrap_or(1.0),
        number_of(schema, "maxContains").unwrap_or(f64::INFINITY),
    )
}

/// A keyword whose value is a number.
pub(super) fn number_of(schema: &Map<String, Value>, keyword: &str) -> Option<f64> {
    schema.get(keyword).and_then(Value::as_f64)
}

/// The `type` keyword as a list (`"string"` or `["string", "null"]`).
pub(super) fn type_list(types: &Value) -> Vec<&Value> {
    match types {
        Value::Array(list) => list.iter().collect(),
        single => vec![single],
    }
}

/// Whether `v` has the JSON Schema type `name` (a non-string name matches nothing).
pub(super) fn has_type(v: &Value, name: &Value) -> bool {
    match name.as_str() {
        Some("string") => v.is_string(),
        Some("number") => v.is_number(),
        Some("integer") => v.as_f64().is_some_and(|x| x.fract() == 0.0),
        Some("boolean") => v.is_boolean(),
        Some("null") => v.is_null(),
        Some("array") => v.is_array(),
        Some("object") => v.is_object(),
        _ => false,
    }
}

/// The number keywords: bounds and `multipleOf`.
pub(super) fn number_ok(schema: &Map<String, Value>, v: &Value) -> bool {
    let Some(x) = v.as_f64() else {
        return true;
    };
    !(number_of(schema, "minimum").is_some_and(|m| x < m)
        || number_of(schema, "maximum").is_some_and(|m| x > m)
        || number_of(schema, "exclusiveMinimum").is_some_and(|m| x <= m)
        || number_of(schema, "exclusiveMaximum").is_some_and(|m| x >= m)
        || number_of(schema, "multipleOf").is_some_and(|d| !is_multiple(x, d)))
}

/// pi-schema's `isMultiple`: exact in decimal, so `0.3` is a multiple of `0.1`.
pub(super) fn is_multiple(v: f64, d: f64) -> bool {
    let q = v / d;
    if q.fract() == 0.0 && q.is_finite() {
        return true;
    }
    if !q.is_finite() {
        return v % d == 0.0;
    }
    let (Some((vc, ve)), Some((dc, de))) = (decimal(v), decimal(d)) else {
        return v % d == 0.0;
    };
    if dc == 0 {
        return false;
    }
    let scaled = |c: u128, shift: i32| {
        u32::try_from(shift)
            .ok()
            .and_then(|s| 10u128.checked_pow(s))
            .and_then(|p| c.checked_mul(p))
    };
    let result = if ve >= de {
        scaled(vc, ve - de).map(|left| left % dc == 0)
    } else {
        scaled(dc, de - ve).map(|right| vc % right == 0)
    };
    result.unwrap_or(v % d == 0.0)
}

/// `|x|` as digits and a power of ten, from JavaScript's shortest text of it.
fn decimal(x: f64) -> Option<(u128, i32)> {
    let text = js_number(x.abs());
    let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
    let exponent: i32 = exponent.trim_start_matches('+').parse().ok()?;
    let fraction = mantissa
        .find('.')
        .map_or(0, |point| mantissa.len() - point - 1);
    let digits: u128 = mantissa.replace('.', "").parse().ok()?;
    Some((digits, exponent - i32::try_from(fraction).ok()?))
}

/// Whether no two items are equal.
pub(super) fn unique(items: &[Value]) -> bool {
    items
        .iter()
        .enumerate()
        .all(|(i, a)| items[..i].iter().all(|b| !js_equal(a, b)))
}

/// `%XX` escapes of a URI fragment decoded (invalid ones are kept as they are).
fn percent_decode(text: &str) -> String {
    if !text.contains('%') {
        return text.to_owned();
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
