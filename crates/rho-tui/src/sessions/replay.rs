//! A resumed transcript shown as the conversation: each message becomes the entries a live run
//! would have left (user text, the answer's text and thinking, one block per tool call with its
//! result, a block per compaction or branch summary).

use std::time::{Duration, Instant};

use rho_agent::AgentMessage;
use rho_ai::ContentBlock;
use serde_json::Value;

use crate::transcript::{
    AssistantEntry, Entry, SummaryEntry, SummaryKind, ToolEntry, ToolOrigin, ToolStatus,
    blocks_text, tool_entry_mut,
};

/// The conversation entries for `messages`, oldest first; `now` stands for when the tools ran.
pub fn transcript_of(messages: &[AgentMessage], now: Instant) -> Vec<Entry> {
    let mut entries = Vec::new();
    for message in messages {
        if let Some(summary) = summary_of(message) {
            entries.push(Entry::Summary(summary));
        } else if let Some(user) = message.as_user() {
            entries.push(Entry::User(user.text_content()));
        } else if let Some(assistant) = message.as_assistant() {
            let blocks = crate::transcript::assistant_blocks(assistant);
            if !blocks.is_empty() {
                entries.push(Entry::Assistant(AssistantEntry {
                    blocks,
                    streaming: false,
                }));
            }
            for block in &assistant.content {
                if let ContentBlock::ToolCall(call) = block {
                    entries.push(Entry::Tool(ToolEntry {
                        origin: ToolOrigin::Agent,
                        id: call.id.clone(),
                        name: call.name.clone(),
                        args: call.arguments.clone(),
                        // Until its result is seen: a call without one was cut off.
                        status: ToolStatus::Cancelled,
                        started: now,
                        elapsed: Some(Duration::ZERO),
                        output: String::new(),
                        details: None,
                        hooks: Vec::new(),
                    }));
                }
            }
            if let Some(error) = &assistant.error_message {
                entries.push(Entry::Error(format!("Error: {error}")));
            }
        } else if let Some(result) = message.as_tool_result()
            && let Some(tool) =
                tool_entry_mut(&mut entries, ToolOrigin::Agent, &result.tool_call_id)
        {
            tool.status = ToolStatus::ended(result.is_error, result.duration_ms);
            tool.elapsed = result.duration_ms.map(Duration::from_millis);
            tool.output = blocks_text(&result.content);
            tool.details = result.details.clone().map(Box::new);
        }
    }
    entries
}

/// The block for a `compactionSummary` or `branchSummary` message; `None` for other roles.
pub fn summary_of(message: &AgentMessage) -> Option<SummaryEntry> {
    let AgentMessage::Custom(custom) = message else {
        return None;
    };
    let kind = match custom.role.as_str() {
        "compactionSummary" => SummaryKind::Compaction {
            tokens_before: custom
                .fields
                .get("tokensBefore")
                .and_then(Value::as_u64)
                .unwrap_or(0),
        },
        "branchSummary" => SummaryKind::Branch,
        _ => return None,
    };
    let summary = custom
        .fields
        .get("summary")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    Some(SummaryEntry { kind, summary })
}
