//! Pi's branch summary (pi-reference §8.5; Pi's `branch-summarization`): when `/tree` leaves a
//! branch and the user asks for it, the entries from the old leaf back to the common ancestor
//! are summarised by the current model with Pi's prompt, and the summary is recorded as a
//! `branch_summary` entry at the new position.

use std::collections::HashSet;
use std::sync::Arc;

use rho_agent::AgentMessage;
use rho_ai::{
    ContentBlock, Context, Message, Model, Provider, StopReason, StreamOptions, Usage, UserContent,
    UserMessage, now_ms,
};
use rho_host::compaction::prompt::SUMMARIZATION_SYSTEM_PROMPT;
use rho_host::compaction::{
    CompactionDetails, FileOps, compaction_summary_message, convert_to_llm, estimate_tokens,
    serialize_conversation,
};
use rho_session::{EntryKind, SessionEntry, SessionFile};

/// What the model reads before the summary (Pi's `BRANCH_SUMMARY_PREAMBLE`).
pub const PREAMBLE: &str = "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n";

/// Pi's `BRANCH_SUMMARY_PROMPT`.
pub const PROMPT: &str =
    "Create a structured summary of this conversation branch for context when returning later.

Use this EXACT format:

## Goal
[What was the user trying to accomplish in this branch?]

## Constraints & Preferences
- [Any constraints, preferences, or requirements mentioned]
- [Or \"(none)\" if none were mentioned]

## Progress
### Done
- [x] [Completed tasks/changes]

### In Progress
- [ ] [Work that was started but not finished]

### Blocked
- [Issues preventing progress, if any]

## Key Decisions
- **[Decision]**: [Brief rationale]

## Next Steps
1. [What should happen next to continue this work]

Keep each section concise. Preserve exact file paths, function names, and error messages.";

/// Pi's `branchSummary.reserveTokens` default.
const RESERVE_TOKENS: u64 = 16_384;
/// Pi's cap on the summary's length.
const MAX_TOKENS: u64 = 2048;
/// Pi's context window when the model does not say.
const DEFAULT_WINDOW: u64 = 128_000;

/// The entries left behind going from `old_leaf` to `target`: from the old leaf back to (not
/// including) the deepest entry both paths share, oldest first.
pub fn abandoned_entries(
    file: &SessionFile,
    old_leaf: Option<&str>,
    target: &str,
) -> Vec<SessionEntry> {
    let Some(old_leaf) = old_leaf else {
        return Vec::new();
    };
    let old_path: HashSet<&str> = file
        .branch_entries(Some(old_leaf))
        .iter()
        .map(|e| e.id.as_str())
        .collect();
    let target_path = file.branch_entries(Some(target));
    let common = target_path
        .iter()
        .rev()
        .find(|e| old_path.contains(e.id.as_str()))
        .map(|e| e.id.clone());
    let mut entries = Vec::new();
    let mut current = Some(old_leaf.to_owned());
    while let Some(id) = current.filter(|id| Some(id) != common.as_ref()) {
        let Some(entry) = file.entry(&id) else {
            break;
        };
        entries.push(entry.clone());
        current = entry.parent_id.clone();
    }
    entries.reverse();
    entries
}

/// The message an entry contributes to the summary (tool results are left out: their calls
/// carry the context).
fn entry_message(entry: &SessionEntry) -> Option<AgentMessage> {
    match &entry.kind {
        EntryKind::Message(message) => {
            let message = message.get().ok()?;
            (message.as_tool_result().is_none()).then(|| message.clone())
        }
        EntryKind::Compaction {
            summary,
            tokens_before,
            ..
        } => Some(compaction_summary_message(
            summary,
            *tokens_before,
            rho_session::time::parse_iso_ms(&entry.timestamp).unwrap_or(0),
        )),
        EntryKind::CustomMessage { .. } | EntryKind::BranchSummary { .. } => {
            rho_session::user_entry_message(entry)
        }
        _ => None,
    }
}

/// Pi's `prepareBranchEntries`: the newest messages that fit `budget` tokens (0: all), and the
/// files touched on the whole branch (earlier branch summaries' lists included).
fn prepare(entries: &[SessionEntry], budget: u64) -> (Vec<AgentMessage>, FileOps) {
    let mut file_ops = FileOps::default();
    for entry in entries {
        if let EntryKind::BranchSummary {
            details: Some(details),
            from_hook,
            ..
        } = &entry.kind
            && *from_hook != Some(true)
        {
            file_ops.add_details(details);
        }
    }
    let mut messages = Vec::new();
    let mut total = 0;
    for entry in entries.iter().rev() {
        let Some(message) = entry_message(entry) else {
            continue;
        };
        file_ops.add_message(&message);
        let tokens = estimate_tokens(&message);
        if budget > 0 && total + tokens > budget {
            let summary = matches!(
                entry.kind,
                EntryKind::Compaction { .. } | EntryKind::BranchSummary { .. }
            );
            if summary && (total as f64) < budget as f64 * 0.9 {
                messages.insert(0, message);
            }
            break;
        }
        messages.insert(0, message);
        total += tokens;
    }
    (messages, file_ops)
}

/// The summary of `entries`, its file lists and what the call cost (none when there was nothing
/// to summarise); `Err` is Pi's failure text.
pub async fn summarize(
    provider: Arc<dyn Provider>,
    model: &Model,
    api_key: Option<String>,
    entries: &[SessionEntry],
) -> Result<(String, CompactionDetails, Option<Usage>), String> {
    let window = if model.context_window > 0 {
        model.context_window
    } else {
        DEFAULT_WINDOW
    };
    let (messages, file_ops) = prepare(entries, window.saturating_sub(RESERVE_TOKENS));
    if messages.is_empty() {
        return Ok((
            "No content to summarize".to_owned(),
            CompactionDetails::default(),
            None,
        ));
    }
    let conversation = serialize_conversation(&convert_to_llm(&messages));
    let prompt = format!("<conversation>\n{conversation}\n</conversation>\n\n{PROMPT}");
    let context = Context {
        system_prompt: Some(Arc::from(SUMMARIZATION_SYSTEM_PROMPT)),
        messages: Arc::new(vec![Message::User(Arc::new(UserMessage {
            content: UserContent::Blocks(vec![ContentBlock::text(prompt)]),
            timestamp: now_ms(),
        }))]),
        tools: Arc::from([]),
    };
    let options = StreamOptions {
        api_key,
        max_tokens: Some(MAX_TOKENS),
        ..StreamOptions::default()
    };
    let reply = provider.stream(model, context, options).result().await;
    match reply.stop_reason {
        StopReason::Aborted => Err("Branch summarization cancelled".to_owned()),
        StopReason::Error => Err(reply
            .error_message
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| "Summarization failed".to_owned())),
        _ => {
            let texts: Vec<&str> = reply
                .content
                .iter()
                .filter_map(ContentBlock::as_text)
                .collect();
            let details = file_ops.details();
            let summary = format!("{PREAMBLE}{}{}", texts.join("\n"), details.summary_suffix());
            Ok((summary, details, Some(reply.usage.clone())))
        }
    }
}
