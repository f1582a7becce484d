#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use serde_json::{Value, json};

use super::{ArgumentValidator, SchemaError};
use rho_stdx::js::number_text as js_float;

fn validator(schema: Value) -> ArgumentValidator {
    ArgumentValidator::compile("tool", &schema).expect("schema compiles")
}

/// The `  - path: message` lines of a failed validation.
fn error_lines(schema: Value, args: Value) -> Vec<String> {
    let text = validator(schema).validate("tool", &args).unwrap_err();
    let (head, _) = text.split_once("\n\nReceived arguments:\n").unwrap();
    head.lines().skip(1).map(str::to_owned).collect()
}

fn read_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "offset": {"type": "number"},
            "limit": {"type": "integer"}
        },
        "required": ["path"]
    })
}

#[test]
fn a_missing_top_level_property_gives_pis_documented_message() {
    let schema =
        json!({"type":"object","properties":{"path":{"type":"string"}},"required":["path"]});
    let read = ArgumentValidator::compile("read", &schema).unwrap();
    let error = read.validate("read", &json!({"file": "a.ts"})).unwrap_err();
    assert_eq!(
        error,
        "Validation failed for tool \"read\":\n  - path: must have required properties path\n\nReceived arguments:\n{\n  \"file\": \"a.ts\"\n}"
    );
}

#[test]
fn a_wrong_type_is_reported_with_the_full_message() {
    let error = validator(read_schema())
        .validate("read", &json!({"path": ["a.ts"]}))
        .unwrap_err();
    assert_eq!(
        error,
        "Validation failed for tool \"read\":\n  - path: must be string\n\nReceived arguments:\n{\n  \"path\": [\n    \"a.ts\"\n  ]\n}"
    );
}

#[test]
fn additional_properties_are_reported_at_the_objects_path() {
    let schema = json!({
        "type": "object",
        "properties": {"path": {"type": "string"}, "opts": {"type": "object", "additionalProperties": false}},
        "additionalProperties": false
    });
    let lines = error_lines(schema, json!({"path": "a", "extra": 1, "opts": {"x": 1}}));
    assert_eq!(
        lines,
        [
            "  - opts: must not have additional properties",
            "  - root: must not have additional properties"
        ]
    );
}

#[test]
fn a_false_property_schema_is_not_mistaken_for_additional_properties() {
    let schema = json!({"type": "object", "properties": {"additionalProperties": false}});
    assert_eq!(
        error_lines(schema, json!({"additionalProperties": 1})),
        ["  - additionalProperties: schema is false"]
    );
}

#[test]
fn nested_paths_are_joined_with_dots() {
    let schema = json!({
        "type": "object",
        "properties": {
            "a": {"type": "object", "properties": {"b": {"type": "string"}}, "required": ["b"]},
            "edits": {"type": "array", "items": {
                "type": "object",
                "properties": {"oldText": {"type": "string"}, "newText": {"type": "string"}},
                "required": ["oldText", "newText"]
            }}
        }
    });
    let lines = error_lines(schema, json!({"a": {}, "edits": [{"oldText": {"x": 1}}]}));
    assert_eq!(
        lines,
        [
            "  - a.b: must have required properties b",
            "  - edits.0.newText: must have required properties newText",
            "  - edits.0.oldText: must be string"
        ]
    );
}

#[test]
fn several_missing_properties_of_one_required_share_one_line() {
    let schema = json!({"type": "object", "required": ["path", "content"]});
    assert_eq!(
        error_lines(schema, json!({})),
        ["  - path: must have required properties path, content"]
    );
}

#[test]
fn numeric_strings_are_coerced_and_the_coerced_copy_is_returned() {
    let args = json!({"path": "a.ts", "offset": "-1.5", "limit": "5"});
    let coerced = validator(read_schema()).validate("read", &args).unwrap();
    assert_eq!(coerced, json!({"path": "a.ts", "offset": -1.5, "limit": 5}));
    assert_eq!(coerced["limit"].as_u64(), Some(5));
}

#[test]
fn a_fractional_string_is_not_coerced_to_an_integer() {
    let lines = error_lines(read_schema(), json!({"path": "a", "limit": "5.5"}));
    assert_eq!(lines, ["  - limit: must be integer"]);
}

#[test]
fn null_becomes_the_zero_value_of_the_declared_type() {
    let schema = json!({"type": "object", "properties": {
        "n": {"type": "number"}, "i": {"type": "integer"}, "b": {"type": "boolean"}, "s": {"type": "string"},
        "maybe": {"type": ["string", "null"]}
    }});
    let args = json!({"n": null, "i": null, "b": null, "s": null, "maybe": null});
    let coerced = validator(schema).validate("t", &args).unwrap();
    assert_eq!(
        coerced,
        json!({"n": 0, "i": 0, "b": false, "s": "", "maybe": null})
    );
}

