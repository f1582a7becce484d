//! Every recorded Anthropic stream folds into the message SOURCES.md states for it (compared as
//! a `common::digest::Digest`: long strings abbreviated as SOURCES.md writes them, the rest whole).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::digest::{
    Digest, ServerBlock, digest, redacted, server, server_digest, text, thinking, tool,
};
use common::{cost, fixture_body, fold, model};
use rho_ai::{AssistantMessageEvent as E, Cost, StopReason};
use serde_json::json;

/// Folds `name` and checks the final message, the kept server blocks, the identity fields and
/// that cost follows usage.
fn assert_fixture(name: &str, expected: Digest, expected_server: Vec<ServerBlock>) {
    let folded = fold(&fixture_body(name));
    let message = folded.outcome.expect(name);
    assert_eq!(digest(&message), expected, "{name}");
    assert_eq!(
        server_digest(&folded.server_blocks),
        expected_server,
        "{name}"
    );
    let m = model();
    assert_eq!(
        (&*message.api, &*message.provider, &*message.model),
        (&*m.api, &*m.provider, &*m.id)
    );
    assert_eq!(message.error_message, None);
    let u = &message.usage;
    let (input, output) = (cost(3.0, u.input), cost(15.0, u.output));
    let (read, write) = (cost(0.3, u.cache_read), cost(3.75, u.cache_write));
    let expected_cost = Cost {
        input,
        output,
        cache_read: read,
        cache_write: write,
        total: input + output + read + write,
        total_from_provider: Some(false),
    };
    assert_eq!(u.cost, expected_cost, "{name}");
    let last = folded.events.last().unwrap();
    assert_eq!(
        last,
        &E::Done {
            reason: expected.stop_reason,
            message
        }
    );
}

#[test]
fn mcp_tool_use_with_thinking_keeps_server_blocks_out_of_content() {
    assert_fixture(
        "mcp-tool-use-thinking.sse",
        Digest {
            response_id: "msg_01Xf6SmUVY1mDrSwFc5RsY3n".into(),
            content: vec![
                thinking(
                    "The user is asking about the pydantic/pydantic-ai repository…(192 chars)",
                    492,
                ),
                text(
                    "**Pydantic-AI** is a framework for building Generative AI applications with type safety. I…(816 chars)",
                ),
            ],
            stop_reason: StopReason::Stop,
            usage: [3042, 354, 0, 0, 3396],
        },
        vec![
            server(
                "mcp_tool_use",
                "mcptoolu_01FZmJ5UspaX5BB9uU339UT1",
                Some("ask_question"),
                Some(json!({
                    "repoName": "pydantic/pydantic-ai",
                    "question": "What is this repository about? What are its main features and purpose?"
                })),
            ),
            server(
                "mcp_tool_result",
                "mcptoolu_01FZmJ5UspaX5BB9uU339UT1",
                None,
                None,
            ),
        ],
    );
}

#[test]
fn redacted_thinking_blocks_become_redacted_thinking_with_their_data_as_signature() {
    assert_fixture(
        "redacted-thinking.sse",
        Digest {
            response_id: "msg_018XZkwvj9asBiffg3fXt88s".into(),
            content: vec![
                redacted(744),
                redacted(296),
                text(
                    "I notice that you've sent what appears to be some kind of test string or command. I don't …(361 chars)",
                ),
            ],
            stop_reason: StopReason::Stop,
            usage: [92, 189, 0, 0, 281],
        },
        vec![],
    );
}

#[test]
fn a_data_only_text_stream_with_a_ping_folds() {
    assert_fixture(
        "text-ping.jsonl",
        Digest {
            response_id: "msg_01QC4g3HwBThD4BaNtBckFDJ".into(),
            content: vec![text(
                "Hello! I'm doing well, thank you for asking. How are you doing today? Is there anything I …(108 chars)",
            )],
            stop_reason: StopReason::Stop,
            usage: [12, 30, 0, 0, 42],
        },
        vec![],
    );
}

#[test]
fn the_smallest_text_stream_folds() {
    assert_fixture(
        "text-simple.sse",
        Digest {
            response_id: "msg_01T8kTq7cYyYJeQ5DxcVUc6D".into(),
            content: vec![text("Hello")],
            stop_reason: StopReason::Stop,
            usage: [10, 4, 0, 0, 14],
        },
        vec![],
    );
}

#[test]
fn text_then_a_tool_use_with_streamed_input_folds_to_a_tool_call() {
    assert_fixture(
        "text-then-tool-use-json.jsonl",
        Digest {
            response_id: "msg_01K2JbSUMYhez5RHoK9ZCj9U".into(),
            content: vec![
                text("I'll invoke the JSON response tool."),
                tool(
                    "toolu_01KFbKqPYSuAKujiL6mTfzYA",
                    "json",
                    json!({"elements": [{"location": "San Francisco", "temperature": 58, "condition": "sunny"}]}),
                ),
            ],
            stop_reason: StopReason::ToolUse,
            usage: [849, 47, 0, 0, 896],
        },
        vec![],
    );
}

#[test]
fn data_only_thinking_with_a_signature_then_text_folds() {
    assert_fixture(
        "thinking-signature-text.jsonl",
        Digest {
            response_id: "msg_01Y6V41gqPaKWEw7iPouH7iW".into(),
            content: vec![
                thinking(
                    "The previous result was 925. Now I need to divide that by 5.…(77 chars)",
                    332,
                ),
                text("925 ÷ 5 = 185"),
            ],
            stop_reason: StopReason::Stop,
            usage: [69, 53, 0, 0, 122],
        },
        vec![],
    );
}

