//! Builders for session events as the session emits them, shared by the test modules.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use rho_agent::{AgentEvent, AgentMessage, ToolResultPayload};
use rho_ai::faux::{faux_message, faux_text, faux_thinking};
use rho_ai::{AssistantMessage, AssistantMessageEvent, ContentBlock, UserMessage};
use rho_host::{SessionEvent, SessionNotice, Settled, SettledReason};
use rho_tui::{App, SessionInfo};
use serde_json::{Value, json};

pub fn info() -> SessionInfo {
    SessionInfo {
        provider: "anthropic".to_owned(),
        model_id: "claude-sonnet-4-5".to_owned(),
        reasoning: true,
        thinking: rho_ai::ThinkingLevel::Medium,
        context_window: 200_000,
        auto_compact: true,
        cwd: "~/src/rho".to_owned(),
    }
}

pub fn app() -> App {
    App::new(info())
}

pub fn agent(event: AgentEvent) -> SessionEvent {
    SessionEvent::Agent(event)
}

pub fn user(text: &str) -> Vec<SessionEvent> {
    let message: AgentMessage = UserMessage::text(text).into();
    vec![
        agent(AgentEvent::MessageStart {
            message: message.clone(),
        }),
        agent(AgentEvent::MessageEnd { message }),
    ]
}

/// An assistant message streamed in one text delta per piece, then ended as `last`.
pub fn streamed(pieces: &[&str], last: AssistantMessage) -> Vec<SessionEvent> {
    let empty: AgentMessage = faux_message(Vec::new()).into();
    let mut out = vec![agent(AgentEvent::MessageStart { message: empty })];
    let mut text = String::new();
    for piece in pieces {
        text.push_str(piece);
        let partial = std::sync::Arc::new(faux_message(vec![faux_text(text.clone())]));
        out.push(agent(AgentEvent::MessageUpdate {
            message: AgentMessage::from((*partial).clone()),
            assistant_message_event: AssistantMessageEvent::TextDelta {
                content_index: 0,
                delta: (*piece).to_owned(),
                partial,
            },
        }));
    }
    out.push(agent(AgentEvent::MessageEnd {
        message: last.into(),
    }));
    out
}

pub fn answer(blocks: Vec<ContentBlock>, input: u64, output: u64, cost: f64) -> AssistantMessage {
    let mut message = faux_message(blocks);
    message.usage.input = input;
    message.usage.output = output;
    message.usage.cost.total = cost;
    message
}

pub fn text(t: &str) -> ContentBlock {
    faux_text(t)
}

pub fn thinking(t: &str) -> ContentBlock {
    faux_thinking(t)
}

pub fn tool_start(id: &str, name: &str, args: Value) -> SessionEvent {
    agent(AgentEvent::ToolExecutionStart {
        tool_call_id: id.to_owned(),
        tool_name: name.to_owned(),
        args,
    })
}

pub fn tool_update(id: &str, name: &str, output: &str) -> SessionEvent {
    agent(AgentEvent::ToolExecutionUpdate {
        tool_call_id: id.to_owned(),
        tool_name: name.to_owned(),
        args: json!({}),
        partial_result: json!({"content": [{"type": "text", "text": output}], "details": {}}),
    })
}

pub fn tool_end(
    id: &str,
    name: &str,
    output: &str,
    is_error: bool,
    ms: Option<u64>,
) -> SessionEvent {
    let result: ToolResultPayload =
        serde_json::from_value(json!({"content": [{"type": "text", "text": output}]})).unwrap();
    agent(AgentEvent::ToolExecutionEnd {
        tool_call_id: id.to_owned(),
        tool_name: name.to_owned(),
        result,
        is_error,
        duration_ms: ms,
    })
}

pub fn settled(reason: SettledReason) -> SessionEvent {
    SessionEvent::Session(SessionNotice::AgentSettled(Settled {
        aborted: reason == SettledReason::Aborted,
        reason,
        turns: 1,
        usage: Default::default(),
        stop_reason: None,
    }))
}

/// Feeds `events` to the app, in order, through its one reducer; none asks for anything.
pub fn apply_all(app: &mut App, events: &[SessionEvent], now: Instant) {
    for event in events {
        assert_eq!(app.update(event.clone().into(), now), Vec::new());
    }
}
