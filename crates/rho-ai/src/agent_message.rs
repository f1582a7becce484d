//! Agent-level messages: the LLM messages plus application roles the model never sees directly.

use std::sync::Arc;

use crate::message::{AssistantMessage, Message, ToolResultMessage, UserMessage};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A message in the agent's transcript.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum AgentMessage {
    /// `user`, `assistant` or `toolResult`.
    Llm(Message),
    /// Any other role (for example the coding agent's `bashExecution` or `compactionSummary`).
    Custom(Arc<CustomMessage>),
}

/// A message with an application-defined role, kept as JSON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CustomMessage {
    /// The role name.
    pub role: String,
    /// Every other field.
    #[serde(flatten)]
    pub fields: Map<String, Value>,
}

impl AgentMessage {
    /// The role as written on the wire.
    pub fn role(&self) -> &str {
        match self {
            AgentMessage::Llm(m) => m.role(),
            AgentMessage::Custom(c) => &c.role,
        }
    }

    /// The assistant message, if this is one.
    pub fn as_assistant(&self) -> Option<&Arc<AssistantMessage>> {
        match self {
            AgentMessage::Llm(Message::Assistant(a)) => Some(a),
            _ => None,
        }
    }

    /// The user message, if this is one.
    pub fn as_user(&self) -> Option<&Arc<UserMessage>> {
        match self {
            AgentMessage::Llm(Message::User(u)) => Some(u),
            _ => None,
        }
    }

    /// The tool result, if this is one.
    pub fn as_tool_result(&self) -> Option<&Arc<ToolResultMessage>> {
        match self {
            AgentMessage::Llm(Message::ToolResult(r)) => Some(r),
            _ => None,
        }
    }
}

impl From<Message> for AgentMessage {
    fn from(message: Message) -> Self {
        AgentMessage::Llm(message)
    }
}

impl From<UserMessage> for AgentMessage {
    fn from(message: UserMessage) -> Self {
        AgentMessage::Llm(Message::User(Arc::new(message)))
    }
}

impl From<AssistantMessage> for AgentMessage {
    fn from(message: AssistantMessage) -> Self {
        AgentMessage::Llm(Message::Assistant(Arc::new(message)))
    }
}

impl From<Arc<AssistantMessage>> for AgentMessage {
    fn from(message: Arc<AssistantMessage>) -> Self {
        AgentMessage::Llm(Message::Assistant(message))
    }
}

impl From<Arc<ToolResultMessage>> for AgentMessage {
    fn from(message: Arc<ToolResultMessage>) -> Self {
        AgentMessage::Llm(Message::ToolResult(message))
    }
}

/// The default `convertToLlm`: keeps `user`, `assistant` and `toolResult`, drops other roles.
pub fn default_convert_to_llm(messages: &[AgentMessage]) -> Vec<Message> {
    messages
        .iter()
        .filter_map(|m| match m {
            AgentMessage::Llm(m) => Some(m.clone()),
            AgentMessage::Custom(_) => None,
        })
        .collect()
}
