//! The texts of the messages queued while a run goes on, as `queue_update` reports them. The
//! agent holds the messages themselves; this mirror holds what clients are shown, and shrinks as
//! the agent delivers each one.

use std::sync::Mutex;

use rho_stdx::sync::lock;

use super::events::SessionNotice;

/// The pending steering and follow-up texts.
#[derive(Default)]
pub(crate) struct QueueMirror {
    state: Mutex<Texts>,
}

#[derive(Default)]
struct Texts {
    steering: Vec<String>,
    follow_up: Vec<String>,
    /// The next user message is the prompt itself, not a queued message being delivered.
    expect_prompt: bool,
}

/// Which queue a message waits in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Queue {
    /// Delivered after the current turn's tools.
    Steering,
    /// Delivered when the run would stop.
    FollowUp,
}

impl QueueMirror {
    /// Adds `text` to `queue`; returns the `queue_update` to emit.
    pub(crate) fn push(&self, queue: Queue, text: &str) -> SessionNotice {
        let mut state = lock(&self.state);
        match queue {
            Queue::Steering => state.steering.push(text.to_owned()),
            Queue::FollowUp => state.follow_up.push(text.to_owned()),
        }
        update(&state)
    }

    /// Empties both queues; returns what they held (steering, follow-up).
    pub(crate) fn clear(&self) -> (Vec<String>, Vec<String>) {
        let mut state = lock(&self.state);
        (
            std::mem::take(&mut state.steering),
            std::mem::take(&mut state.follow_up),
        )
    }

    /// The current `queue_update`.
    pub(crate) fn update(&self) -> SessionNotice {
        update(&lock(&self.state))
    }

    /// How many messages wait.
    pub(crate) fn len(&self) -> usize {
        let state = lock(&self.state);
        state.steering.len() + state.follow_up.len()
    }

    /// Marks the next user message as the prompt (or, with `false`, forgets that).
    pub(crate) fn expect_prompt(&self, expect: bool) {
        lock(&self.state).expect_prompt = expect;
    }

    /// A user message starts: the prompt, or a queued message being delivered, which leaves its
    /// queue. Returns the `queue_update` to emit when a queue shrank.
    pub(crate) fn user_message_started(&self, text: &str) -> Option<SessionNotice> {
        let mut state = lock(&self.state);
        if std::mem::take(&mut state.expect_prompt) {
            return None;
        }
        let removed =
            remove_first(&mut state.steering, text) || remove_first(&mut state.follow_up, text);
        removed.then(|| update(&state))
    }
}

fn update(state: &Texts) -> SessionNotice {
    SessionNotice::QueueUpdate {
        steering: state.steering.clone(),
        follow_up: state.follow_up.clone(),
    }
}

fn remove_first(queue: &mut Vec<String>, text: &str) -> bool {
    match queue.iter().position(|queued| queued == text) {
        Some(index) => {
            queue.remove(index);
            true
        }
        None => false,
    }
}
