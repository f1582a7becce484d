//! The system prompt and tools the model has, kept in the transcript as Pi 1.6's `system`
//! messages (delta §1.2): the first one of a session holds every section and tool; a later one
//! patches sections by name (`null` removes one) and lists the tools added and removed. Before a
//! prompt the session compares what the transcript declares with what it wants and, when they
//! differ, sends one message with the difference.

use std::sync::Arc;

use rho_agent::AgentTool;
use rho_ai::{
    AgentMessage, SystemMessage, SystemRole, ToolDeclaration, ToolRemoval, UserContent, now_ms,
};
use serde_json::{Map, Value};

use crate::prompt::SystemPrompt;
use crate::prompt::system_prompt::render_sections;

/// What the system messages of a transcript declare, replayed in order.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Declared {
    sections: Map<String, Value>,
    tools: Vec<ToolDeclaration>,
}

impl Declared {
    /// Replays every system message of `messages`.
    pub(crate) fn replay(messages: &[AgentMessage]) -> Self {
        let mut declared = Self::default();
        for system in messages.iter().filter_map(AgentMessage::as_system) {
            declared.apply(system);
        }
        declared
    }

    fn apply(&mut self, message: &SystemMessage) {
        for (name, value) in message.sections.iter().flatten() {
            if value.is_null() {
                self.sections.remove(name);
            } else {
                self.sections.insert(name.clone(), value.clone());
            }
        }
        for removed in message.tools_removed.iter().flatten() {
            self.tools.retain(|tool| tool.name != removed.name);
        }
        for added in message.tools_added.iter().flatten() {
            self.tools.retain(|tool| tool.name != added.name);
            self.tools.push(added.clone());
        }
    }

    /// The prompt text these sections give (Pi's `getSystemMessageText`).
    pub(crate) fn text(&self) -> String {
        render_sections(self.sections.values().filter_map(Value::as_str))
    }

    /// The names of the tools declared.
    pub(crate) fn tool_names(&self) -> Vec<String> {
        self.tools.iter().map(|tool| tool.name.clone()).collect()
    }

    /// The system message declaring how `tools` differ from the tools declared (sections
    /// untouched), or `None` when they do not. Applies it to `self`.
    pub(crate) fn update_tools_to(
        &mut self,
        tools: &[Arc<dyn AgentTool>],
    ) -> Option<SystemMessage> {
        let (added, removed) = self.tool_difference(tools);
        if added.is_empty() && removed.is_empty() {
            return None;
        }
        let message = SystemMessage {
            role: SystemRole::System,
            content: UserContent::Text(String::new()),
            sections: None,
            timestamp: now_ms(),
            tools_added: (!added.is_empty()).then_some(added),
            tools_removed: (!removed.is_empty()).then_some(removed),
        };
        self.apply(&message);
        Some(message)
    }

    /// The declarations `tools` add and the removals they make.
    fn tool_difference(
        &self,
        tools: &[Arc<dyn AgentTool>],
    ) -> (Vec<ToolDeclaration>, Vec<ToolRemoval>) {
        let wanted: Vec<ToolDeclaration> = tools.iter().map(|tool| declaration(&**tool)).collect();
        let added: Vec<ToolDeclaration> = wanted
            .iter()
            .filter(|tool| !self.tools.contains(tool))
            .cloned()
            .collect();
        let removed: Vec<ToolRemoval> = self
            .tools
            .iter()
            .filter(|tool| !wanted.iter().any(|w| w.name == tool.name))
            .map(|tool| ToolRemoval {
                name: tool.name.clone(),
            })
            .collect();
        (added, removed)
    }

    /// The system message that takes the model from what is declared to `prompt` and `tools`,
    /// or `None` when nothing differs. Applies it to `self`.
    pub(crate) fn update_to(
        &mut self,
        prompt: &SystemPrompt,
        tools: &[Arc<dyn AgentTool>],
    ) -> Option<SystemMessage> {
        let mut patch = Map::new();
        for (name, text) in prompt.sections() {
            if self.sections.get(name).and_then(Value::as_str) != Some(text.as_str()) {
                patch.insert(name.clone(), Value::String(text.clone()));
            }
        }
        for name in self.sections.keys() {
            if !prompt.sections().iter().any(|(wanted, _)| wanted == name) {
                patch.insert(name.clone(), Value::Null);
            }
        }
        let (added, removed) = self.tool_difference(tools);
        if patch.is_empty() && added.is_empty() && removed.is_empty() {
            return None;
        }
        let message = SystemMessage {
            role: SystemRole::System,
            content: UserContent::Text(String::new()),
            sections: (!patch.is_empty()).then_some(patch),
            timestamp: now_ms(),
            tools_added: (!added.is_empty()).then_some(added),
            tools_removed: (!removed.is_empty()).then_some(removed),
        };
        self.apply(&message);
        Some(message)
    }
}

/// A tool as a system message declares it.
fn declaration(tool: &dyn AgentTool) -> ToolDeclaration {
    ToolDeclaration {
        name: tool.name().to_owned(),
        description: tool.description().to_owned(),
        parameters: tool.parameters().clone(),
        constrained_sampling: tool.constrained_sampling(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::toolset::create_tools;

    fn prompt() -> SystemPrompt {
        SystemPrompt::preamble_only("Be brief.")
    }

    #[test]
    fn a_transcript_read_back_from_its_file_declares_the_same_prompt_and_tools() {
        let tools = create_tools(
            std::path::Path::new("/w"),
            &["read", "bash", "edit", "write"],
            None,
        );
        let mut fresh = Declared::default();
        let first = fresh.update_to(&prompt(), &tools).unwrap();
        assert!(fresh.update_to(&prompt(), &tools).is_none());
        let line = serde_json::to_string(&AgentMessage::from(first)).unwrap();
        let read: AgentMessage = serde_json::from_str(&line).unwrap();
        let mut replayed = Declared::replay(&[read]);
        assert_eq!(replayed.update_to(&prompt(), &tools), None);
    }
}
