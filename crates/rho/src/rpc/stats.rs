//! What `get_session_stats` and `get_last_assistant_text` compute, as Pi 1.6's
//! `getSessionStats`, `getContextUsage` and `getLastAssistantText` do. The stats count every
//! entry of the session (other branches, compacted history and failed attempts included), as
//! Pi 1.6 does, so the totals are what the session was billed.

use rho_agent::AgentMessage;
use rho_ai::{ContentBlock, StopReason, Usage};
use rho_host::compaction::estimate::{context_tokens, estimate_context_tokens};
use rho_session::{EntryKind, SessionEntry, SessionFile};
use serde_json::{Map, Value, json};

/// Pi's usage totals: tokens by kind and the total cost.
#[derive(Default)]
struct Totals {
    input: u64,
    output: u64,
    cache_read: u64,
    cache_write: u64,
    cost: f64,
}

impl Totals {
    fn add(&mut self, usage: &Usage) {
        self.input += usage.input;
        self.output += usage.output;
        self.cache_read += usage.cache_read;
        self.cache_write += usage.cache_write;
        self.cost += usage.cost.total;
    }
}

/// Counts by role over every `message` entry of the file.
#[derive(Default)]
struct Counts {
    user: usize,
    assistant: usize,
    tool_calls: usize,
    tool_results: usize,
    total: usize,
}

/// The `get_session_stats` data over every entry of `file`: `sessionFile` (when the session has
/// a file), counts by role (`totalMessages` counts every message entry, system and
/// `bashExecution` ones too), tokens and cost of assistant replies, tool results and
/// compaction summaries, and `contextUsage` from `messages` (the context the model sees;
/// omitted when the window is unknown).
pub fn session_stats(file: &SessionFile, messages: &[AgentMessage], context_window: u64) -> Value {
    let mut counts = Counts::default();
    let mut totals = Totals::default();
    for entry in file.entries() {
        match &entry.kind {
            EntryKind::Message(message) => {
                counts.total += 1;
                // A message that does not decode still counts, as a line Pi reads would.
                let Ok(message) = message.get() else { continue };
                if let Some(assistant) = message.as_assistant() {
                    counts.assistant += 1;
                    counts.tool_calls += assistant
                        .content
                        .iter()
                        .filter(|b| matches!(b, ContentBlock::ToolCall(_)))
                        .count();
                    totals.add(&assistant.usage);
                } else if let Some(result) = message.as_tool_result() {
                    counts.tool_results += 1;
                    if let Some(usage) = &result.usage {
                        totals.add(usage);
                    }
                } else if message.role() == "user" {
                    counts.user += 1;
                }
            }
            EntryKind::Compaction {
                usage: Some(usage), ..
            }
            | EntryKind::BranchSummary {
                usage: Some(usage), ..
            } => {
                if let Ok(usage) = serde_json::from_value::<Usage>(usage.clone()) {
                    totals.add(&usage);
                }
            }
            // Pi 1.6's `usage` entries (what its cache warming cost): rho writes none but
            // counts them in a session Pi wrote, as Pi does.
            EntryKind::Unknown { entry_type } if entry_type == "usage" => {
                if let Some(usage) = entry.extra.get("usage")
                    && let Ok(usage) = serde_json::from_value::<Usage>(usage.clone())
                {
                    totals.add(&usage);
                }
            }
            _ => {}
        }
    }
    let mut stats = Map::new();
    if let Some(path) = file.path() {
        stats.insert(
            "sessionFile".into(),
            Value::from(path.to_string_lossy().into_owned()),
        );
    }
    stats.insert("sessionId".into(), Value::from(file.session_id()));
    stats.insert("userMessages".into(), Value::from(counts.user));
    stats.insert("assistantMessages".into(), Value::from(counts.assistant));
    stats.insert("toolCalls".into(), Value::from(counts.tool_calls));
    stats.insert("toolResults".into(), Value::from(counts.tool_results));
    stats.insert("totalMessages".into(), Value::from(counts.total));
    let Totals {
        input,
        output,
        cache_read,
        cache_write,
        cost,
    } = totals;
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
        let usage = if usage_unknown_since_compaction(&file.branch_entries(None)) {
            json!({"tokens": null, "contextWindow": context_window, "percent": null})
        } else {
            let tokens = estimate_context_tokens(messages).tokens;
            let percent = tokens as f64 / context_window as f64 * 100.0;
            json!({"tokens": tokens, "contextWindow": context_window,
                   "percent": rho_stdx::js::number_value(percent)})
        };
        stats.insert("contextUsage".into(), usage);
    }
    Value::Object(stats)
}

