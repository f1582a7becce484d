//! What `get_session_stats` and `get_last_assistant_text` compute from the transcript, as Pi's
//! `getSessionStats`, `getContextUsage` and `getLastAssistantText` do.

use rho_agent::AgentMessage;
use rho_ai::{AssistantMessage, ContentBlock, StopReason, Usage};
use rho_host::compaction::estimate::estimate_context_tokens;
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
        let tokens = estimate_context_tokens(messages).tokens;
        let percent = tokens as f64 / context_window as f64 * 100.0;
        stats.insert(
            "contextUsage".into(),
            json!({"tokens": tokens, "contextWindow": context_window, "percent": rho_stdx::js::number_value(percent)}),
        );
    }
    Value::Object(stats)
}

/// The trimmed text of the last assistant message that ended with `stop` or has text (Pi 1.6
/// skips failed, aborted and tool-only replies without text); `None` when there is none or it
/// has no text (Pi answers `{}` then).
pub fn last_assistant_text(messages: &[AgentMessage]) -> Option<String> {
    let last = messages.iter().rev().find_map(|m| {
        let assistant = m.as_assistant()?;
        let has_text = !assistant.text().trim().is_empty();
        (assistant.stop_reason == StopReason::Stop || has_text).then_some(assistant)
    })?;
    let text = last.text();
    let trimmed = text.trim();
    (!trimmed.is_empty()).then(|| trimmed.to_owned())
}