#[test]
fn booleans_and_strings_are_coerced_like_typebox() {
    let schema = json!({"type": "object", "properties": {
        "a": {"type": "boolean"}, "b": {"type": "boolean"}, "c": {"type": "boolean"},
        "d": {"type": "string"}, "e": {"type": "string"}, "f": {"type": "string"},
        "g": {"type": ["number", "string"]}, "h": {"type": ["string", "number"]}, "i": {"type": ["number", "string"]}
    }});
    let args = json!({"a": "true", "b": "0", "c": 1, "d": 5, "e": 1.5, "f": true, "g": true, "h": true, "i": "7"});
    let coerced = validator(schema).validate("t", &args).unwrap();
    assert_eq!(
        coerced,
        json!({"a": true, "b": false, "c": true, "d": "5", "e": "1.5", "f": "true", "g": 1, "h": "true", "i": "7"})
    );
}

#[test]
fn objects_and_arrays_are_never_coerced() {
    let lines = error_lines(
        json!({"type": "object", "properties": {"s": {"type": "string"}, "n": {"type": "number"}}}),
        json!({"s": {}, "n": []}),
    );
    // Errors follow the schema's property order, as TypeBox reports them.
    assert_eq!(lines, ["  - s: must be string", "  - n: must be number"]);
}

#[test]
fn non_object_arguments_fail_with_root_must_be_object() {
    let read = validator(read_schema());
    assert_eq!(
        read.validate("read", &json!("a.ts")).unwrap_err(),
        "Validation failed for tool \"read\":\n  - root: must be object\n\nReceived arguments:\n\"a.ts\""
    );
    assert_eq!(
        read.validate("read", &json!([])).unwrap_err(),
        "Validation failed for tool \"read\":\n  - root: must be object\n\nReceived arguments:\n[]"
    );
}

#[test]
fn limits_use_typebox_wording_with_js_numbers() {
    let schema = json!({"type": "object", "properties": {
        "a": {"type": "number", "minimum": 1}, "b": {"type": "number", "maximum": 10.5},
        "c": {"type": "number", "exclusiveMinimum": 0}, "d": {"type": "number", "exclusiveMaximum": 1e21},
        "e": {"type": "string", "minLength": 2}, "f": {"type": "string", "maxLength": 1},
        "g": {"type": "array", "minItems": 2}, "h": {"type": "array", "maxItems": 0},
        "i": {"type": "number", "multipleOf": 0.5}, "j": {"type": "number", "minimum": 5.0}
    }});
    let args = json!({"a": 0, "b": 11, "c": 0, "d": 2e21, "e": "x", "f": "xy", "g": [1], "h": [1], "i": 0.3, "j": 1});
    assert_eq!(
        error_lines(schema, args),
        [
            "  - a: must be >= 1",
            "  - b: must be <= 10.5",
            "  - c: must be > 0",
            "  - d: must be < 1e+21",
            "  - e: must not have fewer than 2 characters",
            "  - f: must not have more than 1 characters",
            "  - g: must not have fewer than 2 items",
            "  - h: must not have more than 0 items",
            "  - i: must be multiple of 0.5",
            "  - j: must be >= 5"
        ]
    );
}

#[test]
fn enum_const_pattern_and_format_use_typebox_wording() {
    let schema = json!({"type": "object", "properties": {
        "mode": {"type": "string", "enum": ["a", "b"]}, "kind": {"const": "x"},
        "id": {"type": "string", "pattern": "^[0-9]+$"}, "mail": {"type": "string", "format": "email"},
        "other": {"type": "string", "format": "no-such-format"}
    }});
    let args = json!({"mode": "c", "kind": "y", "id": "q", "mail": "nope", "other": "fine"});
    assert_eq!(
        error_lines(schema, args),
        [
            "  - mode: must be equal to one of the allowed values",
            "  - kind: must be equal to constant",
            "  - id: must match pattern \"^[0-9]+$\"",
            "  - mail: must match format \"email\""
        ]
    );
}

#[test]
fn type_unions_list_every_type_in_schema_order() {
    let schema = json!({"type": "object", "properties": {
        "a": {"type": ["string", "number"]}, "b": {"type": ["object"]}
    }});
    assert_eq!(
        error_lines(schema, json!({"a": [], "b": 1})),
        [
            "  - a: must be either string or number",
            "  - b: must be either object"
        ]
    );
}

#[test]
fn any_of_lists_each_failed_branch_before_its_own_error() {
    let schema = json!({"type": "object", "properties": {
        "v": {"anyOf": [{"type": "string", "const": "a"}, {"type": "object"}]}
    }});
    assert_eq!(
        error_lines(schema, json!({"v": "b"})),
        [
            "  - v: must be equal to constant",
            "  - v: must be object",
            "  - v: must match a schema in anyOf"
        ]
    );
}

