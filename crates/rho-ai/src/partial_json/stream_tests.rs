//! The incremental parser against the reference cascade: the same object after every delta, on
//! valid JSON cut anywhere and on malformed text; and its work, linear in the text's length.
#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::reference;
use super::tests::arb_value;
use super::{StreamingJson, parse_streaming_json};

/// Streams `text` cut at `cuts` (byte offsets, snapped back to char boundaries) and checks the
/// arguments after every delta against the reference parse of the text so far.
fn assert_matches_reference(text: &str, cuts: &[usize]) -> Result<(), TestCaseError> {
    let mut bounds: Vec<usize> = cuts
        .iter()
        .map(|&cut| {
            let mut at = cut.min(text.len());
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            at
        })
        .chain([text.len()])
        .collect();
    bounds.sort_unstable();
    let mut parser = StreamingJson::new();
    let mut arguments = Value::Null;
    let mut from = 0;
    for to in bounds {
        parser.push(&text[from..to]);
        parser.update(&mut arguments);
        from = to;
        let expected = Value::Object(reference::parse_streaming_json(&text[..to]));
        prop_assert_eq!(&arguments, &expected, "after {:?}", &text[..to]);
    }
    Ok(())
}

/// Every prefix of `text`, fed one character at a time, against the reference.
fn assert_every_prefix_matches(text: &str) -> Result<(), TestCaseError> {
    let cuts: Vec<usize> = text.char_indices().map(|(at, _)| at).collect();
    assert_matches_reference(text, &cuts)?;
    for (at, _) in text.char_indices() {
        let expected = reference::parse_streaming_json(&text[..at]);
        prop_assert_eq!(parse_streaming_json(&text[..at]), expected);
    }
    Ok(())
}

/// Text made of JSON's own characters and the ones the repair acts on: mostly malformed.
fn jsonish() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        4 => Just("{".to_owned()),
        2 => Just("}".to_owned()),
        2 => Just("[".to_owned()),
        2 => Just("]".to_owned()),
        6 => Just("\"".to_owned()),
        3 => Just(":".to_owned()),
        3 => Just(",".to_owned()),
        3 => Just("\\".to_owned()),
        1 => Just("\\u".to_owned()),
        1 => Just("\\ud83d".to_owned()),
        1 => Just("\\ude00".to_owned()),
        1 => Just("\\u00e9".to_owned()),
        1 => Just("\\n".to_owned()),
        2 => Just(" ".to_owned()),
        1 => Just("\n".to_owned()),
        1 => Just("\u{1}".to_owned()),
        1 => Just("\t".to_owned()),
        3 => "[a-fnrtu0-9]{1,3}",
        1 => Just("-".to_owned()),
        1 => Just(".".to_owned()),
        1 => Just("e+".to_owned()),
        1 => Just("null".to_owned()),
        1 => Just("true".to_owned()),
        1 => Just("fals".to_owned()),
        1 => Just("é".to_owned()),
        1 => Just("😀".to_owned()),
    ];
    prop::collection::vec(token, 0..40).prop_map(|tokens| tokens.concat())
}