/// Pi's rule: after a compaction the last reply's usage measured the context before it, so the
/// context size is unknown until an assistant reply after the compaction on this branch ended
/// without error or abort and reported usage.
fn usage_unknown_since_compaction(branch: &[&SessionEntry]) -> bool {
    let Some(at) = branch
        .iter()
        .rposition(|e| matches!(e.kind, EntryKind::Compaction { .. }))
    else {
        return false;
    };
    !branch[at + 1..].iter().any(|entry| {
        let EntryKind::Message(message) = &entry.kind else {
            return false;
        };
        message
            .get()
            .ok()
            .and_then(AgentMessage::as_assistant)
            .is_some_and(|a| {
                !matches!(a.stop_reason, StopReason::Aborted | StopReason::Error)
                    && context_tokens(&a.usage) > 0
            })
    })
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use rho_ai::{AssistantMessage, UserContent, UserMessage};

    fn user(text: &str) -> AgentMessage {
        UserMessage {
            content: UserContent::Text(text.to_owned()),
            timestamp: 1,
        }
        .into()
    }

    fn reply(input: u64, stop_reason: StopReason) -> AgentMessage {
        let mut a = AssistantMessage::empty("faux", "faux", "faux-1");
        a.usage.input = input;
        a.usage.total_tokens = input;
        a.stop_reason = stop_reason;
        a.into()
    }

    fn compaction(first_kept: String, input: u64) -> EntryKind {
        let usage = Usage {
            input,
            ..Usage::default()
        };
        EntryKind::Compaction {
            summary: "S".into(),
            first_kept_entry_id: first_kept,
            tokens_before: 10,
            details: None,
            usage: serde_json::to_value(usage).ok(),
            from_hook: Some(false),
            system_message: None,
        }
    }

    fn summary(stats: &Value) -> (Value, Value, Value, Value) {
        (
            stats["assistantMessages"].clone(),
            stats["totalMessages"].clone(),
            stats["tokens"]["input"].clone(),
            stats["contextUsage"]["tokens"].clone(),
        )
    }

    #[test]
    fn abandoned_branches_summaries_and_failed_replies_count_and_a_failure_leaves_the_size_unknown()
    {
        let mut file = SessionFile::in_memory("/w");
        let first = file.append_message(user("a")).unwrap();
        file.append_message(reply(100, StopReason::Stop)).unwrap();
        // Back to the first message with a summary of the branch left: the reply above is on
        // an abandoned branch now, and the summary call's usage counts too.
        let summary_usage = Usage {
            input: 3,
            ..Usage::default()
        };
        file.branch_with_summary(
            Some(&first),
            "S",
            None,
            None,
            serde_json::to_value(summary_usage).ok(),
        )
        .unwrap();
        let kept = file.append_message(reply(50, StopReason::Stop)).unwrap();
        file.append(compaction(kept, 7)).unwrap();
        file.append_message(user("b")).unwrap();
        file.append_message(reply(30, StopReason::Error)).unwrap();
        let stats = session_stats(&file, &[], 1000);
        assert!(stats.get("sessionFile").is_none());
        assert_eq!(
            summary(&stats),
            (json!(3), json!(5), json!(190), Value::Null)
        );
        file.append_message(reply(40, StopReason::Stop)).unwrap();
        let stats = session_stats(&file, &[user("b")], 1000);
        assert_eq!(summary(&stats), (json!(4), json!(6), json!(230), json!(1)));
    }

    #[test]
    fn pis_usage_entries_count_in_the_totals_as_pi_counts_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let lines = [
            r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-12-03T10:00:00.000Z","cwd":"/w"}"#,
            r#"{"type":"usage","id":"u1","parentId":null,"timestamp":"2026-12-03T10:00:01.000Z","kind":"cache_warm","provider":"anthropic","model":"claude","usage":{"input":11,"output":2,"cacheRead":5,"cacheWrite":0,"totalTokens":18,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}}"#,
        ];
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let (file, _) = SessionFile::open(&path).unwrap();
        let stats = session_stats(&file, &[], 1000);
        assert_eq!(
            (
                &stats["tokens"]["input"],
                &stats["tokens"]["cacheRead"],
                &stats["tokens"]["total"]
            ),
            (&json!(11), &json!(5), &json!(18))
        );
        assert_eq!(stats["totalMessages"], json!(0));
    }
}
