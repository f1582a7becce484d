//! The coding agent's own message roles and how the model sees them (pi-reference §1.5,
//! Pi's `convertToLlm`): a `compactionSummary` reaches the model as a user message wrapping
//! the summary in `<summary>` tags.

use std::sync::Arc;

use rho_agent::{AgentMessage, ContextHooks, CustomMessage, HookError};
use rho_ai::{ContentBlock, Message, UserContent, UserMessage};
use serde_json::{Map, Value};

/// The role of the message that stands for the compacted history.
pub const COMPACTION_SUMMARY_ROLE: &str = "compactionSummary";

/// What the model reads before a compaction summary.
pub const COMPACTION_SUMMARY_PREFIX: &str = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";
/// What the model reads after a compaction summary.
pub const COMPACTION_SUMMARY_SUFFIX: &str = "\n</summary>";
/// What the model reads before a branch summary.
pub const BRANCH_SUMMARY_PREFIX: &str =
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";
/// What the model reads after a branch summary (Pi puts no newline before the tag).
pub const BRANCH_SUMMARY_SUFFIX: &str = "</summary>";

/// The `compactionSummary` message: `{role, summary, tokensBefore, timestamp}` in Pi's order;
/// `timestamp` is epoch milliseconds (the compaction entry's time).
pub fn compaction_summary_message(
    summary: &str,
    tokens_before: u64,
    timestamp_ms: i64,
) -> AgentMessage {
    let mut fields = Map::new();
    fields.insert("summary".to_owned(), Value::from(summary));
    fields.insert("tokensBefore".to_owned(), Value::from(tokens_before));
    fields.insert("timestamp".to_owned(), Value::from(timestamp_ms));
    AgentMessage::Custom(Arc::new(CustomMessage {
        role: COMPACTION_SUMMARY_ROLE.to_owned(),
        fields,
    }))
}

/// The text the model reads for a compaction summary.
pub fn compaction_summary_text(summary: &str) -> String {
    format!("{COMPACTION_SUMMARY_PREFIX}{summary}{COMPACTION_SUMMARY_SUFFIX}")
}

/// Pi's `convertToLlm`: `user`, `assistant` and `toolResult` as they are; `bashExecution`
/// (unless `excludeFromContext`), `custom`, `branchSummary` and `compactionSummary` as user
/// messages; any other role dropped.
pub fn convert_to_llm(messages: &[AgentMessage]) -> Vec<Message> {
    messages.iter().filter_map(convert_one).collect()
}

fn convert_one(message: &AgentMessage) -> Option<Message> {
    let custom = match message {
        AgentMessage::Llm(m) => return Some(m.clone()),
        // The system prompt reaches the model as the request's prompt, not as a message.
        AgentMessage::System(_) => return None,
        AgentMessage::Custom(custom) => custom,
    };
    let fields = &custom.fields;
    let str_field = |name: &str| fields.get(name).and_then(Value::as_str).unwrap_or("");
    let content = match custom.role.as_str() {
        "bashExecution" => {
            if fields.get("excludeFromContext").and_then(Value::as_bool) == Some(true) {
                return None;
            }
            UserContent::Blocks(vec![ContentBlock::text(bash_execution_text(fields))])
        }
        "custom" => match fields.get("content") {
            Some(Value::String(text)) => {
                UserContent::Blocks(vec![ContentBlock::text(text.clone())])
            }
            // Blocks that do not parse as content blocks are not something a model can read.
            Some(blocks) => UserContent::Blocks(serde_json::from_value(blocks.clone()).ok()?),
            None => return None,
        },
        "branchSummary" => UserContent::Blocks(vec![ContentBlock::text(format!(
            "{BRANCH_SUMMARY_PREFIX}{}{BRANCH_SUMMARY_SUFFIX}",
            str_field("summary")
        ))]),
        COMPACTION_SUMMARY_ROLE => UserContent::Blocks(vec![ContentBlock::text(
            compaction_summary_text(str_field("summary")),
        )]),
        _ => return None,
    };
    let timestamp = fields.get("timestamp").and_then(Value::as_i64).unwrap_or(0);
    Some(Message::User(Arc::new(UserMessage { content, timestamp })))
}

/// Pi's `bashExecutionToText`: what the model reads for a user-run shell command.
pub fn bash_execution_text(fields: &Map<String, Value>) -> String {
    let str_field = |name: &str| fields.get(name).and_then(Value::as_str).unwrap_or("");
    let mut text = format!("Ran `{}`\n", str_field("command"));
    let output = str_field("output");
    if output.is_empty() {
        text.push_str("(no output)");
    } else {
        text.push_str(&format!("```\n{output}\n```"));
    }
    if fields.get("cancelled").and_then(Value::as_bool) == Some(true) {
        text.push_str("\n\n(command cancelled)");
    } else if let Some(code) = fields
        .get("exitCode")
        .and_then(Value::as_i64)
        .filter(|c| *c != 0)
    {
        text.push_str(&format!("\n\nCommand exited with code {code}"));
    }
    let path = str_field("fullOutputPath");
    if fields.get("truncated").and_then(Value::as_bool) == Some(true) && !path.is_empty() {
        text.push_str(&format!("\n\n[Output truncated. Full output: {path}]"));
    }
    text
}

/// The session's default `convertToLlm`: Pi's, so a compaction summary, a branch summary or
/// a user's `bashExecution` reaches the model as the user text Pi sends.
pub struct CodingAgentMessages;

#[async_trait::async_trait]
impl ContextHooks for CodingAgentMessages {
    fn convert_to_llm(&self, messages: &[AgentMessage]) -> Result<Vec<Message>, HookError> {
        Ok(convert_to_llm(messages))
    }

    fn converts_each_message_alone(&self) -> bool {
        true
    }
}
