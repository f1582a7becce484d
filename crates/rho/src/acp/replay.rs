//! `session/load`: a session's transcript sent again as the updates a client would have seen
//! while it ran — the user's messages, the answers and thinking, each tool call and its end.

use std::collections::HashMap;
use std::path::Path;

use agent_client_protocol::v1::schema::{ContentBlock, ContentChunk, ImageContent, SessionUpdate};
use rho_ai::{AgentMessage, ContentBlock as Block, UserContent};
use serde_json::Value;

use super::updates::{ToolEnd, tool_call};

/// The updates that tell `messages` again.
pub fn replay(messages: &[AgentMessage], cwd: &Path) -> Vec<SessionUpdate> {
    let mut updates = Vec::new();
    let mut calls: HashMap<String, Value> = HashMap::new();
    for message in messages {
        if let Some(user) = message.as_user() {
            let blocks: Vec<ContentBlock> = match &user.content {
                UserContent::Text(text) => vec![text.clone().into()],
                UserContent::Blocks(blocks) => blocks.iter().filter_map(client_block).collect(),
            };
            updates.extend(
                blocks
                    .into_iter()
                    .map(|b| SessionUpdate::UserMessageChunk(ContentChunk::new(b))),
            );
        } else if let Some(reply) = message.as_assistant() {
            for block in &reply.content {
                match block {
                    Block::Text(text) => updates.push(SessionUpdate::AgentMessageChunk(
                        ContentChunk::new(text.text.clone().into()),
                    )),
                    Block::Thinking(thinking) => updates.push(SessionUpdate::AgentThoughtChunk(
                        ContentChunk::new(thinking.thinking.clone().into()),
                    )),
                    Block::ToolCall(call) => {
                        calls.insert(call.id.clone(), call.arguments.clone());
                        updates.push(SessionUpdate::ToolCall(tool_call(
                            &call.id,
                            &call.name,
                            &call.arguments,
                            cwd,
                        )));
                    }
                    Block::Image(_) => {}
                }
            }
        } else if let Some(result) = message.as_tool_result() {
            let args = calls.remove(&result.tool_call_id);
            let end = ToolEnd {
                id: &result.tool_call_id,
                tool: &result.tool_name,
                args: args.as_ref(),
                content: &result.content,
                is_error: result.is_error,
                raw_output: None,
            };
            updates.push(SessionUpdate::ToolCallUpdate(end.update(cwd)));
        }
    }
    updates
}

/// A user message's block as the client's (text and images; nothing else is in one).
fn client_block(block: &Block) -> Option<ContentBlock> {
    match block {
        Block::Text(text) => Some(text.text.clone().into()),
        Block::Image(image) => Some(ContentBlock::Image(ImageContent::new(
            image.data.clone(),
            image.mime_type.clone(),
        ))),
        _ => None,
    }
}
