//! What `rho verify` found, and its two renderings: a short text for people and one JSON value
//! for programs.

use serde_json::{Value, json};

/// Which kind of input was checked; it decides which signals can be known at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// `rho --mode json` output: session header, then one event per line.
    EventLog,
    /// A Pi JSONL v3 session file: header, then `message` entries (no events).
    SessionFile,
}

/// How the run settled, from its `agent_settled` event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settled {
    /// `completed`, `error`, `aborted`, `budget` or `hook`.
    pub reason: String,
    /// The turn count the event reports.
    pub turns: u64,
}

/// One `turn_start` and the `turn_end` that closed it, if any (line numbers of the input).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    /// Line of the `turn_start`; `None` for a `turn_end` that had no open turn.
    pub start_line: Option<usize>,
    /// Line of the `turn_end`; `None` when the turn was never closed.
    pub end_line: Option<usize>,
}

/// The four signals of contract §1.8 for one tool call. `None` means "cannot be known from this
/// input" (a session file has no execution events).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    /// The correlation key.
    pub tool_call_id: String,
    /// The tool's name, from whichever line named it first.
    pub tool_name: String,
    /// A `tool_execution_start` was seen.
    pub started: Option<bool>,
    /// A `tool_execution_end` was seen.
    pub ended: Option<bool>,
    /// The call's `isError` (from `tool_execution_end`, else from the `toolResult`); `None` if
    /// neither exists.
    pub is_error: Option<bool>,
    /// The `durationMs` of the result.
    pub duration_ms: Option<u64>,
    /// A `toolResult` message with this `toolCallId` reached the context.
    pub result_in_context: bool,
    /// A hook blocked the call (`PreToolUse`) or refused its result (`PostToolUse`): the
    /// error is the hook's, not the tool's.
    pub blocked_by_hook: bool,
}

/// The whole finding; `problems` empty means verified.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// What kind of input this was.
    pub source: Source,
    /// The run's `agent_settled`, if one was seen.
    pub settled: Option<Settled>,
    /// Turn pairing in input order; `None` for session files (they record no turns).
    pub turns: Option<Vec<Turn>>,
    /// Every tool call, in the order it first appeared.
    pub tool_calls: Vec<ToolCall>,
    /// Every reason the run does not verify, in a stable order.
    pub problems: Vec<String>,
}

impl Report {
    /// True when the contract's `rho verify` rule holds.
    pub fn verified(&self) -> bool {
        self.problems.is_empty()
    }

    /// Process exit status: 0 verified, 1 not verified.
    pub fn exit_code(&self) -> u8 {
        if self.verified() { 0 } else { 1 }
    }
}

/// Counts of `turn_start` and `turn_end` lines.
fn turn_counts(turns: &[Turn]) -> (usize, usize) {
    let started = turns.iter().filter(|t| t.start_line.is_some()).count();
    let ended = turns.iter().filter(|t| t.end_line.is_some()).count();
    (started, ended)
}

/// The `--json` rendering (one value; callers print it on one line).
pub fn to_json(report: &Report) -> Value {
    let settled = report
        .settled
        .as_ref()
        .map(|s| json!({"reason": s.reason, "turns": s.turns}));
    let turns = report.turns.as_deref().map(|turns| {
        let (started, ended) = turn_counts(turns);
        json!({"started": started, "ended": ended})
    });
    let calls: Vec<Value> = report
        .tool_calls
        .iter()
        .map(|call| {
            json!({
                "toolCallId": call.tool_call_id,
                "toolName": call.tool_name,
                "started": call.started,
                "ended": call.ended,
                "isError": call.is_error,
                "durationMs": call.duration_ms,
                "resultInContext": call.result_in_context,
                "blockedByHook": call.blocked_by_hook,
            })
        })
        .collect();
    json!({
        "verified": report.verified(),
        "settled": settled,
        "turns": turns,
        "toolCalls": calls,
        "problems": report.problems,
    })
}

fn mark(signal: Option<bool>) -> &'static str {
    match signal {
        Some(true) => "✓",
        Some(false) => "✗",
        None => "?",
    }
}

fn line_or_dash(line: Option<usize>) -> String {
    line.map_or_else(|| "—".to_owned(), |n| n.to_string())
}

/// The default text rendering: signals per tool call, turn pairing, settling, then the verdict.
pub fn to_text(report: &Report) -> String {
    let mut out = String::new();
    out.push_str(match report.source {
        Source::EventLog => "input: JSON-mode event log\n",
        Source::SessionFile => "input: session file (no events: start/end unknown)\n",
    });
    out.push_str(&format!("tool calls: {}\n", report.tool_calls.len()));
    for call in &report.tool_calls {
        let ended_ok = call
            .ended
            .map(|ended| ended && call.is_error == Some(false));
        let duration = match call.duration_ms {
            Some(ms) => format!("✓ ({ms} ms)"),
            None => "✗".to_owned(),
        };
        let error = if call.blocked_by_hook {
            "  [blocked by hook]"
        } else if call.is_error == Some(true) {
            "  [isError]"
        } else {
            ""
        };
        out.push_str(&format!(
            "  {} {}: start {}  end ok {}  durationMs {}  toolResult {}{}\n",
            call.tool_call_id,
            call.tool_name,
            mark(call.started),
            mark(ended_ok),
            duration,
            mark(Some(call.result_in_context)),
            error
        ));
    }
    match &report.turns {
        Some(turns) => {
            let (started, ended) = turn_counts(turns);
            out.push_str(&format!("turns: {started} started, {ended} ended\n"));
            for (index, turn) in turns.iter().enumerate() {
                let paired = turn.start_line.is_some() && turn.end_line.is_some();
                out.push_str(&format!(
                    "  turn {}: turn_start line {}, turn_end line {} {}\n",
                    index + 1,
                    line_or_dash(turn.start_line),
                    line_or_dash(turn.end_line),
                    mark(Some(paired))
                ));
            }
        }
        None => out.push_str("turns: unknown (session file has no events)\n"),
    }
    match &report.settled {
        Some(settled) => out.push_str(&format!(
            "settled: {} after {} turn(s)\n",
            settled.reason, settled.turns
        )),
        None => out.push_str("settled: no\n"),
    }
    if report.verified() {
        out.push_str("verified\n");
    } else {
        out.push_str(&format!("NOT verified: {}\n", report.problems.join("; ")));
    }
    out
}
