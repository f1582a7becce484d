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
    /// `system` (Pi 1.6): the system prompt's sections and the declared tools, or a patch of them.
    System(Arc<SystemMessage>),
    /// Any other role (for example the coding agent's `bashExecution` or `compactionSummary`).
    Custom(Arc<CustomMessage>),
}

/// Pi 1.6's `system` message: the prompt and tool state of the conversation from here on. The
/// first one of a session holds every section and tool; a later one patches sections by name
/// (`null` removes one) and lists the tools added and removed. Replaying them in order gives the
/// current system prompt and tools.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SystemMessage {
    /// Always `system`: a message with another role never reads as this one.
    pub role: SystemRole,
    /// Text before the sections: a string or text blocks (Pi and rho write `""`).
    pub content: crate::message::UserContent,
    /// The sections by name, in prompt order (`preamble`, `tools`, `rules`, …, `cwd`); a value
    /// of `null` in a patch removes the section.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sections: Option<Map<String, Value>>,
    /// Epoch ms.
    #[serde(default)]
    pub timestamp: i64,
    /// Tools declared from here on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_added: Option<Vec<ToolDeclaration>>,
    /// Tools no longer declared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_removed: Option<Vec<ToolRemoval>>,
}

/// The role of a [`SystemMessage`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum SystemRole {
    /// `"system"`.
    #[default]
    #[serde(rename = "system")]
    System,
}

/// A tool as a system message declares it to the model.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolDeclaration {
    /// The tool's name.
    pub name: String,
    /// What the model reads about it.
    pub description: String,
    /// Its arguments' JSON Schema.
    pub parameters: Value,
    /// How a provider may constrain sampling to the schema (`{"type":"json_schema",
    /// "strict":"prefer"}` on Pi's built-in file and shell tools).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constrained_sampling: Option<Value>,
}

/// A tool a system message stops declaring.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolRemoval {
    /// The tool's name.
    pub name: String,
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
            AgentMessage::System(_) => "system",
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

    /// The system message, if this is one.
    pub fn as_system(&self) -> Option<&Arc<SystemMessage>> {
        match self {
            AgentMessage::System(s) => Some(s),
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
            AgentMessage::System(_) | AgentMessage::Custom(_) => None,
        })
        .collect()
}

impl From<SystemMessage> for AgentMessage {
    fn from(message: SystemMessage) -> Self {
        AgentMessage::System(Arc::new(message))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_system_message_reads_and_writes_as_pi_1_6_does() {
        let line = r#"{"role":"system","content":"","sections":{"preamble":"P","cwd":"<cwd>\n/a\n</cwd>"},"timestamp":5,"toolsAdded":[{"name":"read","description":"d","parameters":{"type":"object"},"constrainedSampling":{"type":"json_schema","strict":"prefer"}}]}"#;
        let message: AgentMessage = serde_json::from_str(line).unwrap();
        let system = message.as_system().unwrap();
        assert_eq!(system.tools_added.as_ref().unwrap()[0].name, "read");
        assert_eq!(serde_json::to_string(&message).unwrap(), line);
        assert!(default_convert_to_llm(&[message]).is_empty());
    }

    #[test]
    fn a_custom_role_is_never_read_as_a_system_message() {
        let line = r#"{"role":"custom","customType":"note","content":"remember this","display":true,"timestamp":5}"#;
        let message: AgentMessage = serde_json::from_str(line).unwrap();
        assert_eq!(message.role(), "custom");
        assert!(message.as_system().is_none());
    }
}
