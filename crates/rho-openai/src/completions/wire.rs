//! The Chat Completions request body as typed values borrowed from the context (pi-reference
//! §5.3 "Request"). A body is serialized straight into bytes, with no JSON tree built per
//! request; the order of the fields is the order of the keys on the wire, and a field a compat
//! switch leaves out is `None`.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::body::{DataUrl, JsNumber, JsonText};

/// The body of one `POST /chat/completions`.
#[derive(Debug, Serialize)]
pub struct CompletionsRequest<'a> {
    /// The model id.
    pub model: &'a str,
    /// System prompt and conversation.
    pub messages: Vec<Outgoing<'a>>,
    /// Always `true`: rho only streams.
    pub stream: bool,
    /// `{include_usage: true}` where the server supports it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_options: Option<IncludeUsage>,
    /// `false` where the server knows the field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store: Option<bool>,
    /// The output cap under OpenAI's current name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_completion_tokens: Option<u64>,
    /// The output cap under the legacy name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    /// The sampling temperature.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<JsNumber>,
    /// The tools offered (empty when only the history has tool calls).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<WireTool<'a>>>,
    /// Z.ai's and Qwen's reasoning switch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enable_thinking: Option<bool>,
    /// Qwen's chat-template reasoning switch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chat_template_kwargs: Option<ChatTemplateKwargs>,
    /// OpenRouter's reasoning effort.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<Effort>,
    /// DeepSeek's reasoning switch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking: Option<ThinkingSwitch>,
    /// OpenAI's (and DeepSeek's) reasoning effort.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_effort: Option<String>,
    /// The session, for OpenAI's prompt cache.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_cache_key: Option<&'a str>,
}

/// `{include_usage}`.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct IncludeUsage {
    /// Whether the last chunk carries the usage.
    pub include_usage: bool,
}

/// `{enable_thinking, preserve_thinking}`.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct ChatTemplateKwargs {
    /// Whether the model reasons.
    pub enable_thinking: bool,
    /// Keeps earlier reasoning in the template.
    pub preserve_thinking: bool,
}

/// `{effort}`.
#[derive(Clone, Debug, Serialize)]
pub struct Effort {
    /// The effort name (`"none"` when off).
    pub effort: String,
}

/// `{type: "enabled" | "disabled"}`.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct ThinkingSwitch {
    /// `enabled` or `disabled`.
    #[serde(rename = "type")]
    pub kind: &'static str,
}

/// Who speaks a wire message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The system prompt on most servers.
    System,
    /// The system prompt of reasoning models where the server knows the role.
    Developer,
    /// The user.
    User,
    /// The model.
    Assistant,
    /// One tool's result.
    Tool,
}

/// One message of `messages`: built now, or written by an earlier request of the conversation
/// (see [`rho_http::WireCache`]) and copied as it is.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Outgoing<'a> {
    /// A message built for this request (boxed: these are few, and the list stays small to move).
    Built(Box<WireMessage<'a>>),
    /// The text of a message written before.
    Written(&'a RawValue),
}

/// One message of `messages`. Every shape (plain, assistant, tool result) is this struct with
/// the fields it does not use left `None`, so the key order is the same in all.
#[derive(Debug, Serialize)]
pub struct WireMessage<'a> {
    /// Who speaks.
    pub role: Role,
    /// The content (`null` for an assistant turn with only tool calls).
    pub content: MessageContent<'a>,
    /// Replayed reasoning, when the server streamed it as `reasoning`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<Cow<'a, str>>,
    /// Replayed reasoning, when the server streamed it as `reasoning_text`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_text: Option<Cow<'a, str>>,
    /// Replayed reasoning as `reasoning_content` (DeepSeek's, also sent empty in thinking mode).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_content: Option<Cow<'a, str>>,
    /// The assistant's tool calls.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_calls: Option<Vec<WireToolCall<'a>>>,
    /// OpenRouter's reasoning details, replayed from the tool calls' signatures.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_details: Option<Vec<Value>>,
    /// The call a tool message answers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<&'a str>,
    /// The tool's name, where the server requires it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<&'a str>,
}

impl<'a> WireMessage<'a> {
    /// A message with only a role and content.
    pub fn plain(role: Role, content: MessageContent<'a>) -> Self {
        WireMessage {
            role,
            content,
            reasoning: None,
            reasoning_text: None,
            reasoning_content: None,
            tool_calls: None,
            reasoning_details: None,
            tool_call_id: None,
            name: None,
        }
    }
}

/// A message's content.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum MessageContent<'a> {
    /// A string.
    Text(Cow<'a, str>),
    /// Text and image parts.
    Parts(Vec<Part<'a>>),
    /// `null`.
    Null,
}

/// One content part, tagged by `type`.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Part<'a> {
    /// Text.
    Text {
        /// The text.
        text: &'a str,
    },
    /// An image as a `data:` URL.
    ImageUrl {
        /// `{url}`.
        image_url: ImageUrl<'a>,
    },
}

impl<'a> Part<'a> {
    /// An image part.
    pub fn image(mime_type: &'a str, data: &'a str) -> Self {
        Part::ImageUrl {
            image_url: ImageUrl {
                url: DataUrl { mime_type, data },
            },
        }
    }
}

/// `{url}`.
#[derive(Debug, Serialize)]
pub struct ImageUrl<'a> {
    /// The image's `data:` URL.
    pub url: DataUrl<'a>,
}

/// `{id, type: "function", function: {name, arguments}}`.
#[derive(Debug, Serialize)]
pub struct WireToolCall<'a> {
    /// The call id.
    pub id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: CalledFunction<'a>,
}

impl<'a> WireToolCall<'a> {
    /// A call of `name` with `arguments` (sent as JSON text).
    pub fn new(id: &'a str, name: &'a str, arguments: &'a Value) -> Self {
        WireToolCall {
            id,
            kind: "function",
            function: CalledFunction {
                name,
                arguments: JsonText(arguments),
            },
        }
    }
}

#[derive(Debug, Serialize)]
struct CalledFunction<'a> {
    name: &'a str,
    arguments: JsonText<'a>,
}

/// `{type: "function", function: {name, description, parameters, strict?}}`.
#[derive(Debug, Serialize)]
pub struct WireTool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: FunctionDefinition<'a>,
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
            function: FunctionDefinition {
                name,
                description,
                parameters,
                strict,
            },
        }
    }
}

#[derive(Debug, Serialize)]
struct FunctionDefinition<'a> {
    name: &'a str,
    description: &'a str,
    parameters: &'a Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    strict: Option<bool>,
}
