//! rho-ai: the provider-neutral model layer.
//!
//! Messages, content blocks, usage and stop reasons; the assistant-message event stream that every
//! provider produces; the streaming partial-JSON parser for tool arguments; the [`Provider`] trait;
//! and the scripted [`faux`] provider used by tests and `--faux-script`. This crate knows nothing
//! of tools, files or terminals.

pub mod agent_message;
pub mod content;
pub mod error;
pub mod event;
pub mod faux;
pub mod message;
pub mod model;
pub mod partial;
pub mod partial_json;
pub mod provider;
pub mod stream;
pub mod transform;
pub mod wire_event;

pub use agent_message::{
    AgentMessage, CustomMessage, SystemMessage, SystemRole, ToolDeclaration, ToolRemoval,
    default_convert_to_llm,
};
pub use content::{ContentBlock, ImageContent, TextContent, ThinkingContent, ToolCall};
pub use error::{ErrorInfo, ErrorKind};
pub use event::AssistantMessageEvent;
pub use message::{
    AssistantMessage, Cost, Message, ProviderBlock, StopReason, ToolResultMessage, Usage,
    UserContent, UserMessage, now_ms,
};
pub use model::{Context, Model, ModelCost, ThinkingLevel, ToolSpec};
pub use partial::PartialMessage;
pub use provider::{Provider, StreamOptions};
pub use stream::{AssistantMessageEventStream, StreamSender, channel};
