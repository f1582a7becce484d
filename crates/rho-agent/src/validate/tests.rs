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
        "required": ["path"],
        "properties": {
            "path": {"type": "string"},
            "offset": {"type": "number"},
            "limit": {"type": "number"}
        }
    })
}

/// Each line: a schema, the model's arguments, and what Pi 1.6.0's `validateToolArguments`
/// (pi-ai `dist/utils/validation.js` over pi-schema) made of them under Node 22: the coerced
/// arguments (`ok`) or the whole error text (`err`).
const PI16_CASES: &str = include_str!("pi16-cases.jsonl");

#[test]
fn every_case_matches_pi_1_6_byte_for_byte() {
    let mut mismatches = Vec::new();
    for (number, line) in PI16_CASES.lines().enumerate() {
        let case: Value = serde_json::from_str(line).unwrap();
        let ours = validator(case["schema"].clone()).validate("tool", &case["args"]);
        let pis = match (case.get("ok"), case.get("err")) {
            (Some(ok), _) => Ok(ok.clone()),
            (_, Some(Value::String(err))) => Err(err.clone()),
            _ => panic!("case {number} has neither ok nor err"),
        };
        if ours != pis {
            mismatches.push(format!(
                "case {number}: {line}\n  ours: {ours:?}\n  pi's: {pis:?}"
            ));
        }
    }
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn pis_observed_read_call_coerces_the_path_and_keeps_the_extra_field() {
    // shared/fixtures/pi-1.6/json-badargs: `{"path":5,"limit":"abc","extra":1}` on read.
    assert_eq!(
        error_lines(
            read_schema(),
            json!({"path": 5, "limit": "abc", "extra": 1})
        ),
        ["  - limit: expected number, got string"]
    );
}

#[test]
fn an_optional_null_is_dropped_and_a_required_null_becomes_text() {
    let v = validator(read_schema());
    assert_eq!(
        v.validate("read", &json!({"path": "a", "limit": null}))
            .unwrap(),
        json!({"path": "a"})
    );
    assert_eq!(
        v.validate("read", &json!({"path": null})).unwrap(),
        json!({"path": "null"})
    );
}

#[test]
fn a_false_schema_rejects_everything_at_the_root() {
    // Pi 1.6 itself fails on a boolean tool schema ("Invalid value used as weak map key" from its
    // validator cache); rho reports pi-schema's message instead.
    assert_eq!(
        error_lines(json!(false), json!({})),
        ["  - root: no value is allowed here"]
    );
    assert_eq!(
        validator(json!(true))
            .validate("t", &json!({"x": 1}))
            .unwrap(),
        json!({"x": 1})
    );
}

#[test]
fn invalid_schemas_are_schema_errors_not_panics() {
    for schema in [
        json!({"type": 12}),
        json!({"minimum": "x"}),
        json!(5),
        json!("object"),
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
