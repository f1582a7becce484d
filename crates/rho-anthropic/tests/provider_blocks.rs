//! Server-side tool blocks (web search, MCP, tool search) are kept on the message for replay to
//! the same model, in the place they stood, and never become tool calls rho would run.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::sync::Arc;

use common::{fold, model};
use rho_ai::{ContentBlock, Message, ProviderBlock};
use rho_anthropic::convert::convert_messages;
use serde_json::{Value, json};

fn sse(data: Value) -> String {
    format!(
        "event: {}\ndata: {data}\n\n",
        data["type"].as_str().unwrap()
    )
}

fn searched_then_answered() -> String {
    [
        sse(json!({"type": "message_start", "message": {"id": "msg_1", "usage": {"input_tokens": 5, "output_tokens": 1}}})),
        sse(json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})),
        sse(json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Searching."}})),
        sse(json!({"type": "content_block_stop", "index": 0})),
        sse(json!({"type": "content_block_start", "index": 1, "content_block": {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}})),
        sse(json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"query\": \"rust\"}"}})),
        sse(json!({"type": "content_block_stop", "index": 1})),
        sse(json!({"type": "content_block_start", "index": 2, "content_block": {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []}})),
        sse(json!({"type": "content_block_stop", "index": 2})),
        sse(json!({"type": "content_block_start", "index": 3, "content_block": {"type": "text", "text": ""}})),
        sse(json!({"type": "content_block_delta", "index": 3, "delta": {"type": "text_delta", "text": "Found it."}})),
        sse(json!({"type": "content_block_stop", "index": 3})),
        sse(json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 9}})),
        sse(json!({"type": "message_stop"})),
    ]
    .concat()
}

#[test]
fn server_blocks_are_kept_in_place_and_are_never_tool_calls() {
    let message = fold(searched_then_answered().as_bytes()).outcome.unwrap();
    assert_eq!(
        message.content,
        vec![
            ContentBlock::text("Searching."),
            ContentBlock::text("Found it.")
        ]
    );
    assert_eq!(message.tool_calls().count(), 0);
    assert_eq!(
        message.provider_blocks,
        vec![
            ProviderBlock {
                position: 1,
                block: Arc::new(
                    json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "rust"}})
                ),
            },
            ProviderBlock {
                position: 1,
                block: Arc::new(
                    json!({"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []})
                ),
            },
        ]
    );
}

#[test]
fn replay_to_the_same_model_puts_server_blocks_back_where_they_stood() {
    let mut message = fold(searched_then_answered().as_bytes()).outcome.unwrap();
    let target = model();
    message.api = target.api.clone();
    message.provider = target.provider.clone();
    message.model = target.id.clone();
    let wire = convert_messages(&[Message::Assistant(Arc::new(message))], None);
    let types: Vec<&str> = wire[0]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        ["text", "server_tool_use", "web_search_tool_result", "text"]
    );
}

#[test]
fn another_model_never_sees_them() {
    let mut message = fold(searched_then_answered().as_bytes()).outcome.unwrap();
    message.model = "some-other-model".into();
    let messages = [Message::Assistant(Arc::new(message))];
    let transformed =
        rho_ai::transform::transform_messages(&messages, &model(), &|id: &str| id.to_owned());
    let Message::Assistant(replayed) = &transformed[0] else {
        panic!()
    };
    assert!(replayed.provider_blocks.is_empty());
    assert_eq!(replayed.content.len(), 2);
}