#[test]
fn thinking_with_a_signature_then_long_text_folds() {
    assert_fixture(
        "thinking-signature-text.sse",
        Digest {
            response_id: "msg_01ALwQ87pTS7hH1PjSdC9wJD".into(),
            content: vec![
                thinking(
                    "This is a straightforward question about pedestrian safety. …(202 chars)",
                    504,
                ),
                text(
                    "Here are the basic steps for safely crossing the street:\\n\\n**At intersections with traffi…(1048 chars)",
                ),
            ],
            stop_reason: StopReason::Stop,
            usage: [43, 282, 0, 0, 325],
        },
        vec![],
    );
}

#[test]
fn a_tool_use_whose_only_input_delta_is_empty_has_empty_arguments() {
    assert_fixture(
        "thinking-then-tool-use-no-args.sse",
        Digest {
            response_id: "msg_01JdU4xqNHXL9QCFWkwCDKGr".into(),
            content: vec![
                thinking(
                    "The user wants me to:\\n1. Use the fixed_version tool\\n2. Tel…(185 chars)",
                    524,
                ),
                tool("toolu_01825dXWLSoJwCst1qTsiWdb", "fixed_version", json!({})),
            ],
            stop_reason: StopReason::ToolUse,
            usage: [598, 92, 0, 0, 690],
        },
        vec![],
    );
}

#[test]
fn tool_search_is_kept_aside_and_only_the_client_tool_becomes_a_tool_call() {
    assert_fixture(
        "tool-search-then-tool-use.sse",
        Digest {
            response_id: "msg_01E3Wn1NynZw9FALZ68znj9S".into(),
            content: vec![
                text(
                    "Let me search for a tool that can provide current exchange rate information.",
                ),
                text(
                    "I found the right tool! Let me fetch the current USD to EUR exchange rate for you.",
                ),
                tool(
                    "toolu_01EFn5wTNBYA8Reni8rbmnHT",
                    "get_exchange_rate",
                    json!({"from_currency": "USD", "to_currency": "EUR"}),
                ),
            ],
            stop_reason: StopReason::ToolUse,
            // message_delta's input (1591) replaces message_start's (702).
            usage: [1591, 175, 0, 0, 1766],
        },
        vec![
            server(
                "server_tool_use",
                "srvtoolu_01S5swZdBmTzLDVzwcT5LbHp",
                Some("tool_search_tool_bm25"),
                Some(json!({"query": "USD EUR exchange rate currency conversion"})),
            ),
            server(
                "tool_search_tool_result",
                "srvtoolu_01S5swZdBmTzLDVzwcT5LbHp",
                None,
                None,
            ),
        ],
    );
}

#[test]
fn web_search_with_citations_keeps_every_text_block_and_no_server_tool_call() {
    assert_fixture(
        "web-search-thinking-citations.sse",
        Digest {
            response_id: "msg_01QmxBSdEbD9ZeBWDVgFDoQ5".into(),
            content: vec![
                thinking(
                    "The user is asking about the weather in San Francisco today.…(407 chars)",
                    776,
                ),
                text(
                    "Based on the search results, I can see that the information is a bit dated (most results a…(250 chars)",
                ),
                text(
                    "Based on the search results, I can provide you with information about San Francisco's weat…(162 chars)",
                ),
                text("today (September 16) shows a high of 76°F and low of 59°F"),
                text(
                    " for San Francisco.\\n\\nFrom the recent San Francisco Chronicle weather report, ",
                ),
                text("average mid-September highs in San Francisco are around 70 degrees"),
                text(
                    ", so today's forecast of 76°F is slightly above the typical temperature for this time of y…(170 chars)",
                ),
                text(
                    "Daytime temperatures usually reach 22°C (72°F) in San Francisco in September, falling to 1…(109 chars)",
                ),
                text("\\n- "),
                text(
                    "There are normally 9 hours of bright sunshine each day in San Francisco in September",
                ),
                text("\\n- "),
                text(
                    "San Francisco experiences minimal rainfall in September, with an average precipitation of …(152 chars)",
                ),
                text(
                    "\\n\\nSo for today, you can expect partly sunny to sunny skies with a high around 76°F (24°C…(209 chars)",
                ),
            ],
            stop_reason: StopReason::Stop,
            usage: [22397, 637, 0, 0, 23034],
        },
        vec![
            server(
                "server_tool_use",
                "srvtoolu_01FYcUbzEaqqQh1WBRj1QX3h",
                Some("web_search"),
                Some(json!({"query": "San Francisco weather today"})),
            ),
            server(
                "web_search_tool_result",
                "srvtoolu_01FYcUbzEaqqQh1WBRj1QX3h",
                None,
                None,
            ),
            server(
                "server_tool_use",
                "srvtoolu_01FDqc7ruGpVRoNuD5G6jkUx",
                Some("web_search"),
                Some(json!({"query": "San Francisco weather September 16 2025"})),
            ),
            server(
                "web_search_tool_result",
                "srvtoolu_01FDqc7ruGpVRoNuD5G6jkUx",
                None,
                None,
            ),
        ],
    );
}
