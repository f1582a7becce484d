#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_llama::tool_call::{
    OutputSplitter, Piece, ToolCallParseError, parse_tool_call, split_output,
};
use serde_json::json;

fn text(s: &str) -> Piece {
    Piece::Text(s.to_owned())
}

fn call(body: &str, closed: bool) -> Piece {
    Piece::Call {
        body: body.to_owned(),
        closed,
    }
}

#[test]
fn a_closed_call_after_text_splits_into_text_and_call() {
    let output = "Let me look.\n<tool_call>\n{\"name\": \"read\", \"arguments\": {\"path\": \"a.rs\"}}\n</tool_call>";
    assert_eq!(
        split_output(output),
        vec![
            text("Let me look.\n"),
            call(
                "\n{\"name\": \"read\", \"arguments\": {\"path\": \"a.rs\"}}\n",
                true
            ),
        ]
    );
}

#[test]
fn an_output_cut_inside_a_call_gives_an_unclosed_call() {
    assert_eq!(
        split_output("<tool_call>\n{\"name\": \"re"),
        vec![call("\n{\"name\": \"re", false)]
    );
}

#[test]
fn text_with_angle_brackets_but_no_tag_stays_text() {
    assert_eq!(
        split_output("if a < b then <tool"),
        vec![text("if a < b then <tool")]
    );
}

#[test]
fn two_calls_and_trailing_text_keep_their_order() {
    let output =
        "<tool_call>{\"name\":\"ls\"}</tool_call><tool_call>{\"name\":\"read\"}</tool_call> done";
    assert_eq!(
        split_output(output),
        vec![
            call("{\"name\":\"ls\"}", true),
            call("{\"name\":\"read\"}", true),
            text(" done"),
        ]
    );
}

#[test]
fn the_streaming_splitter_holds_back_a_tag_split_across_chunks() {
    let mut splitter = OutputSplitter::new();
    assert_eq!(splitter.push("Sure <tool_"), vec![text("Sure ")]);
    assert_eq!(splitter.push("call>{\"name\":"), vec![]);
    assert_eq!(
        splitter.push("\"ls\"}</tool_"),
        vec![],
        "the closing tag is not complete yet"
    );
    assert_eq!(
        splitter.push("call>"),
        vec![call("{\"name\":\"ls\"}", true)]
    );
    assert_eq!(splitter.finish(), None);
}

#[test]
fn the_streaming_splitter_releases_held_text_once_it_cannot_be_a_tag() {
    let mut splitter = OutputSplitter::new();
    assert_eq!(splitter.push("a <"), vec![text("a ")]);
    assert_eq!(splitter.push("b"), vec![text("<b")]);
    assert_eq!(splitter.push("<to"), vec![]);
    assert_eq!(splitter.finish(), Some(text("<to")));
}

#[test]
fn a_good_body_parses_to_name_and_arguments() {
    assert_eq!(
        parse_tool_call(
            "\n{\"name\": \"read\", \"arguments\": {\"path\": \"src/lib.rs\", \"limit\": 5}}\n"
        ),
        Ok(("read".to_owned(), json!({"path": "src/lib.rs", "limit": 5})))
    );
}

#[test]
fn missing_or_null_arguments_are_an_empty_object() {
    assert_eq!(
        parse_tool_call("{\"name\": \"ls\"}"),
        Ok(("ls".to_owned(), json!({})))
    );
    assert_eq!(
        parse_tool_call("{\"name\": \"ls\", \"arguments\": null}"),
        Ok(("ls".to_owned(), json!({})))
    );
}

#[test]
fn arguments_encoded_as_a_json_string_are_decoded() {
    assert_eq!(
        parse_tool_call(r#"{"name": "ls", "arguments": "{\"path\": \"src\"}"}"#),
        Ok(("ls".to_owned(), json!({"path": "src"})))
    );
}

#[test]
fn malformed_bodies_are_typed_errors() {
    assert!(matches!(
        parse_tool_call("{\"name\": \"read\", \"arguments\": {\"path\": "),
        Err(ToolCallParseError::NotJson(_))
    ));
    assert_eq!(parse_tool_call("[1, 2]"), Err(ToolCallParseError::NoName));
    assert_eq!(
        parse_tool_call("{\"arguments\": {}}"),
        Err(ToolCallParseError::NoName)
    );
    assert_eq!(
        parse_tool_call("{\"name\": \"\", \"arguments\": {}}"),
        Err(ToolCallParseError::NoName)
    );
    assert_eq!(
        parse_tool_call("{\"name\": \"ls\", \"arguments\": [\"src\"]}"),
        Err(ToolCallParseError::ArgumentsNotObject)
    );
    assert_eq!(
        parse_tool_call("{\"name\": \"ls\", \"arguments\": \"not json\"}"),
        Err(ToolCallParseError::ArgumentsNotObject)
    );
}
