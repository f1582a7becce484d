//! The wire shapes of Pi's RPC protocol (pi-reference §7.6, Pi's `docs/rpc.md`): commands read
//! from stdin, one JSON object a line, and the `response` objects written for them.

use rho_agent::QueueMode;
use rho_ai::{ImageContent, ThinkingLevel};
use rho_models::parse_thinking_level;
use serde_json::{Map, Value};

/// How a prompt sent while the agent runs is queued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamingBehavior {
    /// Delivered after the current turn's tools.
    Steer,
    /// Delivered when the agent would stop.
    FollowUp,
}

/// One command of the protocol, with its fields checked.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// `prompt`: run a user message, or queue it while the agent runs.
    Prompt {
        /// The text.
        message: String,
        /// Attached images.
        images: Vec<ImageContent>,
        /// Required while the agent runs.
        streaming_behavior: Option<StreamingBehavior>,
    },
    /// `steer`: queue a steering message.
    Steer {
        /// The text.
        message: String,
        /// Attached images.
        images: Vec<ImageContent>,
    },
    /// `follow_up`: queue a follow-up message.
    FollowUp {
        /// The text.
        message: String,
        /// Attached images.
        images: Vec<ImageContent>,
    },
    /// `abort`: cancel the run and wait until the agent is idle.
    Abort,
    /// `new_session`: start over with an empty transcript.
    NewSession {
        /// The new header's `parentSession`.
        parent_session: Option<String>,
    },
    /// `get_state`.
    GetState,
    /// `get_messages`.
    GetMessages,
    /// `set_model`.
    SetModel {
        /// The model's provider.
        provider: String,
        /// The model's id.
        model_id: String,
    },
    /// `cycle_model`.
    CycleModel,
    /// `get_available_models`.
    GetAvailableModels,
    /// `set_thinking_level`.
    SetThinkingLevel {
        /// The requested level (clamped to the model).
        level: ThinkingLevel,
    },
    /// `cycle_thinking_level`.
    CycleThinkingLevel,
    /// `set_steering_mode`.
    SetSteeringMode {
        /// The mode.
        mode: QueueMode,
    },
    /// `set_follow_up_mode`.
    SetFollowUpMode {
        /// The mode.
        mode: QueueMode,
    },
    /// `compact`: summarise the older part of the session now.
    Compact {
        /// What the summary should focus on.
        custom_instructions: Option<String>,
    },
    /// `set_auto_compaction`.
    SetAutoCompaction {
        /// Whether threshold and overflow compaction run on their own.
        enabled: bool,
    },
    /// `set_auto_retry`.
    SetAutoRetry {
        /// Whether failed runs are retried.
        enabled: bool,
    },
    /// `abort_retry`.
    AbortRetry,
    /// `bash`: run a user shell command.
    Bash {
        /// The command line.
        command: String,
    },
    /// `abort_bash`.
    AbortBash,
    /// `get_session_stats`.
    GetSessionStats,
    /// `export_html`.
    ExportHtml {
        /// Where to write the page (relative to the working directory).
        output_path: Option<String>,
    },
    /// `switch_session`.
    SwitchSession {
        /// The session file to continue.
        session_path: String,
    },
    /// `fork`.
    Fork {
        /// The user message to fork before.
        entry_id: String,
    },
    /// `clone`.
    Clone,
    /// `get_fork_messages`.
    GetForkMessages,
    /// `get_last_assistant_text`.
    GetLastAssistantText,
    /// `set_session_name`.
    SetSessionName {
        /// The name, trimmed and not empty.
        name: String,
    },
    /// `get_commands`.
    GetCommands,
}

/// A parsed input line: the command with the `id` and `type` its response echoes.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// The command's `id`, any JSON value, echoed verbatim.
    pub id: Option<Value>,
    /// The command's `type`.
    pub kind: String,
    /// The command.
    pub command: Command,
}

/// Parses one input line. `Err` is the response to write instead of running anything.
pub fn parse_line(line: &str) -> Result<Request, Box<Response>> {
    let value: Value = serde_json::from_str(line).map_err(|error| {
        Box::new(Response::failure(
            None,
            "parse",
            parse_failure(&error.to_string()),
        ))
    })?;
    let Value::Object(object) = value else {
        return Err(Box::new(Response::failure(
            None,
            "parse",
            parse_failure("a command must be a JSON object"),
        )));
    };
    let Some(kind) = object
        .get("type")
        .and_then(Value::as_str)
        .map(str::to_owned)
    else {
        return Err(Box::new(Response::failure(
            None,
            "parse",
            parse_failure("a command needs a string \"type\""),
        )));
    };
    let id = object.get("id").cloned();
    let fields = Fields {
        object: &object,
        kind: &kind,
    };
    match fields.command() {
        Ok(Some(command)) => Ok(Request { id, kind, command }),
        // Pi answers an unknown command without its id.
        Ok(None) => Err(Box::new(Response::failure(
            None,
            &kind,
            format!("Unknown command: {kind}"),
        ))),
        Err(message) => Err(Box::new(Response::failure(id, &kind, message))),
    }
}

fn parse_failure(detail: &str) -> String {
    format!("Failed to parse command: {detail}")
}

/// Reads the fields of one command object, naming the field and command in every complaint.
struct Fields<'a> {
    object: &'a Map<String, Value>,
    kind: &'a str,
}

