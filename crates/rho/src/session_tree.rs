//! What the interactive mode shows of a session file: the `/resume` rows, the `/fork` points and
//! the `/tree` rows (and the filter it opens with); and where Pi puts the leaf when a tree entry
//! or a fork point is picked.
//! `fork_point` is shared with the RPC `fork` command.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use rho_agent::AgentMessage;
use rho_session::{EntryKind, SessionEntry, SessionFile, SessionInfo};
use rho_tui::sessions::{SessionRow, TreeEntryKind, TreeFilter, TreeRow};

use crate::rpc::commands::session::SessionCommandError;

/// A user message to fork before: the entry the new file ends at (`None`: before the first
/// entry) and the message's text, which goes back to the editor.
pub struct ForkAt {
    /// The parent of the picked message.
    pub parent: Option<String>,
    /// The picked message's text.
    pub text: String,
}

/// Pi's fork point: `entry_id` must be a user message of `file`.
pub fn fork_point(file: &SessionFile, entry_id: &str) -> Result<ForkAt, SessionCommandError> {
    let entry = file
        .entry(entry_id)
        .ok_or(SessionCommandError::InvalidForkEntry)?;
    let text = user_text(entry).ok_or(SessionCommandError::InvalidForkEntry)?;
    Ok(ForkAt {
        parent: entry.parent_id.clone(),
        text,
    })
}

fn user_text(entry: &SessionEntry) -> Option<String> {
    match &entry.kind {
        EntryKind::Message(message) => message
            .get()
            .ok()
            .and_then(|m| m.as_user())
            .map(|user| user.text_content()),
        _ => None,
    }
}

/// Where the leaf goes when `/tree` picks `entry_id` (Pi's selection rules): a user message
/// moves it to its parent (`None`: an empty conversation) and returns the text for the editor;
/// any other entry becomes the leaf itself.
pub fn tree_target(file: &SessionFile, entry_id: &str) -> Option<(Option<String>, Option<String>)> {
    let entry = file.entry(entry_id)?;
    Some(match user_text(entry) {
        Some(text) => (entry.parent_id.clone(), Some(text)),
        None => (Some(entry.id.clone()), None),
    })
}

/// A listed session as the picker shows it.
pub fn session_row(info: SessionInfo) -> SessionRow {
    let size = std::fs::metadata(&info.path).map_or(0, |m| m.len());
    SessionRow {
        size,
        path: info.path,
        name: info.name,
        first_message: info.first_message,
        cwd: info.cwd,
        modified: info.modified,
        message_count: info.message_count,
        parent: info.parent_session_path.map(std::path::PathBuf::from),
    }
}

/// The tree of `file` in display order: depth first, siblings in file order, a row for every
/// entry (the navigator's filter picks what is shown, and indents it), each with its label. The
/// current leaf and the path to it are marked.
pub fn tree_rows(file: &SessionFile) -> Vec<TreeRow> {
    let mut children: HashMap<Option<&str>, Vec<&SessionEntry>> = HashMap::new();
    for entry in file.entries() {
        children
            .entry(entry.parent_id.as_deref())
            .or_default()
            .push(entry);
    }
    let branch: HashSet<&str> = file
        .branch_entries(None)
        .iter()
        .map(|e| e.id.as_str())
        .collect();
    let leaf = file.leaf_id();
    let labels = file.labels();
    let mut rows = Vec::new();
    // An explicit stack: a long session is a deep chain, too deep for recursion.
    let mut stack: Vec<&SessionEntry> = children
        .get(&None)
        .map(|roots| roots.iter().rev().copied().collect())
        .unwrap_or_default();
    while let Some(entry) = stack.pop() {
        rows.push(TreeRow {
            entry_id: entry.id.clone(),
            parent_id: entry.parent_id.clone(),
            kind: entry_kind(&entry.kind),
            text: entry_text(entry),
            label: labels.get(&entry.id).map(|(label, _)| label.clone()),
            current: leaf == Some(entry.id.as_str()),
            on_branch: branch.contains(entry.id.as_str()),
        });
        if let Some(kids) = children.get(&Some(entry.id.as_str())) {
            stack.extend(kids.iter().rev());
        }
    }
    rows
}

