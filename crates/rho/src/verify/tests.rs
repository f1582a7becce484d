//! Unit tests of the pure checks on hand-written lines (the binary tests use real logs).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;

use super::check::check;
use super::input::{InputError, parse_lines};

fn problems(text: &str) -> Vec<String> {
    check(&parse_lines(text.as_bytes()).unwrap()).problems
}

#[test]
fn a_turn_end_without_a_turn_start_is_named_by_its_line() {
    let text = "{\"type\":\"agent_start\"}\n{\"type\":\"turn_end\"}\n{\"type\":\"agent_settled\",\"reason\":\"completed\",\"turns\":0}\n";
    assert_eq!(problems(text), ["turn_end on line 2 has no turn_start"]);
}

#[test]
fn a_failed_call_with_duration_ms_in_only_one_place_is_not_verified() {
    let lines = [
        json!({"type": "turn_start"}),
        json!({"type": "message_end", "message": {"role": "assistant", "content": [{"type": "toolCall", "id": "a", "name": "read", "arguments": {}}]}}),
        json!({"type": "tool_execution_start", "toolCallId": "a", "toolName": "read"}),
        json!({"type": "tool_execution_end", "toolCallId": "a", "toolName": "read", "isError": true, "durationMs": 3}),
        json!({"type": "message_end", "message": {"role": "toolResult", "toolCallId": "a", "toolName": "read", "isError": true}}),
        json!({"type": "turn_end"}),
        json!({"type": "turn_start"}),
        json!({"type": "message_end", "message": {"role": "assistant", "content": [{"type": "toolCall", "id": "b", "name": "read", "arguments": {}}]}}),
        json!({"type": "tool_execution_start", "toolCallId": "b", "toolName": "read"}),
        json!({"type": "tool_execution_start", "toolCallId": "b", "toolName": "read"}),
        json!({"type": "tool_execution_end", "toolCallId": "b", "toolName": "read", "isError": false, "durationMs": 1}),
        json!({"type": "message_end", "message": {"role": "toolResult", "toolCallId": "b", "toolName": "read", "isError": false, "durationMs": 1}}),
        json!({"type": "turn_end"}),
        json!({"type": "agent_settled", "reason": "completed", "turns": 2}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    assert_eq!(
        problems(&text),
        [
            "tool call a (read): durationMs is on only one of tool_execution_end and toolResult",
            "tool call b (read): 2 × tool_execution_start",
        ]
    );
}

#[test]
fn input_errors_name_their_line() {
    assert_eq!(parse_lines(b"\n  \n"), Err(InputError::Empty));
    assert_eq!(
        parse_lines(b"{\"type\":\"agent_start\"}\n[1]\n"),
        Err(InputError::NotAnEntry { line: 2 })
    );
    assert_eq!(
        parse_lines(b"{\"kind\":1}\n"),
        Err(InputError::NotAnEntry { line: 1 })
    );
    assert_eq!(
        parse_lines(b"{}\n\xff\n"),
        Err(InputError::NotAnEntry { line: 1 })
    );
    assert_eq!(
        parse_lines(b"\n\xff\n"),
        Err(InputError::NotUtf8 { line: 2 })
    );
    assert_eq!(
        parse_lines(b"{\"type\":\"x\"}\n{oops\n"),
        Err(InputError::NotJson {
            line: 2,
            message: "key must be a string at column 2".into()
        })
    );
}

#[test]
fn a_call_a_hook_blocked_is_named_as_blocked_not_failed_in_a_session_file() {
    let lines = [
        json!({"type": "session", "version": 3, "id": "s", "timestamp": "t", "cwd": "/"}),
        json!({"type": "message", "id": "1", "message": {"role": "assistant", "content": [
            {"type": "toolCall", "id": "a", "name": "bash", "arguments": {}},
            {"type": "toolCall", "id": "b", "name": "read", "arguments": {}}
        ]}}),
        json!({"type": "custom", "customType": "rho.hook", "data": {
            "hookEvent": "PreToolUse", "command": "guard", "toolCallId": "a", "toolName": "bash",
            "decision": "block", "reason": "no", "exitCode": 2, "durationMs": 4
        }}),
        json!({"type": "message", "id": "2", "message": {"role": "toolResult", "toolCallId": "a", "toolName": "bash", "isError": true}}),
        json!({"type": "message", "id": "3", "message": {"role": "toolResult", "toolCallId": "b", "toolName": "read", "isError": true, "durationMs": 1}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let report = check(&parse_lines(text.as_bytes()).unwrap());
    assert_eq!(
        report.problems,
        [
            "not settled (session file has no events)",
            "the last tool batch has errors: b (read)",
            "the last tool batch has calls blocked by a hook: a (bash)",
        ]
    );
    assert!(report.tool_calls[0].blocked_by_hook && !report.tool_calls[1].blocked_by_hook);
}
