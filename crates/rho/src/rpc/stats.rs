//! What `get_session_stats` and `get_last_assistant_text` compute from the transcript, as Pi's
//! `getSessionStats`, `getContextUsage` and `getLastAssistantText` do.

use rho_agent::AgentMessage;
use rho_ai::{AssistantMessage, ContentBlock, Message, StopReason, Usage, UserContent};
use serde_json::{Map, Value, json};

/// The `get_session_stats` data: counts by role, summed assistant usage and cost, and the
/// context-window estimate (`contextUsage`, omitted when the window is unknown).
pub fn session_stats(session_id: &str, messages: &[AgentMessage], context_window: u64) -> Value {
    let count = |role: &str| messages.iter().filter(|m| m.role() == role).count();
    let assistants: Vec<&AssistantMessage> = messages
        .iter()
        .filter_map(|m| m.as_assistant().map(AsRef::as_ref))
        .collect();
    let tool_calls: usize = assistants
        .iter()
        .map(|a| {
            a.content
                .iter()
                .filter(|b| matches!(b, ContentBlock::ToolCall(_)))
                .count()
        })
        .sum();
    let sum = |field: fn(&Usage) -> u64| assistants.iter().map(|a| field(&a.usage)).sum::<u64>();
    let (input, output) = (sum(|u| u.input), sum(|u| u.output));
    let (cache_read, cache_write) = (sum(|u| u.cache_read), sum(|u| u.cache_write));
    let cost: f64 = assistants.iter().map(|a| a.usage.cost.total).sum();
    let mut stats = Map::new();
    stats.insert("sessionId".into(), Value::from(session_id));
    stats.insert("userMessages".into(), Value::from(count("user")));
    stats.insert("assistantMessages".into(), Value::from(assistants.len()));
    stats.insert("toolCalls".into(), Value::from(tool_calls));
    stats.insert("toolResults".into(), Value::from(count("toolResult")));
    stats.insert("totalMessages".into(), Value::from(messages.len()));
    stats.insert(
        "tokens".into(),
        json!({
            "input": input,
            "output": output,
            "cacheRead": cache_read,
            "cacheWrite": cache_write,
            "total": input + output + cache_read + cache_write,
        }),
    );
    stats.insert("cost".into(), rho_stdx::js::number_value(cost));
    if context_window > 0 {
        let tokens = estimate_context_tokens(messages);
        let percent = tokens as f64 / context_window as f64 * 100.0;
        stats.insert(
            "contextUsage".into(),
            json!({"tokens": tokens, "contextWindow": context_window, "percent": rho_stdx::js::number_value(percent)}),
        );
    }
    Value::Object(stats)
}

/// The last valid usage's context size plus a chars/4 estimate of the messages after it (Pi's
/// `estimateContextTokens`).
fn estimate_context_tokens(messages: &[AgentMessage]) -> u64 {
    let last_usage = messages.iter().enumerate().rev().find_map(|(index, m)| {
        let assistant = m.as_assistant()?;
        let valid = !matches!(
            assistant.stop_reason,
            StopReason::Aborted | StopReason::Error
        );
        valid.then_some((index, &assistant.usage))
    });
    let (base, from) = match last_usage {
        Some((index, usage)) => {
            let total = if usage.total_tokens > 0 {
                usage.total_tokens
            } else {
                usage.input + usage.output + usage.cache_read + usage.cache_write
            };
            (total, index + 1)
        }
        None => (0, 0),
    };
    base + messages[from..].iter().map(estimate_tokens).sum::<u64>()
}

/// Characters are counted in UTF-16 units, as JavaScript's `length` does.
fn chars(text: &str) -> u64 {
    text.encode_utf16().count() as u64
}

fn estimate_tokens(message: &AgentMessage) -> u64 {
    let text_chars = |blocks: &[ContentBlock]| -> u64 {
        blocks
            .iter()
            .map(|block| match block {
                ContentBlock::Text(text) => chars(&text.text),
                ContentBlock::Image(_) => 4800,
                _ => 0,
            })
            .sum()
    };
    let count = match message {
        AgentMessage::Llm(Message::User(user)) => match &user.content {
            UserContent::Text(text) => chars(text),
            UserContent::Blocks(blocks) => {
                blocks.iter().map(|b| b.as_text().map_or(0, chars)).sum()
            }
        },
        AgentMessage::Llm(Message::Assistant(assistant)) => assistant
            .content
            .iter()
            .map(|block| match block {
                ContentBlock::Text(text) => chars(&text.text),
                ContentBlock::Thinking(thinking) => chars(&thinking.thinking),
                ContentBlock::ToolCall(call) => {
                    chars(&call.name) + chars(&call.arguments.to_string())
                }
                ContentBlock::Image(_) => 0,
            })
            .sum(),
        AgentMessage::Llm(Message::ToolResult(result)) => text_chars(&result.content),
        AgentMessage::Custom(custom) => {
            let text_of = |name: &str| custom.fields.get(name).and_then(Value::as_str);
            match custom.role.as_str() {
                "bashExecution" => {
                    chars(text_of("command").unwrap_or("")) + chars(text_of("output").unwrap_or(""))
                }
                _ => 0,
            }
        }
    };
    count.div_ceil(4)
}

/// The trimmed text of the last assistant message that is not an empty abort; `None` when there
/// is none or it has no text (Pi answers `{}` then).
pub fn last_assistant_text(messages: &[AgentMessage]) -> Option<String> {
    let last = messages.iter().rev().find_map(|m| {
        let assistant = m.as_assistant()?;
        let empty_abort =
            assistant.stop_reason == StopReason::Aborted && assistant.content.is_empty();
        (!empty_abort).then_some(assistant)
    })?;
    let text = last.text();
    let trimmed = text.trim();
    (!trimmed.is_empty()).then(|| trimmed.to_owned())
}
