//! The session's one prompt slot: a prompt, or a manual compaction, holds it from start to
//! settle. Released by a guard, so a prompt that panics or whose future is dropped frees the
//! session for the next one instead of leaving it busy for ever.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use rho_stdx::sync::lock;
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

/// Who holds the session, and how to cancel what they run.
#[derive(Default)]
pub(crate) struct PromptSlot {
    held: AtomicBool,
    freed: Notify,
    /// Cancelled by `abort()`: ends the current prompt, retry waits included.
    cancel: Mutex<CancellationToken>,
}

/// Holds the slot until dropped.
pub(crate) struct SlotGuard {
    slot: Arc<PromptSlot>,
}

impl Drop for SlotGuard {
    fn drop(&mut self) {
        self.slot.held.store(false, Ordering::SeqCst);
        self.slot.freed.notify_waiters();
    }
}

impl PromptSlot {
    /// Takes the slot now, or `None` when it is held.
    pub(crate) fn try_claim(self: &Arc<Self>) -> Option<SlotGuard> {
        (!self.held.swap(true, Ordering::SeqCst)).then(|| SlotGuard { slot: self.clone() })
    }

    /// Waits until the slot is free, then takes it.
    pub(crate) async fn claim(self: &Arc<Self>) -> SlotGuard {
        loop {
            let freed = self.freed.notified();
            if let Some(guard) = self.try_claim() {
                return guard;
            }
            freed.await;
        }
    }

    /// Waits until no prompt or compaction holds the session (returns at once when none does).
    pub(crate) async fn wait_free(&self) {
        loop {
            let freed = self.freed.notified();
            if !self.is_held() {
                return;
            }
            freed.await;
        }
    }

    /// Whether a prompt or compaction holds the session.
    pub(crate) fn is_held(&self) -> bool {
        self.held.load(Ordering::SeqCst)
    }

    /// A fresh cancellation for the prompt starting now.
    pub(crate) fn new_cancel(&self) -> CancellationToken {
        let token = CancellationToken::new();
        *lock(&self.cancel) = token.clone();
        token
    }

    /// Cancels the current prompt (its run, retry waits and compactions).
    pub(crate) fn cancel(&self) {
        lock(&self.cancel).cancel();
    }
}
