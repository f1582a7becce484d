//! Which files the summarised part of the session read or changed (pi-reference §8.4 step 6),
//! carried from compaction to compaction in the entry's `details`.

use std::collections::BTreeSet;

use rho_agent::AgentMessage;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Paths touched by `read`, `write` and `edit` tool calls.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileOps {
    /// Paths of `read` calls.
    pub read: BTreeSet<String>,
    /// Paths of `write` calls.
    pub written: BTreeSet<String>,
    /// Paths of `edit` calls (and the modified files of earlier compactions).
    pub edited: BTreeSet<String>,
}

/// `details` of a compaction entry: `{readFiles, modifiedFiles}`, each sorted.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactionDetails {
    /// Files only read, never modified.
    pub read_files: Vec<String>,
    /// Files written or edited.
    pub modified_files: Vec<String>,
}

impl FileOps {
    /// Adds the `path` argument of every `read`/`write`/`edit` call of an assistant message.
    pub fn add_message(&mut self, message: &AgentMessage) {
        let Some(assistant) = message.as_assistant() else {
            return;
        };
        for call in assistant.tool_calls() {
            let Some(path) = call.arguments.get("path").and_then(Value::as_str) else {
                continue;
            };
            if path.is_empty() {
                continue;
            }
            let set = match call.name.as_str() {
                "read" => &mut self.read,
                "write" => &mut self.written,
                "edit" => &mut self.edited,
                _ => continue,
            };
            set.insert(path.to_owned());
        }
    }

    /// Adds the lists of an earlier compaction's `details` (read stays read, modified counts
    /// as edited). Details of another shape are ignored.
    pub fn add_details(&mut self, details: &Value) {
        let mut add = |key: &str, to_edited: bool| {
            if let Some(Value::Array(paths)) = details.get(key) {
                for path in paths.iter().filter_map(Value::as_str) {
                    let set = if to_edited {
                        &mut self.edited
                    } else {
                        &mut self.read
                    };
                    set.insert(path.to_owned());
                }
            }
        };
        add("readFiles", false);
        add("modifiedFiles", true);
    }

    /// The two lists: files read but not modified, and files modified; both sorted.
    pub fn details(&self) -> CompactionDetails {
        let modified: BTreeSet<&String> = self.edited.iter().chain(&self.written).collect();
        CompactionDetails {
            read_files: self
                .read
                .iter()
                .filter(|p| !modified.contains(p))
                .cloned()
                .collect(),
            modified_files: modified.into_iter().cloned().collect(),
        }
    }
}

impl CompactionDetails {
    /// What follows the summary text: `\n\n<read-files>…</read-files>` and/or
    /// `\n\n<modified-files>…</modified-files>`, or nothing when both lists are empty.
    pub fn summary_suffix(&self) -> String {
        let mut sections = Vec::new();
        if !self.read_files.is_empty() {
            sections.push(format!(
                "<read-files>\n{}\n</read-files>",
                self.read_files.join("\n")
            ));
        }
        if !self.modified_files.is_empty() {
            sections.push(format!(
                "<modified-files>\n{}\n</modified-files>",
                self.modified_files.join("\n")
            ));
        }
        if sections.is_empty() {
            String::new()
        } else {
            format!("\n\n{}", sections.join("\n\n"))
        }
    }
}
