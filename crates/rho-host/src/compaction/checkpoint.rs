//! The system-prompt checkpoint a Pi 1.6 `compaction` entry carries (`systemMessage`, delta
//! §3.1): every system message of the compacted context replayed into one (Pi's
//! `getCurrentSystemMessage`), so the context rebuilt from the compaction starts with the whole
//! prompt and tool set even though the messages that declared them were summarised away.

use rho_ai::{AgentMessage, ContentBlock, SystemMessage, UserContent};
use serde_json::{Map, Value};

/// The replay of the system messages in `messages`, as a JSON object in Pi's key order (`role,
/// content, sections?, toolsAdded?, timestamp`) stamped with `timestamp`; `None` when there is
/// no system message. Content texts are joined by blank lines, sections are patched by name
/// (`null` removes one), and tools follow Pi's map semantics: a redeclared tool keeps its place,
/// a removed one is forgotten.
pub fn system_checkpoint(messages: &[AgentMessage], timestamp: i64) -> Option<Value> {
    let mut content: Vec<String> = Vec::new();
    let mut sections = Map::new();
    let mut tools = Map::new();
    let mut seen = false;
    for system in messages.iter().filter_map(AgentMessage::as_system) {
        seen = true;
        let text = content_text(system);
        if !text.is_empty() {
            content.push(text);
        }
        for (name, value) in system.sections.iter().flatten() {
            if value.is_null() {
                sections.shift_remove(name);
            } else {
                sections.insert(name.clone(), value.clone());
            }
        }
        for removed in system.tools_removed.iter().flatten() {
            tools.shift_remove(&removed.name);
        }
        for added in system.tools_added.iter().flatten() {
            let declaration = serde_json::to_value(added).unwrap_or(Value::Null);
            tools.insert(added.name.clone(), declaration);
        }
    }
    if !seen {
        return None;
    }
    let mut checkpoint = Map::new();
    checkpoint.insert("role".to_owned(), Value::from("system"));
    checkpoint.insert("content".to_owned(), Value::from(content.join("\n\n")));
    if !sections.is_empty() {
        checkpoint.insert("sections".to_owned(), Value::Object(sections));
    }
    if !tools.is_empty() {
        let tools: Vec<Value> = tools.into_iter().map(|(_, tool)| tool).collect();
        checkpoint.insert("toolsAdded".to_owned(), Value::Array(tools));
    }
    checkpoint.insert("timestamp".to_owned(), Value::from(timestamp));
    Some(Value::Object(checkpoint))
}

/// Pi's `contentText`: a string as it is, text blocks joined by newlines.
fn content_text(system: &SystemMessage) -> String {
    match &system.content {
        UserContent::Text(text) => text.clone(),
        UserContent::Blocks(blocks) => blocks
            .iter()
            .filter_map(ContentBlock::as_text)
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use serde_json::json;

    fn system(value: Value) -> AgentMessage {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn a_patch_is_replayed_onto_the_first_system_message() {
        let read = json!({"name": "read", "description": "Read", "parameters": {"type": "object"}});
        let bash = json!({"name": "bash", "description": "Run", "parameters": {"type": "object"}});
        let bash2 =
            json!({"name": "bash", "description": "Run v2", "parameters": {"type": "object"}});
        let messages = [
            system(json!({"role": "system", "content": "", "timestamp": 5,
                "sections": {"preamble": "P", "tools": "<tools>", "cwd": "<cwd>"},
                "toolsAdded": [read, bash]})),
            serde_json::from_value(json!({"role": "user", "content": "hi", "timestamp": 6}))
                .unwrap(),
            system(json!({"role": "system", "content": "extra", "timestamp": 7,
                "sections": {"tools": null, "addendum": "A"},
                "toolsRemoved": [{"name": "read"}], "toolsAdded": [bash2]})),
        ];
        assert_eq!(
            serde_json::to_string(&system_checkpoint(&messages, 99).unwrap()).unwrap(),
            json!({"role": "system", "content": "extra",
                "sections": {"preamble": "P", "cwd": "<cwd>", "addendum": "A"},
                "toolsAdded": [bash2], "timestamp": 99})
            .to_string()
        );
        assert_eq!(system_checkpoint(&messages[1..2], 1), None);
    }
}
