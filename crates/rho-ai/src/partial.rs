//! The message a provider is building, shared copy-on-write with the snapshots it hands out.
//!
//! Every non-terminal event carries a snapshot of the message so far (pi-reference §2.2). Copying
//! the whole message per delta made the parse path quadratic in the response length; instead a
//! snapshot is an `Arc` of the message, and the folder's next change copies it only if a consumer
//! still holds the previous snapshot. A consumer that drops each event before the next one
//! arrives (the parse path, a JSON printer) therefore pays for its deltas, not for the transcript.

use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use crate::message::AssistantMessage;

/// An assistant message under construction; derefs to the message, mutably with copy-on-write.
#[derive(Clone, Debug, PartialEq)]
pub struct PartialMessage(Arc<AssistantMessage>);

impl PartialMessage {
    /// Starts from `message` (usually [`AssistantMessage::empty`]).
    pub fn new(message: AssistantMessage) -> Self {
        Self(Arc::new(message))
    }

    /// A snapshot for an event: a reference-count bump, never a copy.
    pub fn snapshot(&self) -> Arc<AssistantMessage> {
        Arc::clone(&self.0)
    }

    /// The finished message, copied only if a snapshot is still alive.
    pub fn to_message(&self) -> AssistantMessage {
        AssistantMessage::clone(&self.0)
    }
}

impl Deref for PartialMessage {
    type Target = AssistantMessage;

    fn deref(&self) -> &AssistantMessage {
        &self.0
    }
}

impl DerefMut for PartialMessage {
    fn deref_mut(&mut self) -> &mut AssistantMessage {
        Arc::make_mut(&mut self.0)
    }
}
