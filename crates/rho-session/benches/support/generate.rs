//! A large, realistic session for the open benchmark: user prompts, assistant turns with text
//! and tool calls, tool results, and a compaction near the end.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rho_ai::AgentMessage;
use rho_ai::{
    AssistantMessage, ContentBlock, Message, StopReason, ToolCall, ToolResultMessage, Usage,
    UserMessage,
};
use rho_session::{EntryKind, SessionError, SessionFile};
use serde_json::json;

/// Writes a session of `entries` entries into `dir`, with a compaction near the end, and
/// returns its path.
pub fn generate(dir: &Path, entries: usize) -> Result<PathBuf, SessionError> {
    generate_with(dir, entries, true)
}

/// The worst case for a context rebuild: no compaction, so every message is on the path.
#[allow(dead_code)]
pub fn generate_uncompacted(dir: &Path, entries: usize) -> Result<PathBuf, SessionError> {
    generate_with(dir, entries, false)
}

fn generate_with(dir: &Path, entries: usize, compact: bool) -> Result<PathBuf, SessionError> {
    let mut session = SessionFile::create(dir, "/home/user/project", None)?;
    session.append_model_change("anthropic", "claude-sonnet-4-5")?;
    session.append_thinking_level_change("medium")?;
    let filler = "The quick brown fox jumps over the lazy dog while the session grows. ".repeat(2);
    let mut kept = None;
    for i in 0..entries.saturating_sub(3) {
        let message: AgentMessage = match i % 3 {
            0 => UserMessage::text(format!(
                "Step {i}: please look at src/module_{i}.rs. {filler}"
            ))
            .into(),
            1 => {
                let mut a =
                    AssistantMessage::empty("anthropic-messages", "anthropic", "claude-sonnet-4-5");
                a.content = vec![
                    ContentBlock::text(format!("Reading the file for step {i}. {filler}")),
                    ContentBlock::ToolCall(ToolCall {
                        id: format!("toolu_{i:08}"),
                        name: "read".to_owned(),
                        arguments: json!({"path": format!("src/module_{i}.rs")}),
                        thought_signature: None,
                    }),
                ];
                a.usage = Usage {
                    input: 1200,
                    output: 80,
                    total_tokens: 1280,
                    ..Usage::default()
                };
                a.stop_reason = StopReason::ToolUse;
                a.into()
            }
            _ => AgentMessage::Llm(Message::ToolResult(Arc::new(ToolResultMessage {
                tool_call_id: format!("toolu_{:08}", i - 1),
                tool_name: "read".to_owned(),
                content: vec![ContentBlock::text(format!("fn step_{i}() {{}}\n{filler}"))],
                details: None,
                is_error: false,
                duration_ms: Some(3),
                usage: None,
                timestamp: rho_ai::now_ms(),
            }))),
        };
        let id = session.append_message(message)?;
        if i + 30 == entries {
            kept = Some(id);
        }
    }
    if let Some(first_kept_entry_id) = kept.filter(|_| compact) {
        session.append(EntryKind::Compaction {
            summary: "## Goal\nRefactor every module.".to_owned(),
            first_kept_entry_id,
            tokens_before: 150_000,
            details: None,
            usage: None,
            from_hook: None,
            system_message: None,
        })?;
    }
    session.sync()?;
    Ok(session.path().unwrap().to_path_buf())
}
