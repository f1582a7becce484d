//! rho-rpc: the wire shapes of Pi's RPC protocol (pi-reference §7.6, Pi's `docs/rpc.md`): commands read
//! from stdin, one JSON object a line, and the `response` objects written for them.
//!
//! [`Command`] is the only place a command's name is spelled: serde reads it from `type`, and
//! [`Command::name`] / [`Command::NAMES`] come from the same variant names.

use rho_agent::QueueMode;
use rho_ai::ImageContent;
use serde::Deserialize;
use serde_json::{Map, Value};
use strum::{IntoStaticStr, VariantNames};

/// How a prompt sent while the agent runs is queued.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum StreamingBehavior {
    /// Delivered after the current turn's tools.
    #[serde(rename = "steer")]
    Steer,
    /// Delivered when the agent would stop.
    #[serde(rename = "followUp")]
    FollowUp,
}

/// One command of the protocol, with its fields checked.
#[derive(Clone, Debug, PartialEq, Deserialize, IntoStaticStr, VariantNames)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
#[strum(serialize_all = "snake_case")]
pub enum Command {
    /// Run a user message, or queue it while the agent runs.
    Prompt {
        /// The text.
        message: String,
        /// Attached images.
        #[serde(default, deserialize_with = "nullable")]
        images: Vec<ImageContent>,
        /// Required while the agent runs.
        #[serde(default)]
        streaming_behavior: Option<StreamingBehavior>,
    },
    /// Queue a steering message.
    Steer {
        /// The text.
        message: String,
        /// Attached images.
        #[serde(default, deserialize_with = "nullable")]
        images: Vec<ImageContent>,
    },
    /// Queue a follow-up message.
    FollowUp {
        /// The text.
        message: String,
        /// Attached images.
        #[serde(default, deserialize_with = "nullable")]
        images: Vec<ImageContent>,
    },
    /// Cancel the run and wait until it has settled.
    Abort,
    /// Empty both queues; answers the removed texts.
    ClearQueue,
    /// Start over with an empty transcript.
    NewSession {
        /// The new header's `parentSession`.
        #[serde(default)]
        parent_session: Option<String>,
    },
    /// The session's state.
    GetState,
    /// The transcript.
    GetMessages,
    /// Switch to a model.
    SetModel {
        /// The model's provider.
        provider: String,
        /// The model's id.
        model_id: String,
    },
    /// Switch to the next available model.
    CycleModel,
    /// The models a client may switch to.
    GetAvailableModels,
    /// Set the thinking level (clamped to the model). Any string is accepted, as in Pi 1.6: a
    /// name that is no level clamps as `off`.
    SetThinkingLevel {
        /// The requested level.
        level: String,
    },
    /// The levels the current model supports (`["off"]` without reasoning).
    GetAvailableThinkingLevels,
    /// Move to the model's next thinking level.
    CycleThinkingLevel,
    /// How queued steering messages are delivered.
    SetSteeringMode {
        /// The mode.
        mode: QueueMode,
    },
    /// How queued follow-up messages are delivered.
    SetFollowUpMode {
        /// The mode.
        mode: QueueMode,
    },
    /// Summarise the older part of the session now.
    Compact {
        /// What the summary should focus on.
        #[serde(default)]
        custom_instructions: Option<String>,
    },
    /// Turn automatic compaction on or off.
    SetAutoCompaction {
        /// Whether threshold and overflow compaction run on their own.
        enabled: bool,
    },
    /// Turn auto-retry on or off.
    SetAutoRetry {
        /// Whether failed runs are retried.
        enabled: bool,
    },
    /// Cancel a retry wait.
    AbortRetry,
    /// Run a user shell command.
    Bash {
        /// The command line.
        command: String,
        /// Keep its `bashExecution` message out of what the model sees.
        #[serde(default)]
        exclude_from_context: Option<bool>,
    },
    /// Stop the user shell command.
    AbortBash,
    /// Counts, tokens, cost and context use.
    GetSessionStats,
    /// The session as one HTML page.
    ExportHtml {
        /// Where to write the page (relative to the working directory).
        #[serde(default)]
        output_path: Option<String>,
    },
    /// Continue another session file.
    SwitchSession {
        /// The session file.
        session_path: String,
    },
    /// A new session holding the branch before a user message.
    Fork {
        /// The user message to fork before.
        entry_id: String,
    },
    /// A new session holding the whole current branch.
    Clone,
    /// The user messages a fork may start before.
    GetForkMessages,
    /// The text of the last assistant reply.
    GetLastAssistantText,
    /// Name the session.
    SetSessionName {
        /// The name (trimmed; empty is refused).
        name: String,
    },
    /// The commands a client may offer (skills, templates, extensions).
    GetCommands,
    /// The session's entries in append order (no header), optionally only those after one.
    GetEntries {
        /// Only entries appended after this id.
        #[serde(default)]
        since: Option<String>,
    },
    /// The session's entries as a tree, with labels.
    GetTree,
}

