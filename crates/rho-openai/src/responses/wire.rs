//! The Responses request body as typed values borrowed from the context (pi-reference §5.2
//! "Request"). A body is serialized straight into bytes, with no JSON tree built per request;
//! the order of the fields is the order of the keys on the wire.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

use crate::body::{DataUrl, JsNumber, JsonText};

/// The body of one `POST /responses`.
#[derive(Debug, Serialize)]
pub struct ResponsesRequest<'a> {
    /// The model id.
    pub model: &'a str,
    /// System prompt and conversation as input items.
    pub input: Vec<InputItem<'a>>,
    /// Always `true`: rho only streams.
    pub stream: bool,
    /// The session, for the prompt cache.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_cache_key: Option<&'a str>,
    /// Always `false`: the conversation is replayed, never stored.
    pub store: bool,
    /// The output cap.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u64>,
    /// The sampling temperature.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<JsNumber>,
    /// The tools offered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<WireTool<'a>>>,
    /// The reasoning effort of a reasoning model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<Reasoning>,
    /// Extra output asked for (the encrypted reasoning).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub include: Option<[&'static str; 1]>,
}

/// `{effort, summary?}`.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Reasoning {
    /// The effort name (`"none"` when off).
    pub effort: &'static str,
    /// `"auto"` when reasoning is on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<&'static str>,
}

/// Who speaks a role message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The system prompt of other models.
    System,
    /// The system prompt of reasoning models.
    Developer,
    /// The user.
    User,
}

/// One input item.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum InputItem<'a> {
    /// An assistant message item, replayed with its id and phase.
    Message {
        /// Always `assistant`.
        role: &'static str,
        /// One `output_text` part.
        content: [OutputText<'a>; 1],
        /// Always `completed`.
        status: &'static str,
        /// The item id.
        id: String,
        /// `commentary` or `final_answer`, when the signature named one.
        #[serde(skip_serializing_if = "Option::is_none")]
        phase: Option<String>,
    },
    /// A tool call.
    FunctionCall {
        /// The item id, when it is kept.
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<&'a str>,
        /// The id pairing the call with its output.
        call_id: &'a str,
        /// The tool.
        name: &'a str,
        /// The arguments as JSON text.
        arguments: JsonText<'a>,
    },
    /// One tool's result.
    FunctionCallOutput {
        /// The call it answers.
        call_id: &'a str,
        /// Text, or parts when it holds images the model can see.
        output: Output<'a>,
    },
    /// The system prompt or a user message: `{role, content}` without a `type`.
    #[serde(untagged)]
    Role {
        /// Who speaks.
        role: Role,
        /// The content.
        content: RoleContent<'a>,
    },
    /// A reasoning item, replayed verbatim from a thinking signature.
    #[serde(untagged)]
    Replayed(Value),
}

/// `{type: "output_text", text, annotations: []}`.
#[derive(Debug, Serialize)]
pub struct OutputText<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
    annotations: [(); 0],
}

impl<'a> OutputText<'a> {
    /// The text of a replayed message item.
    pub fn new(text: &'a str) -> Self {
        OutputText {
            kind: "output_text",
            text,
            annotations: [],
        }
    }
}

/// A role message's content.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum RoleContent<'a> {
    /// A string (the system prompt).
    Text(&'a str),
    /// Input parts (a user message).
    Parts(Vec<InputPart<'a>>),
}

/// A tool result's output.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Output<'a> {
    /// The text blocks joined with newlines.
    Text(Cow<'a, str>),
    /// Text and image parts.
    Parts(Vec<InputPart<'a>>),
}

/// One input part, tagged by `type`.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum InputPart<'a> {
    /// Text.
    InputText {
        /// The text.
        text: Cow<'a, str>,
    },
    /// An image as a `data:` URL.
    InputImage {
        /// Always `auto`.
        detail: &'static str,
        /// The image's `data:` URL.
        image_url: DataUrl<'a>,
    },
}

impl<'a> InputPart<'a> {
    /// An image part.
    pub fn image(mime_type: &'a str, data: &'a str) -> Self {
        InputPart::InputImage {
            detail: "auto",
            image_url: DataUrl { mime_type, data },
        }
    }
}

/// `{type: "function", name, description, parameters, strict?}`.
#[derive(Debug, Serialize)]
pub struct WireTool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    name: &'a str,
    description: &'a str,
    parameters: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    strict: Option<bool>,
}

impl<'a> WireTool<'a> {
    /// A function tool; `strict` is sent when the server knows strict mode.
    pub fn function(
        name: &'a str,
        description: &'a str,
        parameters: &'a Value,
        strict: Option<bool>,
    ) -> Self {
        WireTool {
            kind: "function",
            name,
            description,
            parameters,
            strict,
        }
    }
}
