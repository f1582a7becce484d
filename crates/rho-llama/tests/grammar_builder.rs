#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_ai::ToolSpec;
use rho_llama::grammar::{JSON_RULES, tool_call_grammar};
use serde_json::{Value, json};

fn tool(name: &str, parameters: Value) -> ToolSpec {
    ToolSpec {
        name: name.to_owned(),
        description: "ignored by the grammar".to_owned(),
        parameters,
    }
}

/// The grammar's tool-specific head; every grammar ends with the same generic JSON rules.
fn head(tools: &[ToolSpec]) -> String {
    let grammar = tool_call_grammar(tools).unwrap();
    grammar
        .strip_suffix(JSON_RULES)
        .expect("the generic JSON rules close every grammar")
        .to_owned()
}

#[test]
fn no_tools_means_no_grammar() {
    assert_eq!(tool_call_grammar(&[]), None);
}

#[test]
fn required_properties_come_first_and_optional_ones_at_most_once_in_order() {
    let read = tool(
        "read",
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "offset": {"type": "number"},
                "limit": {"type": "integer"}
            },
            "required": ["path"]
        }),
    );
    let ls = tool(
        "ls",
        json!({
            "type": "object",
            "properties": {"path": {"type": "string"}, "limit": {"type": "number"}}
        }),
    );
    assert_eq!(
        head(&[read, ls]),
        r#"root ::= "<tool_call>" "\n" call "\n" "</tool_call>"
call ::= tool0 | tool1
tool0-args ::= "{" ws "\"path\"" ws ":" ws string (ws "," ws "\"offset\"" ws ":" ws number)? (ws "," ws "\"limit\"" ws ":" ws integer)? ws "}"
tool0 ::= "{" ws "\"name\"" ws ":" ws "\"read\"" ws "," ws "\"arguments\"" ws ":" ws tool0-args ws "}"
tool1-args ::= "{" ws ("\"path\"" ws ":" ws string (ws "," ws "\"limit\"" ws ":" ws number)? | "\"limit\"" ws ":" ws number)? ws "}"
tool1 ::= "{" ws "\"name\"" ws ":" ws "\"ls\"" ws "," ws "\"arguments\"" ws ":" ws tool1-args ws "}"
"#
    );
}

#[test]
fn enums_booleans_arrays_and_nested_objects_get_their_own_rules() {
    let search = tool(
        "search",
        json!({
            "type": "object",
            "properties": {
                "mode": {"type": "string", "enum": ["literal", "regex"]},
                "on": {"type": "boolean"},
                "globs": {"type": "array", "items": {"type": "string"}},
                "window": {
                    "type": "object",
                    "properties": {"before": {"type": "integer"}},
                    "required": ["before"]
                },
                "level": {"enum": [1, "two", null]}
            },
            "required": ["mode"]
        }),
    );
    assert_eq!(
        head(&[search]),
        r#"root ::= "<tool_call>" "\n" call "\n" "</tool_call>"
call ::= tool0
tool0-args-2 ::= "[" ws (string (ws "," ws string)*)? ws "]"
tool0-args-3 ::= "{" ws "\"before\"" ws ":" ws integer ws "}"
tool0-args ::= "{" ws "\"mode\"" ws ":" ws ("\"literal\"" | "\"regex\"") (ws "," ws "\"on\"" ws ":" ws boolean)? (ws "," ws "\"globs\"" ws ":" ws tool0-args-2)? (ws "," ws "\"window\"" ws ":" ws tool0-args-3)? (ws "," ws "\"level\"" ws ":" ws ("1" | "\"two\"" | "null"))? ws "}"
tool0 ::= "{" ws "\"name\"" ws ":" ws "\"search\"" ws "," ws "\"arguments\"" ws ":" ws tool0-args ws "}"
"#
    );
}

#[test]
fn unsupported_schema_parts_fall_back_to_generic_json() {
    let odd = tool(
        "odd",
        json!({
            "type": "object",
            "properties": {
                "either": {"anyOf": [{"type": "string"}, {"type": "number"}]},
                "several": {"type": ["string", "null"]},
                "free": {"type": "object"},
                "list": {"type": "array"}
            },
            "required": ["either", "several", "free", "list"]
        }),
    );
    assert_eq!(
        head(&[odd]),
        r#"root ::= "<tool_call>" "\n" call "\n" "</tool_call>"
call ::= tool0
tool0-args ::= "{" ws "\"either\"" ws ":" ws value ws "," ws "\"several\"" ws ":" ws value ws "," ws "\"free\"" ws ":" ws object ws "," ws "\"list\"" ws ":" ws array ws "}"
tool0 ::= "{" ws "\"name\"" ws ":" ws "\"odd\"" ws "," ws "\"arguments\"" ws ":" ws tool0-args ws "}"
"#
    );
}

#[test]
fn names_needing_escapes_and_schemas_without_properties_still_give_a_valid_call_rule() {
    let quoted = tool("say \"hi\"", json!({"type": "object"}));
    let not_a_schema = tool("none", json!(true));
    assert_eq!(
        head(&[quoted, not_a_schema]),
        r#"root ::= "<tool_call>" "\n" call "\n" "</tool_call>"
call ::= tool0 | tool1
tool0 ::= "{" ws "\"name\"" ws ":" ws "\"say \\\"hi\\\"\"" ws "," ws "\"arguments\"" ws ":" ws object ws "}"
tool1 ::= "{" ws "\"name\"" ws ":" ws "\"none\"" ws "," ws "\"arguments\"" ws ":" ws object ws "}"
"#
    );
}
