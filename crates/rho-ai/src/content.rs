//! Content blocks (pi-reference §1.1): the pieces of user, assistant and tool-result messages.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

fn empty_object() -> Value {
    Value::Object(Map::new())
}

/// One block of message content, discriminated by `type` on the wire.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum ContentBlock {
    /// Plain text.
    #[serde(rename = "text")]
    Text(TextContent),
    /// Model reasoning.
    #[serde(rename = "thinking")]
    Thinking(ThinkingContent),
    /// A base64 image (user and tool-result content only).
    #[serde(rename = "image")]
    Image(ImageContent),
    /// A tool call proposed by the model (assistant content only).
    #[serde(rename = "toolCall")]
    ToolCall(ToolCall),
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text(TextContent {
            text: text.into(),
            text_signature: None,
        })
    }

    /// The text of a text block, if this is one.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}

/// `{type:"text", text, textSignature?}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextContent {
    /// The text.
    pub text: String,
    /// Provider replay metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_signature: Option<String>,
}

/// `{type:"thinking", thinking, thinkingSignature?, redacted?}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThinkingContent {
    /// The reasoning text.
    pub thinking: String,
    /// Provider signature needed to replay the block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_signature: Option<String>,
    /// True for provider-redacted reasoning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redacted: Option<bool>,
}

/// `{type:"image", data, mimeType}` with base64 data and no `data:` prefix.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageContent {
    /// Base64 bytes.
    pub data: String,
    /// For example `image/png`.
    pub mime_type: String,
}

/// `{type:"toolCall", id, name, arguments, thoughtSignature?}`; `arguments` is always an object.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    /// The call id: rho's `toolCallId`.
    pub id: String,
    /// The tool name the model asked for.
    pub name: String,
    /// The arguments as parsed from the model (not validated). Providers always give an object;
    /// anything else (from a hand-written script or file) fails validation, never panics.
    #[serde(default = "empty_object")]
    pub arguments: Value,
    /// Google's per-call signature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thought_signature: Option<String>,
}
