//! A session's events as ACP `session/update` notifications: streamed text and thinking as
//! message and thought chunks; each tool call as a `tool_call` (a title, its `kind`, the files
//! it touches as `locations`, the arguments as `rawInput`), its progress and its end as
//! `tool_call_update` (text, and for `edit` and `write` the change as `diff` blocks); each
//! reply's usage as `usage_update` (the context it filled, the window, the cost).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, Cost, Diff, SessionId, SessionNotification, SessionUpdate,
    ToolCall, ToolCallContent, ToolCallLocation, ToolCallStatus, ToolCallUpdate,
    ToolCallUpdateFields, ToolKind, UsageUpdate,
};
use rho_agent::AgentEvent;
use rho_ai::AssistantMessageEvent;
use rho_host::SessionEvent;
use rho_stdx::sync::lock;
use serde_json::Value;

use super::permission::AcpApprover;

/// Sends one session's updates.
pub struct Forwarder {
    cx: ConnectionTo<Client>,
    approver: Arc<AcpApprover>,
    bound: OnceLock<Bound>,
    /// The arguments of the calls that have started (an `edit`'s become its diff).
    calls: Mutex<HashMap<String, Value>>,
}

struct Bound {
    session: SessionId,
    cwd: PathBuf,
    window: u64,
}

impl Forwarder {
    pub fn new(cx: ConnectionTo<Client>, approver: Arc<AcpApprover>) -> Forwarder {
        Forwarder {
            cx,
            approver,
            bound: OnceLock::new(),
            calls: Mutex::default(),
        }
    }

    /// The session, its directory (relative paths in arguments are in it) and its model's
    /// context window.
    pub fn bind(&self, session: SessionId, cwd: PathBuf, window: u64) {
        let _ = self.bound.set(Bound {
            session,
            cwd,
            window,
        });
    }

    fn send(&self, bound: &Bound, update: SessionUpdate) {
        // The connection keeps the order; it fails only once the client is gone.
        let _ = self
            .cx
            .send_notification(SessionNotification::new(bound.session.clone(), update));
    }

    /// Sends what `event` says to the client, if anything.
    pub fn forward(&self, event: &SessionEvent) {
        let Some(bound) = self.bound.get() else {
            return;
        };
        let SessionEvent::Agent(event) = event else {
            return;
        };
        match event {
            AgentEvent::MessageUpdate {
                assistant_message_event,
                ..
            } => match assistant_message_event {
                AssistantMessageEvent::TextDelta { delta, .. } => self.send(
                    bound,
                    SessionUpdate::AgentMessageChunk(ContentChunk::new(delta.clone().into())),
                ),
                AssistantMessageEvent::ThinkingDelta { delta, .. } => self.send(
                    bound,
                    SessionUpdate::AgentThoughtChunk(ContentChunk::new(delta.clone().into())),
                ),
                _ => {}
            },
            AgentEvent::MessageEnd { message } => {
                if let Some(reply) = message.as_assistant()
                    && reply.usage.total_tokens > 0
                {
                    let usage = &reply.usage;
                    let used = usage.input + usage.cache_read + usage.cache_write + usage.output;
                    let update = UsageUpdate::new(used, bound.window)
                        .cost(Cost::new(usage.cost.total, "USD"));
                    self.send(bound, SessionUpdate::UsageUpdate(update));
                }
            }
            AgentEvent::ToolExecutionStart {
                tool_call_id,
                tool_name,
                args,
            } => {
                self.approver.checking(tool_call_id);
                lock(&self.calls).insert(tool_call_id.clone(), args.clone());
                let call = tool_call(tool_call_id, tool_name, args, &bound.cwd);
                self.send(bound, SessionUpdate::ToolCall(call));
            }
            AgentEvent::ToolExecutionUpdate {
                tool_call_id,
                partial_result,
                ..
            } => {
                let text = texts(partial_result.get("content"));
                let fields = ToolCallUpdateFields::new().content(vec![text.into()]);
                self.send(
                    bound,
                    SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(
                        tool_call_id.clone(),
                        fields,
                    )),
                );
            }
            AgentEvent::ToolExecutionEnd {
                tool_call_id,
                tool_name,
                result,
                is_error,
                ..
            } => {
                let args = lock(&self.calls).remove(tool_call_id);
                let end = ToolEnd {
                    id: tool_call_id,
                    tool: tool_name,
                    args: args.as_ref(),
                    content: &result.content,
                    is_error: *is_error,
                    raw_output: serde_json::to_value(result).ok(),
                };
                self.send(bound, SessionUpdate::ToolCallUpdate(end.update(&bound.cwd)));
            }
            _ => {}
        }
    }
}

