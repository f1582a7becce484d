//! Every recorded Gemini stream folds into the whole message SOURCES.md describes: text and
//! thought blocks with their signatures, whole function calls, the last usage, the first
//! response id, `toolUse` whenever a call was made.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{checked_text, expected_message, fixture_body, fold, kinds, strings, usage};
use rho_ai::{
    AssistantMessage, AssistantMessageEvent, ContentBlock, StopReason, TextContent,
    ThinkingContent, ToolCall,
};
use serde_json::json;

fn folded_message(name: &str) -> AssistantMessage {
    let folded = fold(&fixture_body(name));
    let message = folded.outcome.unwrap();
    assert_eq!(
        folded.events.last(),
        Some(&AssistantMessageEvent::Done {
            reason: message.stop_reason,
            message: message.clone(),
        })
    );
    message
}

fn text(text: &str, signature: Option<String>) -> ContentBlock {
    ContentBlock::Text(TextContent {
        text: text.into(),
        text_signature: signature,
    })
}

fn thinking(text: &str) -> ContentBlock {
    ContentBlock::Thinking(ThinkingContent {
        thinking: text.into(),
        thinking_signature: None,
        redacted: None,
    })
}

fn call(
    id: &str,
    name: &str,
    arguments: serde_json::Value,
    signature: Option<String>,
) -> ContentBlock {
    ContentBlock::ToolCall(ToolCall {
        id: id.into(),
        name: name.into(),
        arguments,
        thought_signature: signature,
    })
}

/// The text of block `index` of `message` (text, thinking or a call's signature).
fn block_text(message: &AssistantMessage, index: usize) -> &str {
    match &message.content[index] {
        ContentBlock::Text(t) => &t.text,
        ContentBlock::Thinking(t) => &t.thinking,
        other => panic!("no text in {other:?}"),
    }
}

fn signature(message: &AssistantMessage, index: usize) -> &str {
    match &message.content[index] {
        ContentBlock::Text(t) => t.text_signature.as_deref().unwrap(),
        ContentBlock::Thinking(t) => t.thinking_signature.as_deref().unwrap(),
        ContentBlock::ToolCall(c) => c.thought_signature.as_deref().unwrap(),
        ContentBlock::Image(_) => panic!("image"),
    }
}

#[test]
fn plain_text_in_three_crlf_chunks_is_one_text_block_with_the_final_usage() {
    let message = folded_message("text-gemini-2.0-flash.sse");
    let expected = AssistantMessage {
        content: vec![text("The capital of France is Paris.\n", None)],
        response_id: Some("w1peaMz6INOvnvgPgYfPiQY".into()),
        usage: usage(13, 8, 0, 21),
        stop_reason: StopReason::Stop,
        ..expected_message(&message)
    };
    assert_eq!(message, expected);
}

#[test]
fn usage_repeated_mid_stream_counts_only_as_its_last_value() {
    let message = folded_message("usage-mid-stream-gemini-2.5-flash.sse");
    let counting: Vec<String> = (1..=30).map(|n| n.to_string()).collect();
    let expected = AssistantMessage {
        content: vec![text(&counting.join("\n"), None)],
        response_id: Some("ru1garvBEoOiqtsP2fznmQw".into()),
        usage: usage(18, 80, 35, 133),
        stop_reason: StopReason::Stop,
        ..expected_message(&message)
    };
    assert_eq!(message, expected);
}

#[test]
fn a_function_call_with_arguments_is_a_signed_tool_call_and_the_turn_is_tool_use() {
    let message = folded_message("function-call-gemini-3-pro.jsonl");
    let signature = checked_text(signature(&message, 0), "EqUCCqICAb4+9vsh8Pd5", 396);
    let expected = AssistantMessage {
        content: vec![
            call(
                "weather#1",
                "weather",
                json!({"location": "San Francisco"}),
                Some(signature),
            ),
            // The closing chunk's empty text part opens an empty text block, as in Pi.
            text("", None),
        ],
        response_id: Some("b36LacjwM668nsEP2tbsgQQ".into()),
        usage: usage(29, 15, 45, 89),
        stop_reason: StopReason::ToolUse,
        ..expected_message(&message)
    };
    assert_eq!(message, expected);
}

