//! Shared test helpers: a configurable tool, an event recorder and a normalizer that turns an
//! event list into short strings, so tests compare whole sequences with one `assert_eq!`.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use futures::future::BoxFuture;
use rho_agent::{
    AgentEvent, AgentMessage, AgentTool, EventSink, ExecutionMode, LoopConfig, LoopContext,
    MessageSource, ToolError, ToolOutput, ToolUpdates,
};
use rho_ai::faux::FauxProvider;
use rho_ai::{AssistantMessageEvent, StopReason, UserMessage};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

pub type Behavior = Arc<
    dyn Fn(
            Value,
            ToolUpdates,
            CancellationToken,
        ) -> BoxFuture<'static, Result<ToolOutput, ToolError>>
        + Send
        + Sync,
>;

/// A tool whose behaviour is a closure; it records the arguments of every execution.
pub struct TestTool {
    pub name: String,
    pub schema: Value,
    pub mode: ExecutionMode,
    pub behavior: Behavior,
    pub executed: Arc<Mutex<Vec<Value>>>,
}

impl TestTool {
    pub fn new(name: &str, behavior: Behavior) -> Self {
        TestTool {
            name: name.into(),
            schema: json!({"type":"object","properties":{"value":{"type":"string"}},"required":["value"]}),
            mode: ExecutionMode::Parallel,
            behavior,
            executed: Arc::new(Mutex::new(Vec::new())),
        }
    }

    /// Answers `echo: <value>`.
    pub fn echo(name: &str) -> Self {
        Self::new(
            name,
            Arc::new(|args, _, _| {
                Box::pin(async move {
                    let value = args["value"].as_str().unwrap_or("").to_owned();
                    Ok(ToolOutput::text(format!("echo: {value}")))
                })
            }),
        )
    }

    pub fn with_schema(mut self, schema: Value) -> Self {
        self.schema = schema;
        self
    }

    pub fn sequential(mut self) -> Self {
        self.mode = ExecutionMode::Sequential;
        self
    }

    pub fn arc(self) -> Arc<dyn AgentTool> {
        Arc::new(self)
    }
}

#[async_trait]
impl AgentTool for TestTool {
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        "a test tool"
    }
    fn parameters(&self) -> &Value {
        &self.schema
    }
    fn execution_mode(&self) -> ExecutionMode {
        self.mode
    }
    async fn execute(
        &self,
        _id: &str,
        args: Value,
        cancel: CancellationToken,
        updates: ToolUpdates,
    ) -> Result<ToolOutput, ToolError> {
        self.executed.lock().unwrap().push(args.clone());
        (self.behavior)(args, updates, cancel).await
    }
}

/// Collects every event.
#[derive(Clone, Default)]
pub struct Recorder {
    pub events: Arc<Mutex<Vec<AgentEvent>>>,
}

impl EventSink for Recorder {
    fn emit(&self, event: AgentEvent) {
        self.events.lock().unwrap().push(event);
    }
}

impl Recorder {
    pub fn sink(&self) -> Arc<dyn EventSink> {
        Arc::new(self.clone())
    }
    pub fn events(&self) -> Vec<AgentEvent> {
        self.events.lock().unwrap().clone()
    }
    pub fn normalized(&self) -> Vec<String> {
        normalize(&self.events())
    }
}

fn describe(message: &AgentMessage) -> String {
    if let Some(a) = message.as_assistant() {
        let reason = serde_json::to_value(a.stop_reason).unwrap();
        return format!("assistant:{}", reason.as_str().unwrap());
    }
    if let Some(r) = message.as_tool_result() {
        let error = if r.is_error { ":err" } else { "" };
        return format!("toolResult:{}{error}", r.tool_call_id);
    }
    if let Some(u) = message.as_user() {
        return format!("user:{}", u.text_content());
    }
    message.role().to_owned()
}