/// A valid object's text, compact or pretty, then damaged by a few edits of the kinds models
/// make: a raw control character, a stray backslash, a dropped or doubled character.
fn damaged_object() -> impl Strategy<Value = String> {
    let object = prop::collection::btree_map("[a-z\"\\\\é\n]{0,6}", arb_value(), 0..5);
    let edit = (any::<prop::sample::Index>(), 0..5u8);
    (object, any::<bool>(), prop::collection::vec(edit, 0..4)).prop_map(|(obj, pretty, edits)| {
        let obj: Map<String, Value> = obj.into_iter().collect();
        let mut text = if pretty {
            serde_json::to_string_pretty(&obj).unwrap()
        } else {
            serde_json::to_string(&obj).unwrap()
        };
        for (index, kind) in edits {
            let bounds: Vec<usize> = text.char_indices().map(|(at, _)| at).collect();
            if bounds.is_empty() {
                break;
            }
            let at = bounds[index.index(bounds.len())];
            let len = text[at..].chars().next().map_or(0, char::len_utf8);
            match kind {
                0 => text.insert(at, '\n'),
                1 => text.insert(at, '\\'),
                2 => text.insert(at, '\u{7}'),
                3 => text.replace_range(at..at + len, ""),
                _ => {
                    let doubled = text[at..at + len].to_owned();
                    text.insert_str(at, &doubled);
                }
            }
        }
        text
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn valid_json_cut_anywhere_matches_the_reference(
        obj in prop::collection::btree_map("[a-z\"\\\\é\n]{0,6}", arb_value(), 0..6),
        pretty in any::<bool>(),
        cuts in prop::collection::vec(any::<usize>(), 0..12),
    ) {
        let obj: Map<String, Value> = obj.into_iter().collect();
        let text = if pretty {
            serde_json::to_string_pretty(&obj).unwrap()
        } else {
            serde_json::to_string(&obj).unwrap()
        };
        let cuts: Vec<usize> = cuts.iter().map(|cut| cut % (text.len() + 1)).collect();
        assert_matches_reference(&text, &cuts)?;
        prop_assert_eq!(parse_streaming_json(&text), obj);
    }

    #[test]
    fn malformed_text_matches_the_reference_on_every_prefix(text in jsonish()) {
        assert_every_prefix_matches(&text)?;
        assert_every_prefix_matches(&format!("{{\"k\":\"{text}"))?;
        assert_every_prefix_matches(&format!("{{\"k\":[{text}"))?;
    }

    #[test]
    fn damaged_objects_match_the_reference_on_every_prefix(text in damaged_object()) {
        assert_every_prefix_matches(&text)?;
    }
}

#[test]
fn known_hard_cases_match_the_reference_on_every_prefix() {
    for text in [
        // Repairs, and escapes cut off before and after the text turned lenient.
        "{\"a\":\"x\ny\\u00e9\\ud83d\\ude00\\q\\ud83d\\u12zz\\\"\"}",
        "{\"a\":\"\\ud83d\\n\u{1}\\ud83dx\\ud83d\\ud83d\\ude00\"}",
        "{\"a\":\"\u{1}\\ud83d\\u00\"}",
        "{\"a\":\"\u{1}\\ud83d\\",
        "{\"k\u{1}\\x\":\"v\\ud83d\\u0041\", \"k\u{1}\\x\":[1,2]}",
        // Repeated keys keep their first place; a key without a value keeps the old one.
        r#"{"a":{"x":1},"b":2,"a":"s","a":[1,{"y":"z"}],"a":-"#,
        // Numbers cut anywhere, and one out of range until its exponent arrives.
        r#"{"n":[-0,0.5,1e5,1E+2,-12.25e-3,123456789012345678901234567890]}"#,
        &format!("{{\"n\":1{}e-400,\"m\":2}}", "0".repeat(400)),
        r#"{"n":1e400}"#,
        // Literals, trailing text, non-objects.
        r#"{"t":true,"f":false,"n":null,"x":nul}"#,
        r#"{"a":1} {"b":2}"#,
        r#"[{"a":1}]"#,
        "  \u{a0}{}",
    ] {
        assert_every_prefix_matches(text).unwrap();
    }
    let deep = format!("{{\"a\":{}1{}}}", "[".repeat(127), "]".repeat(127));
    assert_every_prefix_matches(&deep).unwrap();
    let too_deep = format!("{{\"a\":{}1{}}}", "[".repeat(128), "]".repeat(128));
    assert_every_prefix_matches(&too_deep).unwrap();
}

/// A `write` call's arguments of about `len` bytes: source code with escapes of every kind.
fn write_arguments(len: usize) -> String {
    let line = "    let s = \"naïve \\\"quoted\\\" \\\\ path\tcol\"; // é 日本 😀\n";
    let mut code = String::new();
    while code.len() < len {
        code.push_str(line);
    }
    // JSON's escapes (`\"`, `\\`, `\n`, `\t`), and `\u` ones as some models send.
    let content = serde_json::to_string(&code)
        .unwrap()
        .replace('é', "\\u00e9")
        .replace('😀', "\\ud83d\\ude00");
    format!("{{\"path\":\"src/main.rs\",\"content\":{content},\"append\":false}}")
}

/// Streams `text` in `pieces` deltas of (about) equal size; the parser and its final arguments.
fn stream_in(text: &str, pieces: usize) -> (StreamingJson, Value) {
    let size = text.len().div_ceil(pieces).max(1);
    let mut parser = StreamingJson::new();
    let mut arguments = Value::Null;
    let mut from = 0;
    while from < text.len() {
        let mut to = (from + size).min(text.len());
        while !text.is_char_boundary(to) {
            to += 1;
        }
        parser.push(&text[from..to]);
        parser.update(&mut arguments);
        from = to;
    }
    (parser, arguments)
}

#[test]
fn a_200_kb_argument_is_scanned_in_linear_work_however_it_is_cut() {
    let text = write_arguments(200_000);
    let expected = Value::Object(reference::parse_streaming_json(&text));
    assert_eq!(expected["append"], json!(false));
    for pieces in [1, 100, 10_000] {
        let (parser, arguments) = stream_in(&text, pieces);
        assert_eq!(arguments, expected, "{pieces} pieces");
        let scanned = parser.scanned_bytes();
        eprintln!(
            "{pieces} pieces: {scanned} bytes scanned for {}",
            text.len()
        );
        // Each byte once, plus an escape cut off at the end of some deltas read again.
        assert!(
            scanned <= text.len() + 12 * pieces,
            "{pieces} pieces: {scanned} bytes scanned for {}",
            text.len()
        );
        assert!(scanned <= 2 * text.len(), "{pieces} pieces: {scanned}");
    }
}

#[test]
fn one_byte_deltas_scan_each_byte_a_bounded_number_of_times() {
    let text = write_arguments(20_000);
    let (parser, arguments) = stream_in(&text, text.len());
    assert_eq!(
        arguments,
        Value::Object(reference::parse_streaming_json(&text))
    );
    assert!(parser.scanned_bytes() <= 3 * text.len());
}

#[test]
fn updates_without_new_text_change_nothing() {
    let mut parser = StreamingJson::new();
    let mut arguments = json!({"stale": true});
    parser.push("{\"a\":\"x\u{1}\\u00");
    parser.update(&mut arguments);
    assert_eq!(arguments, json!({"a": "x\u{1}\\u00"}));
    parser.update(&mut arguments);
    assert_eq!(arguments, json!({"a": "x\u{1}\\u00"}));
    parser.push("e9\"}");
    parser.update(&mut arguments);
    assert_eq!(arguments, json!({"a": "x\u{1}é"}));
}
