//! Pending steering and follow-up messages (pi-reference §4.6).

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use rho_ai::AgentMessage;

/// How many queued messages one poll delivers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum QueueMode {
    /// One message per poll (Pi's default).
    #[default]
    #[serde(rename = "one-at-a-time")]
    OneAtATime,
    /// Every queued message at once.
    #[serde(rename = "all")]
    All,
}

/// A FIFO of messages waiting for the loop.
#[derive(Debug, Default)]
pub struct PendingQueue {
    /// The delivery mode.
    pub mode: QueueMode,
    items: VecDeque<AgentMessage>,
}

impl PendingQueue {
    /// An empty queue in `mode`.
    pub fn new(mode: QueueMode) -> Self {
        PendingQueue {
            mode,
            items: VecDeque::new(),
        }
    }

    /// Appends a message.
    pub fn enqueue(&mut self, message: AgentMessage) {
        self.items.push_back(message);
    }

    /// Takes the first message (`one-at-a-time`) or all of them (`all`).
    pub fn drain(&mut self) -> Vec<AgentMessage> {
        match self.mode {
            QueueMode::All => self.items.drain(..).collect(),
            QueueMode::OneAtATime => self.items.pop_front().into_iter().collect(),
        }
    }

    /// Drops every queued message.
    pub fn clear(&mut self) {
        self.items.clear();
    }

    /// Whether nothing is queued.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Number of queued messages.
    pub fn len(&self) -> usize {
        self.items.len()
    }
}
