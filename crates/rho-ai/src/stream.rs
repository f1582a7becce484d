//! The stream object a provider returns (pi-reference §2.1): events, then exactly one terminal event.

use std::sync::{Arc, Weak};

use tokio::sync::mpsc;

use crate::error::{ErrorInfo, ErrorKind};
use crate::event::AssistantMessageEvent;
use crate::message::{AssistantMessage, StopReason};

/// Message of the error a stream ends with when its producer went away without a terminal event.
pub const STREAM_ENDED_EARLY: &str = "Provider stream ended without a terminal event";

/// Creates a connected sender/stream pair. `template` is the message the stream fails with if the
/// sender is dropped while no snapshot of the partial message is alive.
pub fn channel(template: AssistantMessage) -> (StreamSender, AssistantMessageEventStream) {
    let (tx, rx) = mpsc::unbounded_channel();
    let sender = StreamSender {
        tx,
        template,
        last: Weak::new(),
        finished: false,
    };
    let stream = AssistantMessageEventStream {
        rx,
        finished: false,
        result: None,
    };
    (sender, stream)
}

/// The producing side, held by a provider. Dropping it without a terminal event ends the stream
/// with an `error` event, so a consumer can never hang on a vanished producer.
#[derive(Debug)]
pub struct StreamSender {
    tx: mpsc::UnboundedSender<AssistantMessageEvent>,
    /// The failure message if no snapshot is alive any more.
    template: AssistantMessage,
    /// The last snapshot sent, held weakly: a strong reference would force the producer to copy
    /// the whole message on its next change.
    last: Weak<AssistantMessage>,
    finished: bool,
}

impl StreamSender {
    /// Pushes an event. Events after the terminal one are ignored.
    pub fn push(&mut self, event: AssistantMessageEvent) {
        if self.finished {
            return;
        }
        if let Some(partial) = event.partial() {
            self.last = Arc::downgrade(partial);
        }
        if event.terminal_message().is_some() {
            self.finished = true;
        }
        // A closed receiver means nobody listens any more; there is nothing to report to.
        let _ = self.tx.send(event);
    }

    /// Ends the stream with one `error` event: `message` (what streamed so far, or the empty
    /// message) marked failed with `text` and classified as `kind`.
    pub fn fail(&mut self, mut message: AssistantMessage, kind: ErrorKind, text: String) {
        message.stop_reason = StopReason::Error;
        message.error_message = Some(text);
        message.error_info = Some(ErrorInfo::new(kind));
        self.push(AssistantMessageEvent::Error {
            reason: StopReason::Error,
            error: message,
        });
    }

    /// Whether the consumer dropped the stream (the producer may stop early).
    pub fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }
}

impl Drop for StreamSender {
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        let mut error = match self.last.upgrade() {
            Some(last) => AssistantMessage::clone(&last),
            None => std::mem::replace(&mut self.template, AssistantMessage::empty("", "", "")),
        };
        error.stop_reason = StopReason::Error;
        error.error_message = Some(STREAM_ENDED_EARLY.to_owned());
        error.error_info = Some(crate::error::ErrorInfo::new(
            crate::error::ErrorKind::StreamCut,
        ));
        let _ = self.tx.send(AssistantMessageEvent::Error {
            reason: StopReason::Error,
            error,
        });
    }
}

/// The consuming side: an async queue of events plus the final message.
#[derive(Debug)]
pub struct AssistantMessageEventStream {
    rx: mpsc::UnboundedReceiver<AssistantMessageEvent>,
    finished: bool,
    result: Option<AssistantMessage>,
}

impl AssistantMessageEventStream {
    /// The next event; `None` after the terminal event.
    pub async fn next(&mut self) -> Option<AssistantMessageEvent> {
        if self.finished {
            return None;
        }
        let event = self.rx.recv().await?;
        if let Some(message) = event.terminal_message() {
            self.finished = true;
            self.result = Some(message.clone());
        }
        Some(event)
    }

    /// The final message: drains the stream up to its terminal event.
    pub async fn result(mut self) -> AssistantMessage {
        while self.next().await.is_some() {}
        match self.result {
            Some(message) => message,
            // Unreachable in practice: the sender's Drop always sends a terminal event.
            None => {
                let mut error = AssistantMessage::empty("", "", "");
                error.stop_reason = StopReason::Error;
                error.error_message = Some(STREAM_ENDED_EARLY.to_owned());
                error.error_info = Some(crate::error::ErrorInfo::new(
                    crate::error::ErrorKind::StreamCut,
                ));
                error
            }
        }
    }

    /// The final message, once the terminal event has been read with [`next`](Self::next).
    pub fn take_result(&mut self) -> Option<AssistantMessage> {
        self.result.take()
    }
}