/// `null` reads as the default, as `undefined` does in Pi.
fn nullable<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

impl Command {
    /// Every command's name, as `type` spells it.
    pub const NAMES: &'static [&'static str] = Self::VARIANTS;

    /// The command's name, as `type` spells it and its response echoes it.
    pub fn name(&self) -> &'static str {
        self.into()
    }
}

/// A parsed input line: the command with the `id` its response echoes.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// The command's `id`, any JSON value, echoed verbatim.
    pub id: Option<Value>,
    /// The command.
    pub command: Command,
}

/// The client's answer to an `extension_ui_request` dialog (`select`, `confirm`, `input`,
/// `editor`): the request's `id` with a `value`, a `confirmed` flag, or `cancelled`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
pub struct UiResponse {
    /// The request's `id`.
    pub id: String,
    /// The chosen or typed value (`select`, `input`, `editor`).
    #[serde(default)]
    pub value: Option<String>,
    /// The answer to a `confirm`.
    #[serde(default)]
    pub confirmed: Option<bool>,
    /// The dialog was dismissed.
    #[serde(default)]
    pub cancelled: bool,
}

/// One input line: a command, or an answer to a dialog rho asked.
#[derive(Clone, Debug, PartialEq)]
pub enum Input {
    /// A command.
    Command(Request),
    /// An `extension_ui_response` (never answered with a response of its own).
    UiResponse(UiResponse),
}

/// Parses one input line as [`parse_line`] does, and `extension_ui_response` lines too; a
/// malformed answer is ignored as an answer to nothing (Pi ignores unknown ids).
pub fn parse_input(line: &str) -> Result<Input, Box<Response>> {
    let value: Value = serde_json::from_str(line)
        .map_err(|error| Box::new(Response::failure(None, "parse", parse_failure(&error))))?;
    if value.get("type").and_then(Value::as_str) == Some("extension_ui_response") {
        let answer = serde_json::from_value(value).unwrap_or_default();
        return Ok(Input::UiResponse(answer));
    }
    request_from(value).map(Input::Command)
}

/// Parses one input line. `Err` is the response to write instead of running anything: a line
/// that is not a JSON object is Pi's `parse` failure; an unknown command and bad fields are
/// answered with the request's `id`.
pub fn parse_line(line: &str) -> Result<Request, Box<Response>> {
    let value: Value = serde_json::from_str(line)
        .map_err(|error| Box::new(Response::failure(None, "parse", parse_failure(&error))))?;
    request_from(value)
}

/// The request a parsed line holds.
fn request_from(value: Value) -> Result<Request, Box<Response>> {
    let Value::Object(object) = value else {
        return Err(Box::new(Response::failure(
            None,
            "parse",
            "Failed to parse command: a command must be a JSON object",
        )));
    };
    let id = object.get("id").cloned();
    let kind = match object.get("type") {
        Some(Value::String(kind)) => kind.clone(),
        _ => {
            return Err(Box::new(Response::failure(
                id,
                "parse",
                "Failed to parse command: a command needs a string \"type\"",
            )));
        }
    };
    let Some(name) = Command::NAMES.iter().find(|name| **name == kind) else {
        return Err(Box::new(Response::failure(
            id,
            &kind,
            format!("Unknown command: {kind}"),
        )));
    };
    match serde_json::from_value::<Command>(Value::Object(object)) {
        Ok(command) => Ok(Request { id, command }),
        Err(error) => Err(Box::new(Response::failure(
            id,
            name,
            format!("Invalid {name} command: {error}"),
        ))),
    }
}

