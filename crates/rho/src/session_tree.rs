//! What the interactive mode shows of a session file: the `/resume` rows, the `/fork` points and
//! the `/tree` rows; and where Pi puts the leaf when a tree entry or a fork point is picked.
//! `fork_point` is shared with the RPC `fork` command.

use std::collections::HashMap;
use std::path::Path;

use rho_session::{EntryKind, SessionEntry, SessionFile, SessionInfo};
use rho_tui::sessions::{SessionRow, TreeRow};

use crate::rpc::sessions::SessionCommandError;

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
    }
}

/// The tree of `file` in display order: depth first, siblings in file order, one level of
/// indentation per branch point. Labels, names and extension state are not shown (Pi's default
/// filter); an entry under a hidden one takes its place. The current leaf (or its nearest shown
/// ancestor) is marked.
pub fn tree_rows(file: &SessionFile) -> Vec<TreeRow> {
    let mut children: HashMap<Option<&str>, Vec<&SessionEntry>> = HashMap::new();
    for entry in file.entries() {
        children
            .entry(entry.parent_id.as_deref())
            .or_default()
            .push(entry);
    }
    let branch: Vec<&str> = file
        .branch_entries(None)
        .iter()
        .map(|e| e.id.as_str())
        .collect();
    let current = branch
        .iter()
        .rev()
        .find(|id| file.entry(id).is_some_and(|e| shown(&e.kind)))
        .copied();
    let labels = file.labels();
    let mut rows = Vec::new();
    // An explicit stack: a long session is a deep chain, too deep for recursion.
    let mut stack: Vec<(&SessionEntry, usize)> = children
        .get(&None)
        .map(|roots| {
            let depth = usize::from(roots.len() > 1);
            roots.iter().rev().map(|e| (*e, depth)).collect()
        })
        .unwrap_or_default();
    while let Some((entry, depth)) = stack.pop() {
        let kids = children.get(&Some(entry.id.as_str()));
        let mut depth_below = depth;
        if let Some(text) = shown(&entry.kind).then(|| entry_text(entry)).flatten() {
            rows.push(TreeRow {
                entry_id: entry.id.clone(),
                depth,
                text,
                label: labels.get(&entry.id).map(|(label, _)| label.clone()),
                current: current == Some(entry.id.as_str()),
                on_branch: branch.contains(&entry.id.as_str()),
            });
        }
        if let Some(kids) = kids {
            if kids.len() > 1 {
                depth_below += 1;
            }
            for kid in kids.iter().rev() {
                stack.push((kid, depth_below));
            }
        }
    }
    rows
}

fn shown(kind: &EntryKind) -> bool {
    !matches!(
        kind,
        EntryKind::Label { .. } | EntryKind::SessionInfo { .. } | EntryKind::Custom { .. }
    )
}

/// The line for one entry.
fn entry_text(entry: &SessionEntry) -> Option<String> {
    Some(match &entry.kind {
        EntryKind::Message(message) => {
            let message = message.get().ok()?;
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
        EntryKind::CustomMessage { custom_type, .. } => format!("[{custom_type}]"),
        EntryKind::ModelChange { provider, model_id } => format!("[model: {provider}/{model_id}]"),
        EntryKind::ThinkingLevelChange { thinking_level } => {
            format!("[thinking: {thinking_level}]")
        }
        EntryKind::Compaction { .. } => "[compaction]".to_owned(),
        EntryKind::BranchSummary { summary, .. } => format!("[branch summary] {summary}"),
        EntryKind::Unknown { entry_type } => format!("[{entry_type}]"),
        EntryKind::Label { .. } | EntryKind::SessionInfo { .. } | EntryKind::Custom { .. } => {
            return None;
        }
    })
}

/// The directory a session file lives in (for `/new` beside it).
pub fn dir_of(path: &Path) -> Option<&Path> {
    path.parent().filter(|p| !p.as_os_str().is_empty())
}