/// One short string per event, e.g. `tes:c1`, `me:assistant:toolUse`, `turn_end[c1,c2]`.
pub fn normalize(events: &[AgentEvent]) -> Vec<String> {
    events
        .iter()
        .map(|event| match event {
            AgentEvent::AgentStart => "agent_start".into(),
            AgentEvent::TurnStart => "turn_start".into(),
            AgentEvent::MessageStart { message } => format!("ms:{}", describe(message)),
            AgentEvent::MessageUpdate {
                assistant_message_event,
                ..
            } => {
                let kind = serde_json::to_value(assistant_message_event).unwrap();
                format!("mu:{}", kind["type"].as_str().unwrap())
            }
            AgentEvent::MessageEnd { message } => format!("me:{}", describe(message)),
            AgentEvent::ToolExecutionStart { tool_call_id, .. } => format!("tes:{tool_call_id}"),
            AgentEvent::ToolExecutionUpdate { tool_call_id, .. } => format!("teu:{tool_call_id}"),
            AgentEvent::ToolExecutionEnd {
                tool_call_id,
                is_error,
                ..
            } => format!("tee:{tool_call_id}{}", if *is_error { ":err" } else { "" }),
            AgentEvent::TurnEnd { tool_results, .. } => {
                let ids: Vec<_> = tool_results
                    .iter()
                    .map(|r| r.tool_call_id.clone())
                    .collect();
                format!("turn_end[{}]", ids.join(","))
            }
            AgentEvent::AgentEnd { messages, .. } => format!("agent_end({})", messages.len()),
        })
        .collect()
}

/// The normalized events without `message_update`s (for tests about order, not streaming).
pub fn without_updates(events: Vec<String>) -> Vec<String> {
    events
        .into_iter()
        .filter(|e| !e.starts_with("mu:"))
        .collect()
}

/// Strings from a list of literals.
pub fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

/// A faux provider that streams in 64-character chunks (one delta per short text).
pub fn faux() -> FauxProvider {
    FauxProvider::new().with_chunk_chars(64)
}

pub fn config(provider: &FauxProvider) -> LoopConfig {
    LoopConfig::new(provider.model(), Arc::new(provider.clone()))
}

pub fn context(tools: Vec<Arc<dyn AgentTool>>) -> LoopContext {
    LoopContext {
        system_prompt: Some("You are a test.".into()),
        messages: Vec::new(),
        tools,
    }
}

pub fn user(text: &str) -> AgentMessage {
    UserMessage::text(text).into()
}

/// The text of the first content block of a tool result in a `tool_execution_end`.
pub fn tee_text(events: &[AgentEvent], id: &str) -> String {
    events
        .iter()
        .find_map(|e| match e {
            AgentEvent::ToolExecutionEnd {
                tool_call_id,
                result,
                ..
            } if tool_call_id == id => Some(result.content[0].as_text().unwrap_or("").to_owned()),
            _ => None,
        })
        .unwrap_or_default()
}

/// A steering/follow-up source the test fills while the run goes on.
#[derive(Default)]
pub struct TestQueues {
    pub steering: Mutex<Vec<AgentMessage>>,
    pub follow_up: Mutex<Vec<AgentMessage>>,
    pub all: bool,
}

impl MessageSource for TestQueues {
    fn steering_messages(&self) -> Vec<AgentMessage> {
        drain(&self.steering, self.all)
    }
    fn follow_up_messages(&self) -> Vec<AgentMessage> {
        drain(&self.follow_up, self.all)
    }
}

fn drain(queue: &Mutex<Vec<AgentMessage>>, all: bool) -> Vec<AgentMessage> {
    let mut queue = queue.lock().unwrap();
    if all || queue.is_empty() {
        std::mem::take(&mut *queue)
    } else {
        vec![queue.remove(0)]
    }
}

/// The last assistant stop reason in an event list.
pub fn last_stop_reason(events: &[AgentEvent]) -> Option<StopReason> {
    events.iter().rev().find_map(|e| match e {
        AgentEvent::MessageEnd { message } => message.as_assistant().map(|a| a.stop_reason),
        _ => None,
    })
}

/// Whether an event is a `toolcall_delta` update.
pub fn is_toolcall_delta(event: &AgentEvent) -> bool {
    matches!(
        event,
        AgentEvent::MessageUpdate {
            assistant_message_event: AssistantMessageEvent::ToolCallDelta { .. },
            ..
        }
    )
}