#[test]
fn a_function_call_arrives_whole_as_start_one_delta_and_end() {
    let folded = fold(&fixture_body("function-call-gemini-3-pro.jsonl"));
    assert_eq!(
        kinds(&folded.events),
        strings(&[
            "start",
            "toolcall_start",
            "toolcall_delta",
            "toolcall_end",
            "text_start",
            "text_delta",
            "text_end",
            "done",
        ])
    );
    let AssistantMessageEvent::ToolCallDelta {
        content_index,
        delta,
        ..
    } = &folded.events[2]
    else {
        panic!("{:?}", folded.events[2]);
    };
    assert_eq!(
        (*content_index, delta.as_str()),
        (0, r#"{"location":"San Francisco"}"#)
    );
}

#[test]
fn a_function_call_without_arguments_gets_an_empty_object_and_keeps_its_signature() {
    let message = folded_message("function-call-thought-signature-gemini-3-pro.sse");
    let signature = checked_text(signature(&message, 0), "EpwICpkIAXLI2nxlU6gs", 1408);
    let expected = AssistantMessage {
        content: vec![
            call("get_country#1", "get_country", json!({}), Some(signature)),
            text("", None),
        ],
        response_id: Some("QUVVadTSNJ6_qtsPvN7J8Q0".into()),
        usage: usage(29, 10, 202, 241),
        stop_reason: StopReason::ToolUse,
        ..expected_message(&message)
    };
    assert_eq!(message, expected);
}

#[test]
fn thought_parts_form_one_thinking_block_before_the_signed_answer_text() {
    let message = folded_message("thoughts-gemini-2.5-pro.sse");
    let thought = checked_text(
        block_text(&message, 0),
        "**Clarifying User Goals**\n\nI'm currently focused on defining the use",
        1575,
    );
    let answer = checked_text(
        block_text(&message, 1),
        "This is a great question! Safely crossing the street is all about being aware and predicta",
        1938,
    );
    let answer_signature = checked_text(signature(&message, 1), "CiIB0e2Kb6Syj1a961Ef", 6152);
    let expected = AssistantMessage {
        content: vec![thinking(&thought), text(&answer, Some(answer_signature))],
        response_id: Some("beHBaJfEMIi-qtsP3769-Q8".into()),
        usage: usage(34, 469, 787, 1290),
        stop_reason: StopReason::Stop,
        ..expected_message(&message)
    };
    assert_eq!(message, expected);
}

#[test]
fn grounded_text_is_folded_and_grounding_metadata_is_ignored() {
    let message = folded_message("google-search-grounding-gemini-2.5-pro.sse");
    let answer = checked_text(
        block_text(&message, 0),
        "### Weather in San Francisco is Mild and Partly Cloudy Today\n\n**San Francisco, CA** - To",
        926,
    );
    let expected = AssistantMessage {
        content: vec![text(&answer, None)],
        response_id: Some("ftnJaMmAMcm-qtsPwvCCoAo".into()),
        usage: usage(17, 241, 412, 772),
        stop_reason: StopReason::Stop,
        ..expected_message(&message)
    };
    assert_eq!(message, expected);
}

#[test]
fn code_execution_parts_are_skipped_and_the_last_text_signature_is_kept() {
    let message = folded_message("code-execution-gemini-3-flash.sse");
    let signature = checked_text(signature(&message, 0), "EoECCv4BAQw51segR8LG", 348);
    let expected = AssistantMessage {
        content: vec![text(
            r"The result of $65465 - 6544 \times 65464 - 6 + 1.02255$ is **-428,330,955.97745**.",
            Some(signature),
        )],
        response_id: Some("n1P6abvRFaKdz7IPkcuQ2Aw".into()),
        usage: usage(147, 108, 168, 783),
        stop_reason: StopReason::Stop,
        ..expected_message(&message)
    };
    assert_eq!(message, expected);
}

#[test]
fn vertex_streamed_arguments_assemble_into_one_call_each() {
    let message = folded_message("vertex-streamed-function-args-parallel.jsonl");
    let thought = checked_text(
        block_text(&message, 0),
        "**Processing User Requests**\n\nI've started by understanding the user",
        320,
    );
    let signature = checked_text(signature(&message, 1), "AY89a18a8/Loc2wl5oft", 1060);
    let expected = AssistantMessage {
        content: vec![
            thinking(&thought),
            call("read_theme#1", "read_theme", json!({}), Some(signature)),
            call("read_screen#2", "read_screen", json!({"id": "A"}), None),
            call("read_screen#3", "read_screen", json!({"id": "B"}), None),
            call("read_screen#4", "read_screen", json!({"id": "C"}), None),
            text("", None),
        ],
        response_id: Some("_vr4aYiWEJnYodAPkujX0QM".into()),
        usage: usage(249, 58, 183, 490),
        stop_reason: StopReason::ToolUse,
        ..expected_message(&message)
    };
    assert_eq!(message, expected);

    let folded = fold(&fixture_body(
        "vertex-streamed-function-args-parallel.jsonl",
    ));
    let mut expected_kinds =
        strings(&["start", "thinking_start", "thinking_delta", "thinking_end"]);
    for _ in 0..4 {
        expected_kinds.extend(strings(&[
            "toolcall_start",
            "toolcall_delta",
            "toolcall_end",
        ]));
    }
    expected_kinds.extend(strings(&["text_start", "text_delta", "text_end", "done"]));
    assert_eq!(kinds(&folded.events), expected_kinds);
}
