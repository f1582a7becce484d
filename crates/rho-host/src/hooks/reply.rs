//! What one hook's process decided, read as Claude Code reads it, and the decisions of the
//! hooks of one event combined: exit 0 with JSON on stdout decides (`decision`, `continue`,
//! `hookSpecificOutput`); exit 2 blocks with stderr as the reason; anything else — another
//! exit code, a timeout, JSON that does not parse or means nothing — is a failure that follows
//! the hook's `onError`.

use serde::Serialize;
use serde_json::{Map, Value};

use super::config::OnError;
use super::event::HookEvent;
use super::process::{Exit, Ran};

/// A hook's verdict on what it judged.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// It said nothing that decides.
    #[default]
    None,
    /// `permissionDecision: "allow"`: no approval prompt (the gate's refusals still hold).
    Allow,
    /// `permissionDecision: "ask"`: the user decides.
    Ask,
    /// `permissionDecision: "deny"`.
    Deny,
    /// `decision: "block"`, exit code 2, or a failure with `onError: "block"`.
    Block,
}

impl Decision {
    /// The word the stream uses.
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::None => "none",
            Decision::Allow => "allow",
            Decision::Ask => "ask",
            Decision::Deny => "deny",
            Decision::Block => "block",
        }
    }
}

/// One hook's reply.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reply {
    /// The verdict.
    pub decision: Decision,
    /// Why (`reason`, `permissionDecisionReason`, or stderr of exit code 2).
    pub reason: Option<String>,
    /// `continue: false`: the run ends after the current tool batch, for this reason.
    pub stop: Option<String>,
    /// `hookSpecificOutput.updatedInput`.
    pub updated_input: Option<Map<String, Value>>,
    /// `hookSpecificOutput.additionalContext` (or plain stdout where Claude Code adds it).
    pub additional_context: Option<String>,
    /// rho: `terminate: true` with a block asks the batch to terminate.
    pub terminate: bool,
    /// `systemMessage`: shown to the user.
    pub system_message: Option<String>,
    /// Why the hook failed, when it did.
    pub error: Option<String>,
}

/// Reads what `ran` means for `event`, with `on_error` applied to a failure.
pub fn read(event: HookEvent, ran: &Ran, on_error: OnError) -> Reply {
    let reply = match &ran.exit {
        Exit::Code(0) => from_stdout(event, &ran.stdout),
        Exit::Code(2) => Ok(Reply {
            decision: Decision::Block,
            reason: Some(match ran.stderr.trim() {
                "" => "blocked by a hook (exit code 2)".to_owned(),
                text => text.to_owned(),
            }),
            ..Reply::default()
        }),
        Exit::Code(code) => Err(match ran.stderr.trim() {
            "" => format!("exited with code {code}"),
            text => format!("exited with code {code}: {}", first_line(text)),
        }),
        Exit::Signal(signal) => Err(format!("was killed by signal {signal}")),
        Exit::TimedOut => Err(format!(
            "did not finish within its timeout ({:.1} s) and was killed",
            ran.duration.as_secs_f64()
        )),
        Exit::Cancelled => Err("was stopped: the run was aborted".to_owned()),
        Exit::NotStarted(why) => Err(format!("could not start: {why}")),
    };
    match reply {
        Ok(reply) => reply,
        Err(error) => Reply {
            decision: match on_error {
                OnError::Continue => Decision::None,
                OnError::Block => Decision::Block,
            },
            reason: (on_error == OnError::Block).then(|| format!("hook failed: it {error}")),
            error: Some(error),
            ..Reply::default()
        },
    }
}

fn first_line(text: &str) -> String {
    text.lines()
        .next()
        .unwrap_or_default()
        .chars()
        .take(300)
        .collect()
}

/// Exit code 0: JSON on stdout, or plain text (context for the events where Claude Code adds
/// plain stdout to the context).
fn from_stdout(event: HookEvent, stdout: &str) -> Result<Reply, String> {
    let text = stdout.trim();
    if !text.starts_with('{') {
        let adds_context = matches!(event, HookEvent::UserPromptSubmit | HookEvent::SessionStart);
        return Ok(Reply {
            additional_context: (adds_context && !text.is_empty()).then(|| text.to_owned()),
            ..Reply::default()
        });
    }
    let value: Value = serde_json::from_str(text)
        .map_err(|e| format!("printed JSON that does not parse ({e})"))?;
    let Value::Object(output) = value else {
        return Err("printed JSON that is not an object".to_owned());
    };
    from_json(event, &output)
}

fn text_of(map: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(format!("printed \"{key}\" that is not a string")),
    }
}