#[test]
fn any_of_coerces_only_when_no_branch_accepts_the_value() {
    let schema = json!({"type": "object", "properties": {
        "n": {"anyOf": [{"type": "number"}, {"type": "null"}]},
        "s": {"anyOf": [{"type": "string"}, {"type": "number"}]}
    }});
    let coerced = validator(schema)
        .validate("t", &json!({"n": "4", "s": "4"}))
        .unwrap();
    assert_eq!(coerced, json!({"n": 4, "s": "4"}));
}

#[test]
fn property_names_and_dependencies_use_typebox_wording() {
    let schema = json!({
        "type": "object",
        "propertyNames": {"maxLength": 2, "pattern": "^[a-z]+$"},
        "dependentRequired": {"a": ["b", "c"]}
    });
    assert_eq!(
        error_lines(schema, json!({"a": 1, "XYZ": 2, "abc": 3})),
        [
            "  - root: must have properties b, c when property a is present",
            "  - root: must have properties b, c when property a is present",
            "  - root: property names XYZ, abc are invalid"
        ]
    );
}

#[test]
fn local_refs_are_followed_for_messages_and_coercion() {
    let schema = json!({
        "$defs": {"count": {"type": "integer", "minimum": 1}},
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/count"}, "b": {"$ref": "#/$defs/count"}}
    });
    let v = validator(schema);
    assert_eq!(
        v.validate("t", &json!({"a": "3"})).unwrap(),
        json!({"a": 3})
    );
    let text = v.validate("t", &json!({"b": 0})).unwrap_err();
    assert!(text.contains("\n  - b: must be >= 1\n"), "{text}");
}

#[test]
fn invalid_schemas_are_schema_errors_not_panics() {
    for schema in [
        json!({"type": 12}),
        json!({"minimum": "x"}),
        json!(5),
        json!("object"),
        json!({"$ref": "http://example.com/s"}),
    ] {
        let error = ArgumentValidator::compile("bad", &schema).unwrap_err();
        let SchemaError::Invalid { tool, reason } = &error;
        assert_eq!(tool, "bad");
        assert!(!reason.is_empty());
        assert!(
            error
                .to_string()
                .starts_with("invalid parameter schema for tool \"bad\": ")
        );
    }
}

#[test]
fn boolean_schemas_compile_and_false_rejects_everything() {
    assert_eq!(
        validator(json!(true))
            .validate("t", &json!({"x": 1}))
            .unwrap(),
        json!({"x": 1})
    );
    assert_eq!(
        error_lines(json!(false), json!({})),
        ["  - root: schema is false"]
    );
}

#[test]
fn received_arguments_render_like_json_stringify() {
    let schema = json!({"type": "object", "required": ["zzz"]});
    let args: Value = serde_json::from_str(
        r#"{"b": {}, "a": [], "10": 5.0, "2": [1, {"x": null}], "s": "tab\there \"q\" \u0001", "big": 1e21, "small": 1e-7}"#,
    )
    .unwrap();
    let text = validator(schema).validate("t", &args).unwrap_err();
    let received = text.split_once("Received arguments:\n").unwrap().1;
    // Integer-like keys first in ascending order, then the model's order, as JS prints them.
    let expected = "{\n  \"2\": [\n    1,\n    {\n      \"x\": null\n    }\n  ],\n  \"10\": 5,\n  \"b\": {},\n  \"a\": [],\n  \"s\": \"tab\\there \\\"q\\\" \\u0001\",\n  \"big\": 1e+21,\n  \"small\": 1e-7\n}";
    assert_eq!(received, expected);
}

#[test]
fn numbers_print_like_javascript() {
    let cases = [
        (5.0, "5"),
        (-1.5, "-1.5"),
        (0.1, "0.1"),
        (1e21, "1e+21"),
        (123_456_789_012_345_680_000.0, "123456789012345680000"),
        (1e-6, "0.000001"),
        (1e-7, "1e-7"),
        (-2.5e-8, "-2.5e-8"),
        (1.5e300, "1.5e+300"),
        (-0.0, "0"),
    ];
    for (x, text) in cases {
        assert_eq!(js_float(x), text);
    }
}

fn arbitrary_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        ".{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z0-9]{0,3}", inner, 0..4)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn validation_never_panics_and_accepted_values_revalidate(args in arbitrary_json()) {
        let v = validator(read_schema());
        match v.validate("read", &args) {
            Ok(coerced) => prop_assert_eq!(v.validate("read", &coerced), Ok(coerced.clone())),
            Err(text) => prop_assert!(text.starts_with("Validation failed for tool \"read\":\n  - ")),
        }
    }

    #[test]
    fn js_number_text_round_trips(x in any::<f64>().prop_filter("finite", |x| x.is_finite())) {
        let text = js_float(x);
        prop_assert_eq!(text.parse::<f64>().unwrap(), x);
    }
}
