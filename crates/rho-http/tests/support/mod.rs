//! A trivial provider for driving `run_sse_stream`: events are `{"delta":"…"}` text pieces
//! folded into one text block, ended by `[DONE]`.

#![allow(dead_code)]

use std::time::Duration;

use rho_ai::{
    AssistantMessage, AssistantMessageEvent, ContentBlock, ErrorInfo, ErrorKind, StopReason,
    StreamSender, channel,
};
use rho_http::{Failure, Flow, HttpClient, HttpConfig, PostRequest, SseEvent, SseFolder};
use tokio_util::sync::CancellationToken;

/// The key the tests send; no error text may contain it.
pub const SECRET: &str = "sk-test-SECRET-key";

/// The message every run starts from (fixed timestamp, so whole messages compare).
pub fn template() -> AssistantMessage {
    let mut message = AssistantMessage::empty("test-api", "test", "test-model");
    message.timestamp = 1;
    message
}

/// `template()` with `text` as its one text block (none if `text` is empty).
pub fn with_text(text: &str) -> AssistantMessage {
    let mut message = template();
    if !text.is_empty() {
        message.content.push(ContentBlock::text(text));
    }
    message
}

/// `with_text(text)` failed with `reason`, `message` and `info`.
pub fn failed(text: &str, reason: StopReason, message: &str, info: ErrorInfo) -> AssistantMessage {
    let mut failed = with_text(text);
    failed.stop_reason = reason;
    failed.error_message = Some(message.to_owned());
    failed.error_info = Some(info);
    failed
}

/// The terminal `error` event carrying `error`.
pub fn error_event(error: AssistantMessage) -> AssistantMessageEvent {
    AssistantMessageEvent::Error {
        reason: error.stop_reason,
        error,
    }
}

/// A client that ignores proxy variables, so loopback requests go straight to the mock.
pub fn client() -> HttpClient {
    HttpClient::new(HttpConfig {
        proxy_from_env: false,
        ..HttpConfig::default()
    })
}

/// The request the tests send to `base_url`.
pub fn request(base_url: &str) -> PostRequest {
    PostRequest {
        url: format!("{base_url}/v1/stream?key={SECRET}"),
        headers: vec![("x-api-key".into(), SECRET.into())],
        body: br#"{"model":"test-model","stream":true}"#.to_vec(),
    }
}

/// Runs the driver to its end and returns every event it produced.
pub async fn run(
    base_url: &str,
    folder: TextFolder,
    cancel: CancellationToken,
    idle: Duration,
) -> Vec<AssistantMessageEvent> {
    let limits = rho_http::CallLimits {
        idle,
        max_retry_delay: None,
    };
    run_with(base_url, folder, cancel, limits).await
}

/// [`run`] with explicit limits.
pub async fn run_with(
    base_url: &str,
    folder: TextFolder,
    cancel: CancellationToken,
    limits: rho_http::CallLimits,
) -> Vec<AssistantMessageEvent> {
    let (sender, mut stream) = channel(template());
    rho_http::run_sse_stream(&client(), request(base_url), folder, sender, cancel, limits).await;
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        events.push(event);
    }
    events
}

/// Folds `{"delta":"…"}` events into one text block; `[DONE]` ends the stream.
#[derive(Debug)]
pub struct TextFolder {
    message: AssistantMessage,
    open: bool,
    done: bool,
    /// Cancelled inside `finish`: a cancel that lands after the body was read.
    pub cancel_in_finish: Option<CancellationToken>,
}

impl Default for TextFolder {
    fn default() -> Self {
        TextFolder {
            message: template(),
            open: false,
            done: false,
            cancel_in_finish: None,
        }
    }
}

impl TextFolder {
    fn text(&self) -> String {
        self.message.text()
    }
}

impl SseFolder for TextFolder {
    fn start(&mut self, out: &mut StreamSender) {
        out.push(AssistantMessageEvent::Start {
            partial: self.message.clone().into(),
        });
    }

    fn on_event(&mut self, event: &SseEvent, out: &mut StreamSender) -> Result<Flow, Failure> {
        if event.data == "[DONE]" {
            self.done = true;
            return Ok(Flow::Done);
        }
        let malformed = || {
            Failure::new(
                ErrorKind::MalformedStream,
                format!("Malformed event: {}", event.data),
            )
        };
        let json: serde_json::Value = serde_json::from_str(&event.data).map_err(|_| malformed())?;
        let delta = json["delta"].as_str().ok_or_else(malformed)?.to_owned();
        if !self.open {
            self.open = true;
            self.message.content.push(ContentBlock::text(""));
            out.push(AssistantMessageEvent::TextStart {
                content_index: 0,
                partial: self.message.clone().into(),
            });
        }
        let text = self.text() + &delta;
        self.message.content[0] = ContentBlock::text(text);
        out.push(AssistantMessageEvent::TextDelta {
            content_index: 0,
            delta,
            partial: self.message.clone().into(),
        });
        Ok(Flow::Continue)
    }

    fn finish(&mut self, out: &mut StreamSender) -> Result<AssistantMessage, Failure> {
        if let Some(cancel) = &self.cancel_in_finish {
            cancel.cancel();
        }
        if self.open {
            out.push(AssistantMessageEvent::TextEnd {
                content_index: 0,
                content: self.text(),
                partial: self.message.clone().into(),
            });
        }
        if !self.done {
            return Err(Failure::new(
                ErrorKind::StreamCut,
                "Stream ended before [DONE]",
            ));
        }
        let mut message = self.message.clone();
        message.stop_reason = StopReason::Stop;
        Ok(message)
    }

    fn partial(&self) -> AssistantMessage {
        self.message.clone()
    }
}

/// The events of a successful stream of `deltas` (start, text events, done).
pub fn success_events(deltas: &[&str]) -> Vec<AssistantMessageEvent> {
    let mut events = vec![AssistantMessageEvent::Start {
        partial: template().into(),
    }];
    let mut opened = template();
    opened.content.push(ContentBlock::text(""));
    events.push(AssistantMessageEvent::TextStart {
        content_index: 0,
        partial: opened.into(),
    });
    let mut text = String::new();
    for delta in deltas {
        text.push_str(delta);
        events.push(AssistantMessageEvent::TextDelta {
            content_index: 0,
            delta: (*delta).to_owned(),
            partial: with_text(&text).into(),
        });
    }
    events.push(AssistantMessageEvent::TextEnd {
        content_index: 0,
        content: text.clone(),
        partial: with_text(&text).into(),
    });
    let mut done = with_text(&text);
    done.stop_reason = StopReason::Stop;
    events.push(AssistantMessageEvent::Done {
        reason: StopReason::Stop,
        message: done,
    });
    events
}

/// `{"delta":"<text>"}`.
pub fn delta(text: &str) -> String {
    serde_json::json!({ "delta": text }).to_string()
}
