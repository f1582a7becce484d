//! The Gemini `streamGenerateContent` body as typed values borrowed from the context
//! (pi-reference §5.4 "Request"). A body is serialized straight into bytes, with no JSON tree
//! built per request; the order of the fields is the order in which the `@google/genai` SDK
//! writes the keys, so the body matches Pi's byte for byte.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

/// The body of one `streamGenerateContent` call.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GenerateContentRequest<'a> {
    /// The conversation.
    pub contents: Vec<WireContent<'a>>,
    /// The system prompt as one user content.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_instruction: Option<WireContent<'a>>,
    /// The tools offered, when there are any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tools: Option<[Tools<'a>; 1]>,
    /// Sampling, output cap and thinking.
    pub generation_config: GenerationConfig,
}

/// `{temperature?, maxOutputTokens?, thinkingConfig?}`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GenerationConfig {
    /// The sampling temperature.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// The output cap.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u64>,
    /// The thinking level or budget (see `thinking.rs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking_config: Option<Value>,
}

/// One content: `{parts, role}`.
#[derive(Debug, Serialize)]
pub struct WireContent<'a> {
    /// Its parts.
    pub parts: Vec<Part<'a>>,
    /// `user` or `model`.
    pub role: &'static str,
}

/// One part of a content.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Part<'a> {
    /// Text or a thought.
    #[serde(rename_all = "camelCase")]
    Text {
        /// The text.
        text: &'a str,
        /// `true` for this model's own thoughts.
        #[serde(skip_serializing_if = "Option::is_none")]
        thought: Option<bool>,
        /// The signature, replayed to the model that wrote it.
        #[serde(skip_serializing_if = "Option::is_none")]
        thought_signature: Option<&'a str>,
    },
    /// An image.
    #[serde(rename_all = "camelCase")]
    InlineData {
        /// `{data, mimeType}`.
        inline_data: InlineData<'a>,
    },
    /// A tool call.
    #[serde(rename_all = "camelCase")]
    FunctionCall {
        /// `{id?, args, name}`.
        function_call: FunctionCall<'a>,
        /// The signature, replayed to the model that wrote it.
        #[serde(skip_serializing_if = "Option::is_none")]
        thought_signature: Option<&'a str>,
    },
    /// A tool result.
    #[serde(rename_all = "camelCase")]
    FunctionResponse {
        /// `{name, response, parts?, id?}`.
        function_response: FunctionResponse<'a>,
    },
}

impl<'a> Part<'a> {
    /// A plain text part.
    pub fn text(text: &'a str) -> Self {
        Part::Text {
            text,
            thought: None,
            thought_signature: None,
        }
    }

    /// An image part, `{inlineData: {data, mimeType}}`.
    pub fn image(mime_type: &'a str, data: &'a str) -> Self {
        Part::InlineData {
            inline_data: InlineData { data, mime_type },
        }
    }

    /// Whether this is a tool result.
    pub fn is_function_response(&self) -> bool {
        matches!(self, Part::FunctionResponse { .. })
    }
}

/// `{data, mimeType}`, as the SDK writes a top-level part.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InlineData<'a> {
    data: &'a str,
    mime_type: &'a str,
}

/// `{id?, args, name}`.
#[derive(Debug, Serialize)]
pub struct FunctionCall<'a> {
    /// Sent only to models that need explicit ids.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<&'a str>,
    /// The arguments.
    pub args: &'a Value,
    /// The tool.
    pub name: &'a str,
}

/// `{name, response: {output | error}, parts?, id?}`.
#[derive(Debug, Serialize)]
pub struct FunctionResponse<'a> {
    /// The tool.
    pub name: &'a str,
    /// The result text, under `output` or `error`.
    pub response: ResponseValue<'a>,
    /// Images, for models that take them inside a function response.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parts: Option<Vec<NestedImage<'a>>>,
    /// Sent only to models that need explicit ids.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<&'a str>,
}

/// `{output}` or `{error}`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ResponseValue<'a> {
    /// A successful result.
    Output(Cow<'a, str>),
    /// A failed one.
    Error(Cow<'a, str>),
}

/// `{inlineData: {mimeType, data}}`: nested parts pass through the SDK untouched, so they keep
/// Pi's own key order.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NestedImage<'a> {
    inline_data: NestedInlineData<'a>,
}

impl<'a> NestedImage<'a> {
    /// An image inside a function response.
    pub fn new(mime_type: &'a str, data: &'a str) -> Self {
        NestedImage {
            inline_data: NestedInlineData { mime_type, data },
        }
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct NestedInlineData<'a> {
    mime_type: &'a str,
    data: &'a str,
}

/// `{functionDeclarations: [...]}`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Tools<'a> {
    /// One declaration per tool.
    pub function_declarations: Vec<FunctionDeclaration<'a>>,
}

/// `{name, description, parametersJsonSchema}`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FunctionDeclaration<'a> {
    /// The tool's name.
    pub name: &'a str,
    /// What it does.
    pub description: &'a str,
    /// The arguments' JSON Schema.
    pub parameters_json_schema: &'a Value,
}
