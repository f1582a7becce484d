//! What the stream says of each hook run (`hook_execution_start`, `hook_execution_end`), and
//! what the session file keeps of it (a `custom` entry of type `rho.hook`).

use serde::Serialize;
use serde_json::{Map, Value};

use super::event::HookEvent;
use super::reply::Decision;

/// Which hook runs, on what.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HookRun {
    /// The event (`PreToolUse` …).
    pub hook_event: HookEvent,
    /// The hook's command, as configured.
    pub command: String,
    /// The tool call it judges (tool events).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// That call's tool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
}

/// How a hook run ended.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HookResult {
    /// The run.
    #[serde(flatten)]
    pub run: HookRun,
    /// Its verdict (after `onError`).
    pub decision: Decision,
    /// Why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// `continue: false`'s reason: the run ends after the current tool batch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// The input keys it replaced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub updated_input: Option<Map<String, Value>>,
    /// The context it added.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub additional_context: Option<String>,
    /// Its `systemMessage`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_message: Option<String>,
    /// Its exit code (none when it was killed or never started).
    pub exit_code: Option<i32>,
    /// Its wall time.
    pub duration_ms: u64,
    /// How it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl HookResult {
    /// One line for people: `PreToolUse hook <command>: block: <reason>`.
    pub fn summary(&self) -> String {
        let command: String = self.run.command.chars().take(60).collect();
        let mut line = format!(
            "{} hook {command}: {}",
            self.run.hook_event.name(),
            self.decision.as_str()
        );
        for (label, text) in [
            ("", self.reason.as_deref()),
            ("stop: ", self.stop_reason.as_deref()),
            ("failed: it ", self.error.as_deref()),
            ("", self.system_message.as_deref()),
        ] {
            if let Some(text) = text {
                line.push_str(&format!(" — {label}{}", text.trim()));
            }
        }
        line
    }

    /// Whether a person would want to see it (it decided, stopped, failed or said something).
    pub fn is_worth_showing(&self) -> bool {
        self.decision != Decision::None
            || self.stop_reason.is_some()
            || self.error.is_some()
            || self.system_message.is_some()
    }
}

/// The `customType` of the session entries that record hook runs.
pub const HOOK_ENTRY_TYPE: &str = "rho.hook";

/// A hook run, as the session announces it.
#[derive(Clone, Debug, PartialEq)]
pub enum HookNotice {
    /// It started.
    Start(HookRun),
    /// It ended.
    End(Box<HookResult>),
}
