//! The checks of contract §3 `rho verify` over parsed lines. Pure: lines in, [`Report`] out.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::input::Line;
use super::report::{Report, Settled, Source, ToolCall, Turn};

/// Event types of `--mode json`; a line with one of these makes the input an event log.
const EVENT_TYPES: &[&str] = &[
    "agent_start",
    "agent_end",
    "agent_settled",
    "turn_start",
    "turn_end",
    "message_start",
    "message_update",
    "message_end",
    "tool_execution_start",
    "tool_execution_update",
    "tool_execution_end",
    "queue_update",
    "hook_execution_start",
    "hook_execution_end",
];

/// The `customType` of the session entries that record hook runs.
const HOOK_ENTRY: &str = "rho.hook";

/// Everything seen about one `toolCallId`, before it is judged.
#[derive(Debug, Default)]
struct Seen {
    name: String,
    requested: usize,
    starts: usize,
    ends: usize,
    end_is_error: Option<bool>,
    end_duration: Option<u64>,
    results: usize,
    result_is_error: Option<bool>,
    result_duration: Option<u64>,
    blocked_by_hook: bool,
}

/// Tool calls keyed by id, kept in first-seen order.
#[derive(Debug, Default)]
struct Calls {
    order: Vec<String>,
    by_id: HashMap<String, Seen>,
}

impl Calls {
    fn entry(&mut self, id: &str, name: Option<&str>) -> &mut Seen {
        if !self.by_id.contains_key(id) {
            self.order.push(id.to_owned());
        }
        let seen = self.by_id.entry(id.to_owned()).or_default();
        if seen.name.is_empty()
            && let Some(name) = name
        {
            name.clone_into(&mut seen.name);
        }
        seen
    }
}

fn str_field<'a>(fields: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    fields.get(key).and_then(Value::as_str)
}

/// Decides what kind of input this is: any event line makes it an event log; otherwise `message`
/// entries make it a session file.
fn source_of(lines: &[Line]) -> Source {
    let has_events = lines.iter().any(|l| EVENT_TYPES.contains(&l.kind.as_str()));
    let has_messages = lines.iter().any(|l| l.kind == "message");
    if has_messages && !has_events {
        Source::SessionFile
    } else {
        Source::EventLog
    }
}

/// Records the tool calls an assistant message requests and the result a toolResult carries.
/// Returns the ids of the assistant's tool calls (its batch), empty for other messages.
fn absorb_message(message: &Map<String, Value>, calls: &mut Calls) -> Vec<String> {
    let mut batch = Vec::new();
    match str_field(message, "role") {
        Some("assistant") => {
            let blocks = message.get("content").and_then(Value::as_array);
            for block in blocks.into_iter().flatten() {
                let Some(block) = block.as_object() else {
                    continue;
                };
                if str_field(block, "type") != Some("toolCall") {
                    continue;
                }
                let Some(id) = str_field(block, "id") else {
                    continue;
                };
                calls.entry(id, str_field(block, "name")).requested += 1;
                batch.push(id.to_owned());
            }
        }
        Some("toolResult") => {
            if let Some(id) = str_field(message, "toolCallId") {
                let seen = calls.entry(id, str_field(message, "toolName"));
                seen.results += 1;
                seen.result_is_error = message.get("isError").and_then(Value::as_bool);
                seen.result_duration = message.get("durationMs").and_then(Value::as_u64);
            }
        }
        _ => {}
    }
    batch
}