/// Pi's text for a line that is not JSON: `Failed to parse command: <reason>`.
fn parse_failure(error: &serde_json::Error) -> String {
    format!("Failed to parse command: {error}")
}

/// A `response` object: `{id?, type:"response", command, success, data? | error}`, keys in Pi's
/// order.
#[derive(Clone, Debug, PartialEq)]
pub struct Response {
    /// The echoed `id`.
    pub id: Option<Value>,
    /// The command's `type`.
    pub command: String,
    /// `Ok(data)` (absent data when `None`) or `Err(error text)`.
    pub outcome: Result<Option<Value>, String>,
}

impl Response {
    /// A failure with its message.
    pub fn failure(id: Option<Value>, command: &str, error: impl Into<String>) -> Self {
        Response {
            id,
            command: command.to_owned(),
            outcome: Err(error.into()),
        }
    }

    /// The JSON object written on stdout.
    pub fn to_json(&self) -> Value {
        let mut object = Map::new();
        if let Some(id) = &self.id {
            object.insert("id".into(), id.clone());
        }
        object.insert("type".into(), Value::from("response"));
        object.insert("command".into(), Value::from(self.command.as_str()));
        match &self.outcome {
            Ok(data) => {
                object.insert("success".into(), Value::Bool(true));
                if let Some(data) = data {
                    object.insert("data".into(), data.clone());
                }
            }
            Err(error) => {
                object.insert("success".into(), Value::Bool(false));
                object.insert("error".into(), Value::from(error.as_str()));
            }
        }
        Value::Object(object)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn every_name_parses_to_its_own_command() {
        for name in Command::NAMES {
            let parsed = parse_line(&format!(r#"{{"type":"{name}","id":1}}"#));
            // Commands with required fields fail, but they fail as themselves, with the id.
            match parsed {
                Ok(request) => assert_eq!(request.command.name(), *name),
                Err(response) => {
                    assert_eq!(response.command, *name);
                    assert_eq!(response.id, Some(Value::from(1)));
                }
            }
        }
    }

    #[test]
    fn unknown_commands_and_bad_fields_echo_the_id() {
        let unknown = parse_line(r#"{"type":"launch","id":"a"}"#).unwrap_err();
        assert_eq!(
            unknown.to_json(),
            serde_json::json!({"id":"a","type":"response","command":"launch","success":false,"error":"Unknown command: launch"})
        );
        let bad = parse_line(r#"{"type":"prompt","id":7,"message":5}"#).unwrap_err();
        assert_eq!(bad.id, Some(Value::from(7)));
        assert_eq!(bad.command, "prompt");
    }

    #[test]
    fn optional_fields_may_be_null() {
        let request = parse_line(
            r#"{"type":"prompt","message":"hi","images":null,"streamingBehavior":null}"#,
        )
        .unwrap();
        assert_eq!(
            request.command,
            Command::Prompt {
                message: "hi".into(),
                images: Vec::new(),
                streaming_behavior: None
            }
        );
    }

    #[test]
    fn dialog_answers_are_told_apart_from_commands() {
        let answer = parse_input(r#"{"type":"extension_ui_response","id":"u1","value":"A"}"#);
        assert_eq!(
            answer.ok(),
            Some(Input::UiResponse(UiResponse {
                id: "u1".into(),
                value: Some("A".into()),
                confirmed: None,
                cancelled: false,
            }))
        );
        let cancelled =
            parse_input(r#"{"type":"extension_ui_response","id":"u2","cancelled":true}"#);
        assert!(matches!(
            cancelled,
            Ok(Input::UiResponse(UiResponse {
                cancelled: true,
                ..
            }))
        ));
        let command = parse_input(r#"{"type":"get_state","id":1}"#);
        assert!(matches!(
            command,
            Ok(Input::Command(Request {
                command: Command::GetState,
                ..
            }))
        ));
        assert!(parse_input("{oops").is_err());
    }
}
