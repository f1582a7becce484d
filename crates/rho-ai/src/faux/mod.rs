//! The scripted `faux` provider (pi-reference §9.3): queued assistant messages or closures,
//! streamed in chunks like a real provider, so the whole agent loop runs with no network.

mod script;
mod streaming;

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use crate::content::{ContentBlock, ThinkingContent, ToolCall};
use crate::message::{AssistantMessage, StopReason};
use crate::model::{Context, Model, ModelCost};
use crate::provider::{Provider, StreamOptions};
use crate::stream::{AssistantMessageEventStream, channel};

pub use script::{FauxScript, ScriptError};

/// The api name faux messages carry.
pub const FAUX_API: &str = "faux";
/// The provider name faux messages carry.
pub const FAUX_PROVIDER: &str = "faux";
/// Error text when a call finds no scripted response left.
pub const NO_MORE_RESPONSES: &str = "No more faux responses queued";

/// Builds a response from the context of the call (and the 0-based call index).
pub type FauxFactory =
    Box<dyn Fn(&Context, &StreamOptions, usize) -> Result<AssistantMessage, String> + Send + Sync>;

/// One scripted response.
pub enum FauxStep {
    /// A fixed message.
    Message(Box<AssistantMessage>),
    /// A message computed from the request.
    Factory(FauxFactory),
}

impl From<AssistantMessage> for FauxStep {
    fn from(message: AssistantMessage) -> Self {
        FauxStep::Message(Box::new(message))
    }
}

struct State {
    steps: VecDeque<FauxStep>,
    fallback: Option<AssistantMessage>,
    requests: Vec<Context>,
    calls: usize,
}

/// The faux provider. Cheap to clone; clones share their queue.
#[derive(Clone)]
pub struct FauxProvider {
    state: Arc<Mutex<State>>,
    chunk_chars: usize,
    simulate_usage: bool,
    record_requests: bool,
}

impl Default for FauxProvider {
    fn default() -> Self {
        Self::new()
    }
}

impl FauxProvider {
    /// An empty provider: 16-character chunks, simulated usage, requests recorded.
    pub fn new() -> Self {
        FauxProvider {
            state: Arc::new(Mutex::new(State {
                steps: VecDeque::new(),
                fallback: None,
                requests: Vec::new(),
                calls: 0,
            })),
            chunk_chars: 16,
            simulate_usage: true,
            record_requests: true,
        }
    }

    /// A provider that answers with the turns of `script`.
    pub fn from_script(script: &FauxScript) -> Self {
        let provider = Self::new();
        for turn in &script.turns {
            provider.push(turn.clone());
        }
        if let Some(fallback) = &script.fallback {
            provider.set_fallback(fallback.clone());
        }
        provider
    }

    /// Sets the size of streamed deltas, in characters (at least 1).
    pub fn with_chunk_chars(mut self, chars: usize) -> Self {
        self.chunk_chars = chars.max(1);
        self
    }

    /// Turns usage simulation (a character count of the whole context) on or off.
    pub fn with_usage(mut self, simulate: bool) -> Self {
        self.simulate_usage = simulate;
        self
    }

    /// Turns recording of request contexts on or off.
    pub fn with_recording(mut self, record: bool) -> Self {
        self.record_requests = record;
        self
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        rho_stdx::sync::lock(&self.state)
    }

    /// Queues a response.
    pub fn push(&self, step: impl Into<FauxStep>) {
        self.lock().steps.push_back(step.into());
    }

    /// The response given once the queue is empty (instead of an error).
    pub fn set_fallback(&self, message: AssistantMessage) {
        self.lock().fallback = Some(message);
    }

    /// Responses not consumed yet.
    pub fn pending(&self) -> usize {
        self.lock().steps.len()
    }

    /// Model calls made so far.
    pub fn call_count(&self) -> usize {
        self.lock().calls
    }

    /// The context of every call made so far, in order.
    pub fn requests(&self) -> Vec<Context> {
        self.lock().requests.clone()
    }

    /// The default faux model, `faux-1`.
    pub fn model(&self) -> Model {
        Model {
            id: "faux-1".into(),
            name: "Faux Model".into(),
            api: FAUX_API.into(),
            provider: FAUX_PROVIDER.into(),
            base_url: "http://localhost:0".into(),
            reasoning: false,
            input: vec!["text".into(), "image".into()],
            cost: ModelCost::default(),
            context_window: 128_000,
            max_tokens: 16_384,
            headers: None,
            compat: None,
        }
    }

    fn next_response(
        &self,
        context: &Context,
        options: &StreamOptions,
    ) -> Result<AssistantMessage, String> {
        let mut state = self.lock();
        let index = state.calls;
        state.calls += 1;
        if self.record_requests {
            state.requests.push(context.clone());
        }
        match state.steps.pop_front() {
            Some(FauxStep::Message(message)) => Ok(*message),
            Some(FauxStep::Factory(factory)) => {
                drop(state);
                factory(context, options, index)
            }
            None => state
                .fallback
                .clone()
                .ok_or_else(|| NO_MORE_RESPONSES.to_owned()),
        }
    }
}

impl Provider for FauxProvider {
    fn stream(
        &self,
        model: &Model,
        context: Context,
        options: StreamOptions,
    ) -> AssistantMessageEventStream {
        let template = AssistantMessage::empty(&model.api, &model.provider, &model.id);
        let (sender, stream) = channel(template.clone());
        let response = self.next_response(&context, &options);
        let input_tokens = if self.simulate_usage {
            streaming::estimate_context_tokens(&context)
        } else {
            0
        };
        let job = streaming::FauxStream {
            sender,
            template,
            chunk_chars: self.chunk_chars,
            input_tokens,
            simulate_usage: self.simulate_usage,
            cancel: options.cancel,
        };
        tokio::spawn(job.run(response));
        stream
    }
}

/// A text block.
pub fn faux_text(text: impl Into<String>) -> ContentBlock {
    ContentBlock::text(text)
}

/// A thinking block.
pub fn faux_thinking(text: impl Into<String>) -> ContentBlock {
    ContentBlock::Thinking(ThinkingContent {
        thinking: text.into(),
        thinking_signature: None,
        redacted: None,
    })
}

/// A tool-call block.
pub fn faux_tool_call(
    id: impl Into<String>,
    name: impl Into<String>,
    arguments: Value,
) -> ContentBlock {
    ContentBlock::ToolCall(ToolCall {
        id: id.into(),
        name: name.into(),
        arguments,
        thought_signature: None,
    })
}

/// An assistant message with `content`; the stop reason is `toolUse` when it holds tool calls.
pub fn faux_message(content: Vec<ContentBlock>) -> AssistantMessage {
    let has_calls = content
        .iter()
        .any(|b| matches!(b, ContentBlock::ToolCall(_)));
    let mut message = AssistantMessage::empty(FAUX_API, FAUX_PROVIDER, "faux-1");
    message.content = content;
    message.stop_reason = if has_calls {
        StopReason::ToolUse
    } else {
        StopReason::Stop
    };
    message
}

/// An assistant message that streams `content` and then fails with `error_message`.
pub fn faux_error(
    content: Vec<ContentBlock>,
    error_message: impl Into<String>,
) -> AssistantMessage {
    let mut message = faux_message(content);
    message.stop_reason = StopReason::Error;
    message.error_message = Some(error_message.into());
    message.error_info = Some(crate::error::ErrorInfo::new(
        crate::error::ErrorKind::Provider,
    ));
    message
}
