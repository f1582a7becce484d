//! Known answers of the parser (Pi's `parseStreamingJson` results), whole texts and prefixes.
#![allow(clippy::unwrap_used)]

use super::strings::repair;
use super::*;
use proptest::prelude::*;
use serde_json::json;

fn p(s: &str) -> Value {
    Value::Object(parse_streaming_json(s))
}

#[test]
fn complete_and_empty() {
    assert_eq!(
        p(r#"{"a":1,"b":[true,null,"x"],"c":{"d":-2.5e3}}"#),
        json!({"a":1,"b":[true,null,"x"],"c":{"d":-2500.0}})
    );
    assert_eq!(p(""), json!({}));
    assert_eq!(p(" \n\t "), json!({}));
    assert_eq!(p(" {\"a\" :\n 1 } "), json!({"a":1}));
}

#[test]
fn partial_containers_strings_and_keys() {
    assert_eq!(p(r#"{"a":"hel"#), json!({"a":"hel"}));
    assert_eq!(p(r#"{"a":1,"#), json!({"a":1}));
    assert_eq!(p(r#"{"a":1, "b":"#), json!({"a":1}));
    assert_eq!(p(r#"{"a":1, "b""#), json!({"a":1}));
    assert_eq!(p(r#"{"a":1, "bc"#), json!({"a":1}));
    assert_eq!(p("{"), json!({}));
    assert_eq!(p(r#"{"a":[1,2"#), json!({"a":[1,2]}));
    assert_eq!(p(r#"{"a":[1,"#), json!({"a":[1]}));
    assert_eq!(p(r#"{"a":{"b":[{"c":"d"#), json!({"a":{"b":[{"c":"d"}]}}));
    assert_eq!(p(r#"{"é":"日本"#), json!({"é":"日本"}));
}

#[test]
fn partial_literals_and_numbers() {
    assert_eq!(p(r#"{"a":nu"#), json!({"a":null}));
    assert_eq!(p(r#"{"a":n"#), json!({"a":null}));
    assert_eq!(p(r#"{"a":tr"#), json!({"a":true}));
    assert_eq!(p(r#"{"a":[fa"#), json!({"a":[false]}));
    assert_eq!(p(r#"{"a":12."#), json!({"a":12}));
    assert_eq!(p(r#"{"a":12"#), json!({"a":12}));
    assert_eq!(p(r#"{"a":-"#), json!({}));
    assert_eq!(p(r#"{"a":1e"#), json!({"a":1}));
    assert_eq!(p(r#"{"a":1.5e+"#), json!({"a":1.5}));
    assert_eq!(p(r#"{"a":[1, -"#), json!({"a":[1]}));
}

#[test]
fn partial_escapes() {
    assert_eq!(p(r#"{"a":"x\"#), json!({"a":"x"}));
    assert_eq!(p(r#"{"a":"x\u00"#), json!({"a":"x"}));
    assert_eq!(p(r#"{"a":"x\n"#), json!({"a":"x\n"}));
    assert_eq!(p(r#"{"a":"\ud83d\ude00"}"#), json!({"a":"😀"}));
    assert_eq!(p(r#"{"a":"\ud83d\ude0"#), json!({"a":""}));
    assert_eq!(p(r#"{"a":"\ud83d\ude00"#), json!({"a":"😀"}));
    assert_eq!(p(r#"{"a":"\ud83dx"}"#), json!({"a":"\u{FFFD}x"}));
}

#[test]
fn repair_cases() {
    assert_eq!(p("{\"a\":\"x\ny\"}"), json!({"a":"x\ny"}));
    assert_eq!(p("{\"a\":\"x\ny"), json!({"a":"x\ny"}));
    assert_eq!(p(r#"{"a":"C:\dir"}"#), json!({"a":"C:\\dir"}));
    assert_eq!(p(r#"{"a":"C:\dir"#), json!({"a":"C:\\dir"}));
    assert_eq!(p("{\"a\":\"t\tb\u{1}\"}"), json!({"a":"t\tb\u{1}"}));
    assert_eq!(
        repair("{\"a\":\"x\n\t\u{1}\u{8}\u{c}\r\"}"),
        r#"{"a":"x\n\t\u0001\b\f\r"}"#
    );
    assert_eq!(
        repair(r#"{"a":"\d\"\u12zz\u00e9"#),
        r#"{"a":"\\d\"\\u12zz\u00e9"#
    );
    // Trailing backslash: repair doubles it, but the partial parse of the
    // original wins and drops the incomplete escape.
    assert_eq!(repair(r#"{"a":"x\"#), r#"{"a":"x\\"#);
    assert_eq!(p(r#"{"a":"x\"#), json!({"a":"x"}));
    // Outside strings nothing is touched.
    assert_eq!(repair("{\n\"a\":\t1}"), "{\n\"a\":\t1}");
}

#[test]
fn non_objects_malformed_and_deep() {
    for s in [
        "[1,2]",
        "null",
        "42",
        "\"str\"",
        "[1,",
        "\"abc",
        "-",
        "tru",
        "}",
        "x",
        "{\"a\":1 x}",
        "{1:2}",
    ] {
        assert_eq!(p(s), json!({}), "{s}");
    }
    assert_eq!(p(r#"{"a":1} trailing"#), json!({"a":1}));
    assert_eq!(p(&"[".repeat(100_000)), json!({}));
    assert_eq!(p(&"{\"a\":".repeat(100_000)), json!({}));
    let ok = format!("{{\"a\":{}", "[".repeat(100));
    assert!(p(&ok)["a"].is_array());
}

pub(super) fn arb_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        // Dyadic fractions print and re-parse exactly.
        any::<i32>().prop_map(|i| Value::from(f64::from(i) / 8.0)),
        any::<String>().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map(any::<String>(), inner, 0..5)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #[test]
    fn prefixes_parse_to_key_subsets(
        obj in prop::collection::btree_map("[a-z\"\\\\é\n]{0,6}", arb_value(), 0..6),
        pretty in any::<bool>(),
    ) {
        let obj: Map<String, Value> = obj.into_iter().collect();
        let full = if pretty {
            serde_json::to_string_pretty(&obj).unwrap()
        } else {
            serde_json::to_string(&obj).unwrap()
        };
        prop_assert_eq!(&parse_streaming_json(&full), &obj);
        for (i, _) in full.char_indices() {
            let partial = parse_streaming_json(&full[..i]);
            for (key, value) in &partial {
                prop_assert!(obj.contains_key(key), "prefix {:?} invented key {:?}", &full[..i], key);
                if let (Value::String(got), Some(Value::String(want))) = (value, obj.get(key)) {
                    prop_assert!(want.starts_with(got.as_str()));
                }
            }
        }
    }
}