/// Checks parsed lines against the contract's `rho verify` rule.
pub fn check(lines: &[Line]) -> Report {
    let source = source_of(lines);
    let mut calls = Calls::default();
    let mut last_batch: Vec<String> = Vec::new();
    let mut turns: Vec<Turn> = Vec::new();
    let mut open_turn: Option<usize> = None;
    let mut settled = None;

    for line in lines {
        let message = match (source, line.kind.as_str()) {
            (Source::EventLog, "message_end") | (Source::SessionFile, "message") => {
                line.fields.get("message").and_then(Value::as_object)
            }
            _ => None,
        };
        if let Some(message) = message {
            let batch = absorb_message(message, &mut calls);
            if !batch.is_empty() {
                last_batch = batch;
            }
            continue;
        }
        let hook_end = match (source, line.kind.as_str()) {
            (Source::EventLog, "hook_execution_end") => Some(&line.fields),
            (Source::SessionFile, "custom")
                if str_field(&line.fields, "customType") == Some(HOOK_ENTRY) =>
            {
                line.fields.get("data").and_then(Value::as_object)
            }
            _ => None,
        };
        if let Some(hook) = hook_end {
            let refused = matches!(str_field(hook, "decision"), Some("block" | "deny"));
            if let Some(id) = str_field(hook, "toolCallId")
                && refused
            {
                calls.entry(id, str_field(hook, "toolName")).blocked_by_hook = true;
            }
            continue;
        }
        if source == Source::SessionFile {
            continue;
        }
        let id = str_field(&line.fields, "toolCallId");
        let name = str_field(&line.fields, "toolName");
        match (line.kind.as_str(), id) {
            ("tool_execution_start", Some(id)) => calls.entry(id, name).starts += 1,
            ("tool_execution_end", Some(id)) => {
                let seen = calls.entry(id, name);
                seen.ends += 1;
                seen.end_is_error = line.fields.get("isError").and_then(Value::as_bool);
                seen.end_duration = line.fields.get("durationMs").and_then(Value::as_u64);
            }
            ("turn_start", _) => {
                if let Some(start) = open_turn.take() {
                    turns.push(Turn {
                        start_line: Some(start),
                        end_line: None,
                    });
                }
                open_turn = Some(line.number);
            }
            ("turn_end", _) => turns.push(Turn {
                start_line: open_turn.take(),
                end_line: Some(line.number),
            }),
            ("agent_settled", _) => {
                settled = Some(Settled {
                    reason: str_field(&line.fields, "reason")
                        .unwrap_or("(none)")
                        .to_owned(),
                    turns: line
                        .fields
                        .get("turns")
                        .and_then(Value::as_u64)
                        .unwrap_or(0),
                });
            }
            _ => {}
        }
    }
    if let Some(start) = open_turn {
        turns.push(Turn {
            start_line: Some(start),
            end_line: None,
        });
    }

    let mut problems = Vec::new();
    match (&settled, source) {
        (Some(s), _) if s.reason != "completed" => {
            problems.push(format!("settled `{}`, not `completed`", s.reason));
        }
        (Some(_), _) => {}
        (None, Source::EventLog) => problems.push("not settled (no agent_settled event)".into()),
        (None, Source::SessionFile) => {
            problems.push("not settled (session file has no events)".into());
        }
    }
    for turn in &turns {
        match (turn.start_line, turn.end_line) {
            (Some(start), None) => {
                problems.push(format!("turn_start on line {start} has no turn_end"))
            }
            (None, Some(end)) => problems.push(format!("turn_end on line {end} has no turn_start")),
            _ => {}
        }
    }
    let mut tool_calls = Vec::new();
    for id in &calls.order {
        let Some(seen) = calls.by_id.get(id) else {
            continue;
        };
        problems.extend(call_problems(id, seen, source));
        tool_calls.push(ToolCall {
            tool_call_id: id.clone(),
            tool_name: seen.name.clone(),
            started: (source == Source::EventLog).then_some(seen.starts > 0),
            ended: (source == Source::EventLog).then_some(seen.ends > 0),
            is_error: seen.end_is_error.or(seen.result_is_error),
            duration_ms: seen.result_duration.or(seen.end_duration),
            result_in_context: seen.results > 0,
            blocked_by_hook: seen.blocked_by_hook,
        });
    }
    let last: Vec<&ToolCall> = last_batch
        .iter()
        .filter_map(|id| tool_calls.iter().find(|c| &c.tool_call_id == id))
        .collect();
    let named = |blocked: bool| -> Vec<String> {
        last.iter()
            .filter(|call| call.is_error == Some(true) && call.blocked_by_hook == blocked)
            .map(|call| format!("{} ({})", call.tool_call_id, call.tool_name))
            .collect()
    };
    let (failed, blocked) = (named(false), named(true));
    if !failed.is_empty() {
        problems.push(format!(
            "the last tool batch has errors: {}",
            failed.join(", ")
        ));
    }
    if !blocked.is_empty() {
        problems.push(format!(
            "the last tool batch has calls blocked by a hook: {}",
            blocked.join(", ")
        ));
    }
    Report {
        source,
        settled,
        turns: (source == Source::EventLog).then_some(turns),
        tool_calls,
        problems,
    }
}

/// Complains when `what` was seen other than exactly once.
fn once(problems: &mut Vec<String>, label: &str, count: usize, what: &str) {
    match count {
        0 => problems.push(format!("{label}: no {what}")),
        1 => {}
        n => problems.push(format!("{label}: {n} × {what}")),
    }
}

/// The per-call rule: requested, started, ended and answered once each, and `durationMs`
/// consistent with whether the tool really executed.
fn call_problems(id: &str, seen: &Seen, source: Source) -> Vec<String> {
    let label = if seen.name.is_empty() {
        format!("tool call {id}")
    } else {
        format!("tool call {id} ({})", seen.name)
    };
    let mut problems = Vec::new();
    once(
        &mut problems,
        &label,
        seen.requested,
        "assistant message requesting it",
    );
    if source == Source::EventLog {
        once(&mut problems, &label, seen.starts, "tool_execution_start");
        once(&mut problems, &label, seen.ends, "tool_execution_end");
    }
    once(
        &mut problems,
        &label,
        seen.results,
        "toolResult message in the context",
    );
    if seen.ends > 0
        && seen.results > 0
        && seen.end_is_error.is_some()
        && seen.result_is_error.is_some()
        && seen.end_is_error != seen.result_is_error
    {
        problems.push(format!(
            "{label}: isError differs between tool_execution_end and toolResult"
        ));
    }
    // A successful call must have run, so it must carry its wall time wherever a result is;
    // a failed call may or may not have run, so only the two places must agree.
    let is_error = seen.end_is_error.or(seen.result_is_error);
    if is_error == Some(false) {
        if seen.results > 0 && seen.result_duration.is_none() {
            problems.push(format!(
                "{label}: succeeded but its toolResult has no durationMs"
            ));
        }
        if seen.ends > 0 && seen.end_duration.is_none() {
            problems.push(format!(
                "{label}: succeeded but its tool_execution_end has no durationMs"
            ));
        }
    } else if seen.ends > 0
        && seen.results > 0
        && seen.end_duration.is_some() != seen.result_duration.is_some()
    {
        problems.push(format!(
            "{label}: durationMs is on only one of tool_execution_end and toolResult"
        ));
    }
    problems
}