/// What the tree's filters see of an entry.
fn entry_kind(kind: &EntryKind) -> TreeEntryKind {
    match kind {
        EntryKind::Message(message) => match message.get() {
            Ok(m) if m.as_user().is_some() => TreeEntryKind::UserMessage,
            Ok(m) if m.as_tool_result().is_some() => TreeEntryKind::ToolResult,
            _ => TreeEntryKind::Conversation,
        },
        EntryKind::Label { .. }
        | EntryKind::Custom { .. }
        | EntryKind::ModelChange { .. }
        | EntryKind::ThinkingLevelChange { .. }
        | EntryKind::ContextEdit { .. }
        | EntryKind::SessionInfo { .. } => TreeEntryKind::Bookkeeping,
        EntryKind::CustomMessage { .. }
        | EntryKind::Compaction { .. }
        | EntryKind::BranchSummary { .. }
        | EntryKind::Unknown { .. } => TreeEntryKind::Conversation,
    }
}

/// The line for one entry, as Pi's tree words it.
fn entry_text(entry: &SessionEntry) -> String {
    match &entry.kind {
        EntryKind::Message(message) => match message.get() {
            Ok(message) => message_text(message),
            Err(_) => "[message]".to_owned(),
        },
        EntryKind::CustomMessage { custom_type, .. } => format!("[{custom_type}]"),
        EntryKind::ModelChange { provider, model_id } => format!("[model: {provider}/{model_id}]"),
        EntryKind::ThinkingLevelChange { thinking_level } => {
            format!("[thinking: {thinking_level}]")
        }
        EntryKind::Compaction { .. } => "[compaction]".to_owned(),
        EntryKind::BranchSummary { summary, .. } => format!("[branch summary] {summary}"),
        EntryKind::Label { label, .. } => match label.as_deref().filter(|l| !l.is_empty()) {
            Some(label) => format!("[label: {label}]"),
            None => "[label: (cleared)]".to_owned(),
        },
        EntryKind::SessionInfo { name } => match name.as_deref().filter(|n| !n.is_empty()) {
            Some(name) => format!("[title: {name}]"),
            None => "[title: empty]".to_owned(),
        },
        EntryKind::Custom { custom_type, .. } => format!("[custom: {custom_type}]"),
        EntryKind::ContextEdit { replacement, .. } => match replacement {
            None => "[context edit: omitted]".to_owned(),
            Some(_) => "[context edit: replaced]".to_owned(),
        },
        EntryKind::Unknown { entry_type } => format!("[{entry_type}]"),
    }
}

fn message_text(message: &AgentMessage) -> String {
    if let Some(user) = message.as_user() {
        format!("user: \"{}\"", user.text_content())
    } else if let Some(assistant) = message.as_assistant() {
        let texts: Vec<&str> = assistant
            .content
            .iter()
            .filter_map(rho_ai::ContentBlock::as_text)
            .collect();
        let text = texts.join(" ");
        if text.trim().is_empty() {
            let tools: Vec<&str> = assistant
                .content
                .iter()
                .filter_map(|b| match b {
                    rho_ai::ContentBlock::ToolCall(call) => Some(call.name.as_str()),
                    _ => None,
                })
                .collect();
            format!("assistant: [{}]", tools.join(", "))
        } else {
            format!("assistant: \"{text}\"")
        }
    } else if let Some(result) = message.as_tool_result() {
        format!("[{} result]", result.tool_name)
    } else {
        format!("[{}]", message.role())
    }
}

/// The filter `/tree` opens with: `treeFilterMode` of the project's settings, else of the
/// global ones (Pi's key; an unknown value is the default view, as in Pi).
pub fn tree_filter_setting(home: Option<&Path>, cwd: &Path) -> TreeFilter {
    crate::slash_host::ui_setting(home, cwd, "treeFilterMode")
        .and_then(|mode| mode.as_str().and_then(TreeFilter::from_name))
        .unwrap_or_default()
}

/// The directory a session file lives in (for `/new` beside it).
pub fn dir_of(path: &Path) -> Option<&Path> {
    path.parent().filter(|p| !p.as_os_str().is_empty())
}

#[cfg(test)]
#[path = "session_tree_tests.rs"]
mod tests;