/// A call that started: in progress, with its title, kind, files and arguments.
pub fn tool_call(id: &str, tool: &str, args: &Value, cwd: &Path) -> ToolCall {
    ToolCall::new(id.to_owned(), title(tool, args))
        .kind(kind(tool))
        .status(ToolCallStatus::InProgress)
        .locations(locations(tool, args, cwd))
        .raw_input(args.clone())
}

/// How a call ended.
pub struct ToolEnd<'a> {
    pub id: &'a str,
    pub tool: &'a str,
    /// Its arguments, when known (an `edit`'s become its diff).
    pub args: Option<&'a Value>,
    /// The result's content.
    pub content: &'a [rho_ai::ContentBlock],
    pub is_error: bool,
    pub raw_output: Option<Value>,
}

impl ToolEnd<'_> {
    /// `completed` or `failed`, with the change as diffs (when it succeeded) and the text.
    pub fn update(self, cwd: &Path) -> ToolCallUpdate {
        let mut content: Vec<ToolCallContent> = Vec::new();
        if !self.is_error
            && let Some(args) = self.args
        {
            content.extend(diffs(self.tool, args, cwd));
        }
        let text = self
            .content
            .iter()
            .filter_map(|block| block.as_text())
            .collect::<Vec<_>>()
            .join("\n");
        if !text.is_empty() {
            content.push(ContentBlock::from(text).into());
        }
        let status = if self.is_error {
            ToolCallStatus::Failed
        } else {
            ToolCallStatus::Completed
        };
        let fields = ToolCallUpdateFields::new()
            .status(status)
            .content(content)
            .raw_output(self.raw_output);
        ToolCallUpdate::new(self.id.to_owned(), fields)
    }
}

fn arg<'a>(args: &'a Value, key: &str) -> Option<&'a str> {
    args.get(key).and_then(Value::as_str)
}

/// What a person reads in the client's list of tool calls.
pub fn title(tool: &str, args: &Value) -> String {
    let shown = |prefix: &str, key: &str| match arg(args, key) {
        Some(value) => format!("{prefix} {value}"),
        None => prefix.to_owned(),
    };
    match tool {
        "read" => shown("Read", "path"),
        "write" => shown("Write", "path"),
        "edit" => shown("Edit", "path"),
        "ls" => format!("List {}", arg(args, "path").unwrap_or(".")),
        "grep" => shown("Search for", "pattern"),
        "find" => shown("Find", "pattern"),
        "bash" => {
            let command = arg(args, "command").unwrap_or_default();
            let line = command.lines().next().unwrap_or_default();
            let cut: String = line.chars().take(80).collect();
            let more = if cut.len() < command.len() {
                " …"
            } else {
                ""
            };
            format!("`{cut}`{more}")
        }
        "tool_search" => shown("Search tools for", "query"),
        other => other.to_owned(),
    }
}

/// ACP's kind of a rho tool.
pub fn kind(tool: &str) -> ToolKind {
    match tool {
        "read" => ToolKind::Read,
        "write" | "edit" => ToolKind::Edit,
        "bash" => ToolKind::Execute,
        "grep" | "find" | "ls" | "tool_search" => ToolKind::Search,
        _ => ToolKind::Other,
    }
}

fn absolute(cwd: &Path, path: &str) -> PathBuf {
    let path = Path::new(path);
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    }
}

/// The files a call touches (a `read` from its first line).
fn locations(tool: &str, args: &Value, cwd: &Path) -> Vec<ToolCallLocation> {
    let path = match tool {
        "read" | "write" | "edit" => arg(args, "path"),
        "ls" | "grep" | "find" => Some(arg(args, "path").unwrap_or(".")),
        _ => None,
    };
    let Some(path) = path else {
        return Vec::new();
    };
    let mut location = ToolCallLocation::new(absolute(cwd, path));
    if tool == "read"
        && let Some(line) = args.get("offset").and_then(Value::as_u64)
    {
        location = location.line(u32::try_from(line).ok());
    }
    vec![location]
}

/// The change an `edit` or `write` made: each replaced text and its replacement, or the
/// written file's content.
fn diffs(tool: &str, args: &Value, cwd: &Path) -> Vec<ToolCallContent> {
    let Some(path) = arg(args, "path").map(|p| absolute(cwd, p)) else {
        return Vec::new();
    };
    match tool {
        "write" => arg(args, "content")
            .map(|content| vec![Diff::new(path, content).into()])
            .unwrap_or_default(),
        "edit" => args
            .get("edits")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|edit| {
                let old = edit.get("oldText").and_then(Value::as_str)?;
                let new = edit.get("newText").and_then(Value::as_str)?;
                Some(Diff::new(path.clone(), new).old_text(old.to_owned()).into())
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn texts(content: Option<&Value>) -> String {
    content
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|block| block.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join("\n")
}
