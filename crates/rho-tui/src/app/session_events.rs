//! The session's events folded into the state: the conversation's entries, the status line's
//! facts and the end of the run.

use std::time::{Duration, Instant};

use rho_agent::AgentEvent;
use rho_host::compaction::CompactionReason;
use rho_host::{SessionEvent, SessionNotice};
use serde_json::Value;

use super::App;
use super::conversation::ToolEnd;
use crate::status::RetryWait;
use crate::transcript::{Entry, SummaryEntry, SummaryKind, ToolOrigin, blocks_text};

impl App {
    /// Folds one session event into the state.
    pub(super) fn on_session_event(&mut self, event: SessionEvent, now: Instant) {
        match event {
            SessionEvent::Agent(event) => self.on_agent_event(event, now),
            SessionEvent::Session(notice) => self.on_notice(notice, now),
        }
    }

    fn on_agent_event(&mut self, event: AgentEvent, now: Instant) {
        match event {
            AgentEvent::MessageStart { message } => {
                if let Some(assistant) = message.as_assistant() {
                    self.conversation.assistant_started(assistant);
                }
            }
            AgentEvent::MessageUpdate { message, .. } => {
                if let Some(assistant) = message.as_assistant() {
                    self.conversation.assistant_streamed(assistant, true);
                }
            }
            AgentEvent::MessageEnd { message } => {
                if let Some(user) = message.as_user() {
                    self.conversation.push(Entry::User(user.text_content()));
                } else if let Some(assistant) = message.as_assistant() {
                    self.conversation.assistant_ended(assistant);
                    self.status.assistant_ended(assistant);
                }
            }
            AgentEvent::ToolExecutionStart {
                tool_call_id,
                tool_name,
                args,
            } => {
                self.conversation.tool_started(
                    ToolOrigin::Agent,
                    tool_call_id,
                    tool_name,
                    args,
                    now,
                );
            }
            AgentEvent::ToolExecutionUpdate {
                tool_call_id,
                partial_result,
                ..
            } => {
                let output = content_text(partial_result.get("content"));
                self.conversation.tool_progress(&tool_call_id, output);
            }
            AgentEvent::ToolExecutionEnd {
                tool_call_id,
                result,
                is_error,
                duration_ms,
                ..
            } => {
                let end = ToolEnd {
                    is_error,
                    duration_ms,
                    output: blocks_text(&result.content),
                    details: result.details,
                };
                self.conversation.tool_ended(&tool_call_id, end, now);
            }
            AgentEvent::AgentEnd { .. } => self.conversation.run_ended(now),
            _ => {}
        }
    }

    fn on_notice(&mut self, notice: SessionNotice, now: Instant) {
        match notice {
            SessionNotice::QueueUpdate {
                steering,
                follow_up,
            } => self.status.set_queues(steering, follow_up),
            SessionNotice::AutoRetryStart {
                attempt,
                max_attempts,
                delay_ms,
                ..
            } => self.status.retry_started(RetryWait {
                attempt,
                max_attempts,
                until: now + Duration::from_millis(delay_ms),
            }),
            SessionNotice::AutoRetryEnd {
                success,
                attempt,
                final_error,
            } => {
                self.status.retry_ended();
                if !success {
                    let error = final_error.as_deref().unwrap_or("Unknown error");
                    self.conversation
                        .error(format!("Retry failed after {attempt} attempts: {error}"));
                }
            }
            SessionNotice::CompactionStart(start) => {
                self.status
                    .compaction_started(compaction_label(start.reason));
            }
            SessionNotice::CompactionEnd(end) => {
                if let Some(error) = &end.error_message {
                    self.status.compaction_ended(false);
                    self.conversation
                        .error(format!("Compaction failed: {error}"));
                } else if let Some(result) = end.result {
                    self.status.compaction_ended(true);
                    self.conversation.push(Entry::Summary(SummaryEntry {
                        kind: SummaryKind::Compaction {
                            tokens_before: result.tokens_before,
                        },
                        summary: result.summary,
                    }));
                } else {
                    self.status.compaction_ended(false);
                }
            }
            // Pi's interactive mode shows summary retries in its status line; rho's status
            // already says a compaction is running.
            SessionNotice::SummarizationRetryScheduled { .. }
            | SessionNotice::SummarizationRetryAttemptStart(_)
            | SessionNotice::SummarizationRetryFinished => {}
            SessionNotice::AgentSettled(_) => {
                self.run.stop();
                self.status.retry_ended();
            }
            // Bookkeeping of the file (a retried attempt's context edit): nothing to show.
            SessionNotice::EntryAppended { .. } => {}
            SessionNotice::HookExecutionStart(_) => {}
            SessionNotice::HookExecutionEnd(result) => match &result.run.tool_call_id {
                Some(id) => self.conversation.tool_hook(id, result.summary()),
                None if result.is_worth_showing() => self.conversation.notice(result.summary()),
                None => {}
            },
        }
    }
}

/// The text blocks of a `content` array given as JSON (a tool's partial result).
fn content_text(content: Option<&Value>) -> String {
    let Some(blocks) = content.and_then(Value::as_array) else {
        return String::new();
    };
    let texts: Vec<&str> = blocks
        .iter()
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    texts.join("\n")
}

/// Pi's words for a compaction in progress.
fn compaction_label(reason: CompactionReason) -> &'static str {
    match reason {
        CompactionReason::Manual => "Compacting context...",
        CompactionReason::Threshold => "Auto-compacting...",
        CompactionReason::Overflow => "Context overflow detected, Auto-compacting...",
    }
}
