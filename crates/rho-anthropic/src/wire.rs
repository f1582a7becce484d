//! The Anthropic Messages request body as typed values borrowed from the context (pi-reference
//! §5.1 "Request"). A body is serialized straight into bytes, with no JSON tree built per
//! request; the order of the fields is the order of the keys on the wire.

use std::borrow::Cow;

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use serde_json::Value;

/// The body of one `POST /v1/messages`.
#[derive(Debug, Serialize)]
pub struct MessagesRequest<'a> {
    /// The model id.
    pub model: &'a str,
    /// The conversation.
    pub messages: Vec<WireMessage<'a>>,
    /// The output cap (raised by a thinking budget).
    pub max_tokens: u64,
    /// Always `true`: rho only streams.
    pub stream: bool,
    /// The system prompt as one text block.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system: Option<[Block<'a>; 1]>,
    /// Sent only when reasoning is off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// The tools offered, when there are any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<WireTool<'a>>>,
    /// The `thinking` switch (see `thinking.rs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking: Option<Value>,
    /// The adaptive-thinking effort.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_config: Option<Value>,
}

/// Who speaks a wire message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The user (tool results included).
    User,
    /// The model.
    Assistant,
}

/// One message of `messages`.
#[derive(Debug, Serialize)]
pub struct WireMessage<'a> {
    /// Who speaks.
    pub role: Role,
    /// A string or blocks.
    pub content: Content<'a>,
}

/// A message's content: a plain string, or blocks.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Content<'a> {
    /// User text sent as a string.
    Text(&'a str),
    /// Content blocks.
    Blocks(Vec<Block<'a>>),
}

/// A prompt-cache breakpoint: `{type:"ephemeral", ttl?}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct CacheControl {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    ttl: Option<&'static str>,
}

impl CacheControl {
    /// The five-minute cache.
    pub const EPHEMERAL: CacheControl = CacheControl {
        kind: "ephemeral",
        ttl: None,
    };
    /// The one-hour cache.
    pub const ONE_HOUR: CacheControl = CacheControl {
        kind: "ephemeral",
        ttl: Some("1h"),
    };
}

/// One content block, tagged by `type`.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Block<'a> {
    /// Text.
    Text {
        /// The text.
        text: &'a str,
        /// A cache breakpoint on this block.
        #[serde(skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    /// A base64 image.
    Image {
        /// Where the bytes are.
        source: ImageSource<'a>,
        /// A cache breakpoint on this block.
        #[serde(skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    /// Signed reasoning, replayed.
    Thinking {
        /// The reasoning text.
        thinking: &'a str,
        /// Its signature.
        signature: &'a str,
    },
    /// Reasoning the provider redacted, replayed.
    RedactedThinking {
        /// The opaque payload.
        data: &'a str,
    },
    /// A tool call.
    ToolUse {
        /// The call id.
        id: &'a str,
        /// The tool.
        name: &'a str,
        /// The arguments.
        input: &'a Value,
    },
    /// One tool's result.
    ToolResult {
        /// The call it answers.
        tool_use_id: &'a str,
        /// Its text, or blocks when it holds images.
        content: ToolResultContent<'a>,
        /// Whether the tool failed.
        is_error: bool,
        /// A cache breakpoint on this block.
        #[serde(skip_serializing_if = "Option::is_none")]
        cache_control: Option<CacheControl>,
    },
    /// A server-side tool block, replayed as it was received.
    #[serde(untagged)]
    Provider(&'a Value),
}

impl Block<'_> {
    /// Puts a cache breakpoint on this block, if it is a kind that carries one.
    pub fn set_cache_control(&mut self, marker: CacheControl) {
        match self {
            Block::Text { cache_control, .. }
            | Block::Image { cache_control, .. }
            | Block::ToolResult { cache_control, .. } => *cache_control = Some(marker),
            Block::Thinking { .. }
            | Block::RedactedThinking { .. }
            | Block::ToolUse { .. }
            | Block::Provider(_) => {}
        }
    }
}

/// `{type:"base64", media_type, data}`.
#[derive(Debug, Serialize)]
pub struct ImageSource<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    media_type: &'a str,
    data: &'a str,
}

impl<'a> ImageSource<'a> {
    /// Base64 `data` of type `media_type`.
    pub fn base64(media_type: &'a str, data: &'a str) -> Self {
        ImageSource {
            kind: "base64",
            media_type,
            data,
        }
    }
}

/// The content of a `tool_result` block.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum ToolResultContent<'a> {
    /// The text blocks joined with newlines.
    Text(Cow<'a, str>),
    /// Text and image blocks.
    Blocks(Vec<Block<'a>>),
}

/// One tool definition.
#[derive(Debug, Serialize)]
pub struct WireTool<'a> {
    /// The tool's name.
    pub name: &'a str,
    /// What it does.
    pub description: &'a str,
    /// `Some(true)` asks for unbuffered argument deltas.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eager_input_streaming: Option<bool>,
    /// The arguments' schema.
    pub input_schema: InputSchema<'a>,
    /// A cache breakpoint (the last tool).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<CacheControl>,
}

/// `{type:"object", properties, required}` from a tool's JSON Schema, with the root's
/// `additionalProperties` (so the model knows whether extra arguments are allowed) and shared
/// definitions (so property `$ref`s still resolve), as Pi 1.6 sends them. Other root keywords stay
/// out: Anthropic answers a root `anyOf`/`oneOf`/`allOf` with a 400.
#[derive(Debug, Serialize)]
pub struct InputSchema<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    properties: OrEmpty<'a>,
    required: OrEmpty<'a>,
    #[serde(
        rename = "additionalProperties",
        skip_serializing_if = "Option::is_none"
    )]
    additional_properties: Option<&'a Value>,
    #[serde(rename = "$defs", skip_serializing_if = "Option::is_none")]
    defs: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    definitions: Option<&'a Value>,
}

impl<'a> InputSchema<'a> {
    /// The schema's `properties` (`{}` when absent) and `required` (`[]` when absent).
    pub fn of(parameters: &'a Value) -> Self {
        InputSchema {
            kind: "object",
            properties: parameters
                .get("properties")
                .map_or(OrEmpty::Object, OrEmpty::Given),
            required: parameters
                .get("required")
                .map_or(OrEmpty::Array, OrEmpty::Given),
            additional_properties: parameters.get("additionalProperties"),
            defs: parameters.get("$defs"),
            definitions: parameters.get("definitions"),
        }
    }
}

/// A schema member, or the empty value that stands in for a missing one.
#[derive(Debug)]
enum OrEmpty<'a> {
    Given(&'a Value),
    Object,
    Array,
}

impl Serialize for OrEmpty<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            OrEmpty::Given(value) => value.serialize(serializer),
            OrEmpty::Object => serializer.serialize_map(Some(0))?.end(),
            OrEmpty::Array => serializer.serialize_seq(Some(0))?.end(),
        }
    }
}