fn from_json(event: HookEvent, output: &Map<String, Value>) -> Result<Reply, String> {
    let mut reply = Reply {
        system_message: text_of(output, "systemMessage")?,
        ..Reply::default()
    };
    match output.get("continue") {
        None | Some(Value::Null) | Some(Value::Bool(true)) => {}
        Some(Value::Bool(false)) => {
            reply.stop = Some(
                text_of(output, "stopReason")?.unwrap_or_else(|| "stopped by a hook".to_owned()),
            );
        }
        Some(_) => return Err("printed \"continue\" that is not a boolean".to_owned()),
    }
    match output.get("terminate") {
        None | Some(Value::Null) => {}
        Some(Value::Bool(terminate)) => reply.terminate = *terminate,
        Some(_) => return Err("printed \"terminate\" that is not a boolean".to_owned()),
    }
    match text_of(output, "decision")?.as_deref() {
        None => {}
        Some("block") => {
            reply.decision = Decision::Block;
            reply.reason = text_of(output, "reason")?;
        }
        // Claude Code's older words for PreToolUse.
        Some("approve") if event == HookEvent::PreToolUse => reply.decision = Decision::Allow,
        Some(other) => return Err(format!("printed \"decision\": {other:?}, not \"block\"")),
    }
    let specific = match output.get("hookSpecificOutput") {
        None | Some(Value::Null) => return Ok(reply),
        Some(Value::Object(specific)) => specific,
        Some(_) => return Err("printed \"hookSpecificOutput\" that is not an object".to_owned()),
    };
    if let Some(name) = text_of(specific, "hookEventName")?
        && name != event.name()
    {
        return Err(format!(
            "printed hookSpecificOutput for {name} in a {} hook",
            event.name()
        ));
    }
    reply.additional_context = text_of(specific, "additionalContext")?;
    if event == HookEvent::PreToolUse {
        let permission = text_of(specific, "permissionDecision")?;
        let decision = match permission.as_deref() {
            None => None,
            Some("allow") => Some(Decision::Allow),
            Some("ask") => Some(Decision::Ask),
            Some("deny") => Some(Decision::Deny),
            Some(other) => {
                return Err(format!(
                    "printed \"permissionDecision\": {other:?}, not \"allow\", \"deny\" or \"ask\""
                ));
            }
        };
        if let Some(decision) = decision
            && reply.decision != Decision::Block
        {
            reply.decision = decision;
            reply.reason = text_of(specific, "permissionDecisionReason")?.or(reply.reason);
        }
        match specific.get("updatedInput") {
            None | Some(Value::Null) => {}
            Some(Value::Object(input)) => reply.updated_input = Some(input.clone()),
            Some(_) => return Err("printed \"updatedInput\" that is not an object".to_owned()),
        }
    }
    Ok(reply)
}

/// The replies of one event's hooks, in configuration order, combined: any block or deny wins
/// (their reasons joined), then any ask, then any allow; updated inputs are laid over the
/// input in configuration order; contexts are joined; the first `continue: false` stops.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Combined {
    /// The verdict.
    pub decision: Decision,
    /// The reasons of the hooks that gave the verdict, one per line.
    pub reason: Option<String>,
    /// Why the run must end after the current tool batch.
    pub stop: Option<String>,
    /// The keys every hook replaced, in order.
    pub updated_input: Option<Map<String, Value>>,
    /// The contexts, one per paragraph.
    pub additional_context: Option<String>,
    /// A blocking hook asked the batch to terminate.
    pub terminate: bool,
}

impl Combined {
    /// Combines `replies`, in configuration order.
    pub fn of(replies: &[Reply]) -> Combined {
        let strongest = [
            Decision::Block,
            Decision::Deny,
            Decision::Ask,
            Decision::Allow,
        ]
        .into_iter()
        .find(|d| replies.iter().any(|r| r.decision == *d));
        let decision = strongest.unwrap_or_default();
        let deciding = |r: &&Reply| match decision {
            Decision::Block | Decision::Deny => {
                matches!(r.decision, Decision::Block | Decision::Deny)
            }
            other => r.decision == other,
        };
        let reasons: Vec<&str> = replies
            .iter()
            .filter(deciding)
            .filter_map(|r| r.reason.as_deref())
            .collect();
        let mut updated: Option<Map<String, Value>> = None;
        for input in replies.iter().filter_map(|r| r.updated_input.as_ref()) {
            let merged = updated.get_or_insert_with(Map::new);
            for (key, value) in input {
                merged.insert(key.clone(), value.clone());
            }
        }
        let contexts: Vec<&str> = replies
            .iter()
            .filter_map(|r| r.additional_context.as_deref())
            .filter(|c| !c.trim().is_empty())
            .collect();
        Combined {
            decision,
            reason: (!reasons.is_empty()).then(|| reasons.join("\n")),
            stop: replies.iter().find_map(|r| r.stop.clone()),
            updated_input: updated,
            additional_context: (!contexts.is_empty()).then(|| contexts.join("\n\n")),
            terminate: replies
                .iter()
                .any(|r| r.terminate && matches!(r.decision, Decision::Block | Decision::Deny)),
        }
    }