impl Fields<'_> {
    fn command(&self) -> Result<Option<Command>, String> {
        let command = match self.kind {
            "prompt" => Command::Prompt {
                message: self.string("message")?,
                images: self.images()?,
                streaming_behavior: self.streaming_behavior()?,
            },
            "steer" => Command::Steer {
                message: self.string("message")?,
                images: self.images()?,
            },
            "follow_up" => Command::FollowUp {
                message: self.string("message")?,
                images: self.images()?,
            },
            "abort" => Command::Abort,
            "new_session" => Command::NewSession {
                parent_session: self.optional_string("parentSession")?,
            },
            "get_state" => Command::GetState,
            "get_messages" => Command::GetMessages,
            "set_model" => Command::SetModel {
                provider: self.string("provider")?,
                model_id: self.string("modelId")?,
            },
            "cycle_model" => Command::CycleModel,
            "get_available_models" => Command::GetAvailableModels,
            "set_thinking_level" => {
                let text = self.string("level")?;
                let level = parse_thinking_level(&text).ok_or_else(|| {
                    format!(
                        "Invalid thinking level \"{text}\" (use off, minimal, low, medium, high or xhigh)"
                    )
                })?;
                Command::SetThinkingLevel { level }
            }
            "cycle_thinking_level" => Command::CycleThinkingLevel,
            "set_steering_mode" => Command::SetSteeringMode {
                mode: self.queue_mode()?,
            },
            "set_follow_up_mode" => Command::SetFollowUpMode {
                mode: self.queue_mode()?,
            },
            "compact" => Command::Compact {
                custom_instructions: self.optional_string("customInstructions")?,
            },
            "set_auto_compaction" => Command::SetAutoCompaction {
                enabled: self.boolean("enabled")?,
            },
            "set_auto_retry" => Command::SetAutoRetry {
                enabled: self.boolean("enabled")?,
            },
            "abort_retry" => Command::AbortRetry,
            "bash" => Command::Bash {
                command: self.string("command")?,
            },
            "abort_bash" => Command::AbortBash,
            "get_session_stats" => Command::GetSessionStats,
            "export_html" => Command::ExportHtml {
                output_path: self.optional_string("outputPath")?,
            },
            "switch_session" => Command::SwitchSession {
                session_path: self.string("sessionPath")?,
            },
            "fork" => Command::Fork {
                entry_id: self.string("entryId")?,
            },
            "clone" => Command::Clone,
            "get_fork_messages" => Command::GetForkMessages,
            "get_last_assistant_text" => Command::GetLastAssistantText,
            "set_session_name" => {
                let name = self.string("name")?.trim().to_owned();
                if name.is_empty() {
                    return Err("Session name cannot be empty".to_owned());
                }
                Command::SetSessionName { name }
            }
            "get_commands" => Command::GetCommands,
            _ => return Ok(None),
        };
        Ok(Some(command))
    }

    fn invalid(&self, name: &str, expected: &str) -> String {
        format!(
            "Invalid {} command: \"{name}\" must be {expected}",
            self.kind
        )
    }

    fn string(&self, name: &str) -> Result<String, String> {
        match self.object.get(name) {
            Some(Value::String(text)) => Ok(text.clone()),
            _ => Err(self.invalid(name, "a string")),
        }
    }

    /// Absent and `null` both mean "not given", as `undefined` does in Pi.
    fn optional_string(&self, name: &str) -> Result<Option<String>, String> {
        match self.object.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text.clone())),
            Some(_) => Err(self.invalid(name, "a string")),
        }
    }

    fn boolean(&self, name: &str) -> Result<bool, String> {
        self.object
            .get(name)
            .and_then(Value::as_bool)
            .ok_or_else(|| self.invalid(name, "true or false"))
    }

    fn images(&self) -> Result<Vec<ImageContent>, String> {
        let expected = "an array of {\"type\":\"image\",\"data\",\"mimeType\"} objects";
        match self.object.get("images") {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(images)) => images
                .iter()
                .map(|image| {
                    let is_image = image.get("type").and_then(Value::as_str) == Some("image");
                    let parsed = serde_json::from_value::<ImageContent>(image.clone()).ok();
                    parsed
                        .filter(|_| is_image)
                        .ok_or_else(|| self.invalid("images", expected))
                })
                .collect(),
            Some(_) => Err(self.invalid("images", expected)),
        }
    }

    fn streaming_behavior(&self) -> Result<Option<StreamingBehavior>, String> {
        match self.optional_string("streamingBehavior") {
            Ok(None) => Ok(None),
            Ok(Some(text)) if text == "steer" => Ok(Some(StreamingBehavior::Steer)),
            Ok(Some(text)) if text == "followUp" => Ok(Some(StreamingBehavior::FollowUp)),
            _ => Err(self.invalid("streamingBehavior", "\"steer\" or \"followUp\"")),
        }
    }

    fn queue_mode(&self) -> Result<QueueMode, String> {
        match self.string("mode") {
            Ok(text) if text == "all" => Ok(QueueMode::All),
            Ok(text) if text == "one-at-a-time" => Ok(QueueMode::OneAtATime),
            _ => Err(self.invalid("mode", "\"all\" or \"one-at-a-time\"")),
        }
    }
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
    /// A success without data.
    pub fn ok(id: Option<Value>, command: &str) -> Self {
        Response {
            id,
            command: command.to_owned(),
            outcome: Ok(None),
        }
    }

    /// A success with `data` (which may be `null`).
    pub fn data(id: Option<Value>, command: &str, data: Value) -> Self {
        Response {
            id,
            command: command.to_owned(),
            outcome: Ok(Some(data)),
        }
    }

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