    /// Whether the hooks refused (block or deny).
    pub fn blocks(&self) -> bool {
        matches!(self.decision, Decision::Block | Decision::Deny)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use super::*;

    fn ran(exit: Exit, stdout: &str, stderr: &str) -> Ran {
        Ran {
            exit,
            stdout: stdout.to_owned(),
            stderr: stderr.to_owned(),
            duration: Duration::from_millis(5),
        }
    }

    #[test]
    fn exit_codes_and_json_read_as_claude_code_reads_them() {
        let pre = HookEvent::PreToolUse;
        let blocked = read(pre, &ran(Exit::Code(2), "", "no\n"), OnError::Continue);
        assert_eq!(
            (blocked.decision, blocked.reason.as_deref()),
            (Decision::Block, Some("no"))
        );
        let json = r#"{"continue": false, "stopReason": "enough", "hookSpecificOutput":
            {"hookEventName": "PreToolUse", "permissionDecision": "ask", "updatedInput": {"a": 1}}}"#;
        let asked = read(pre, &ran(Exit::Code(0), json, ""), OnError::Continue);
        assert_eq!(asked.decision, Decision::Ask);
        assert_eq!(asked.stop.as_deref(), Some("enough"));
        assert_eq!(asked.updated_input, json!({"a": 1}).as_object().cloned());
        // A hook for another event, a wrong type, a crash: failures, per onError.
        for (exit, stdout) in [
            (
                Exit::Code(0),
                r#"{"hookSpecificOutput": {"hookEventName": "Stop"}}"#,
            ),
            (Exit::Code(0), r#"{"continue": "no"}"#),
            (Exit::Code(0), r#"{"decision": "maybe"}"#),
            (Exit::Code(3), ""),
            (Exit::TimedOut, ""),
        ] {
            let lenient = read(pre, &ran(exit.clone(), stdout, ""), OnError::Continue);
            assert_eq!(lenient.decision, Decision::None, "{stdout}");
            assert!(lenient.error.is_some());
            let strict = read(pre, &ran(exit, stdout, ""), OnError::Block);
            assert_eq!(strict.decision, Decision::Block, "{stdout}");
            assert!(
                strict
                    .reason
                    .is_some_and(|r| r.starts_with("hook failed: it "))
            );
        }
        // Plain stdout is context only where Claude Code adds it.
        let plain = ran(Exit::Code(0), "hello\n", "");
        assert_eq!(
            read(HookEvent::UserPromptSubmit, &plain, OnError::Continue).additional_context,
            Some("hello".to_owned())
        );
        assert_eq!(read(pre, &plain, OnError::Continue), Reply::default());
    }

    #[test]
    fn replies_combine_in_configuration_order_with_any_block_winning() {
        let reply = |decision, reason: &str| Reply {
            decision,
            reason: Some(reason.to_owned()),
            ..Reply::default()
        };
        let mut first = reply(Decision::Allow, "fine");
        first.updated_input = json!({"a": 1, "b": 1}).as_object().cloned();
        first.additional_context = Some("one".into());
        let mut second = reply(Decision::Deny, "no");
        second.updated_input = json!({"b": 2}).as_object().cloned();
        second.terminate = true;
        let mut third = reply(Decision::Block, "never");
        third.additional_context = Some("three".into());
        third.stop = Some("halt".into());
        let combined = Combined::of(&[first.clone(), second, third]);
        assert_eq!(combined.decision, Decision::Block);
        assert_eq!(combined.reason.as_deref(), Some("no\nnever"));
        assert_eq!(
            combined.updated_input,
            json!({"a": 1, "b": 2}).as_object().cloned()
        );
        assert_eq!(combined.additional_context.as_deref(), Some("one\n\nthree"));
        assert_eq!(combined.stop.as_deref(), Some("halt"));
        assert!(combined.terminate && combined.blocks());
        let asked = Combined::of(&[first, reply(Decision::Ask, "look")]);
        assert_eq!(
            (asked.decision, asked.reason.as_deref()),
            (Decision::Ask, Some("look"))
        );
        assert_eq!(Combined::of(&[]), Combined::default());
    }
}
