//! What a session says: its event type, the notices it adds to the agent's events, how a prompt
//! settled, and the listeners that hear it all in order.

use std::sync::{Arc, Mutex};

use rho_agent::AgentEvent;
use rho_ai::Usage;
use rho_stdx::sync::lock;
use serde::Serialize;

use rho_session::SessionEntry;

use crate::compaction::{CompactionEnd, CompactionStart, SummarySource};
use crate::hooks::notice::{HookResult, HookRun};

/// An event of the session: an agent event or one of the session's own.
// Events are handed to listeners by reference and never stored in bulk, so the size difference
// between the variants costs nothing worth a heap allocation per event.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SessionEvent {
    /// Forwarded from the agent, in emission order.
    Agent(AgentEvent),
    /// Said by the session itself.
    Session(SessionNotice),
}

/// The session's own events.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum SessionNotice {
    /// The pending queues changed (full contents, message texts).
    QueueUpdate {
        /// Pending steering texts.
        steering: Vec<String>,
        /// Pending follow-up texts.
        follow_up: Vec<String>,
    },
    /// A run ended in a retryable error; the session waits `delay_ms`, then continues.
    AutoRetryStart {
        /// 1-based attempt number.
        attempt: u32,
        /// Most attempts (`retry.maxRetries`).
        max_attempts: u32,
        /// The wait before this attempt.
        delay_ms: u64,
        /// The failure being retried.
        error_message: String,
    },
    /// A retry chain ended: a reply succeeded, retries ran out, or the wait was cancelled.
    AutoRetryEnd {
        /// Whether a retried call succeeded.
        success: bool,
        /// The last attempt number.
        attempt: u32,
        /// The final failure text (absent on success).
        #[serde(skip_serializing_if = "Option::is_none")]
        final_error: Option<String>,
    },
    /// A compaction started (`{reason}`).
    CompactionStart(CompactionStart),
    /// A compaction ended (`{reason, result?, aborted, willRetry, errorMessage?}`).
    CompactionEnd(CompactionEnd),
    /// Pi 1.6: a summary call failed with a retryable error and runs again after `delay_ms`.
    SummarizationRetryScheduled {
        /// 1-based retry number.
        attempt: u32,
        /// `retry.maxRetries`.
        max_attempts: u32,
        /// The wait before the retry.
        delay_ms: u64,
        /// The failure retried.
        error_message: String,
    },
    /// Pi 1.6: the retried summary call starts (`{source, reason?}`).
    SummarizationRetryAttemptStart(SummarySource),
    /// Pi 1.6: a summary call's retries ended (no fields).
    SummarizationRetryFinished,
    /// rho: the prompt is finished and nothing more will run on its own.
    AgentSettled(Settled),
    /// rho: a command hook started.
    HookExecutionStart(HookRun),
    /// rho: a command hook ended, with its verdict.
    HookExecutionEnd(HookResult),
    /// An entry the session wrote on its own (Pi 1.6: the `context_edit` of a retried attempt).
    EntryAppended {
        /// The entry as written.
        entry: SessionEntry,
    },
}

/// How a prompt ended, with what it cost.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Settled {
    /// Pi 1.6's field: the prompt was aborted (`reason` is `aborted`).
    pub aborted: bool,
    /// Why it ended.
    pub reason: SettledReason,
    /// Turns run for this prompt.
    pub turns: u64,
    /// Usage of every model call made for this prompt.
    pub usage: Usage,
    /// rho: why a hook stopped the prompt (`reason` is `hook`).
    #[serde(rename = "stopReason", skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
}

/// `completed`, `error`, `aborted`, `budget` or `hook`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SettledReason {
    /// The model finished.
    Completed,
    /// The last model call failed.
    Error,
    /// The run was cancelled.
    Aborted,
    /// A budget ran out: stopped, not succeeded.
    Budget,
    /// rho: a hook said `continue: false` or blocked the prompt: stopped, not succeeded.
    Hook,
}

type Listener = Arc<dyn Fn(&SessionEvent) + Send + Sync>;

/// The session's listeners, called in subscription order for every event.
#[derive(Default)]
pub(crate) struct Listeners {
    listeners: Mutex<Vec<Listener>>,
}

impl Listeners {
    /// Adds `listener` after the others.
    pub(crate) fn add(&self, listener: impl Fn(&SessionEvent) + Send + Sync + 'static) {
        lock(&self.listeners).push(Arc::new(listener));
    }

    /// Calls every listener with `event`. The list is copied first, so a listener may
    /// subscribe another without deadlocking.
    pub(crate) fn emit(&self, event: &SessionEvent) {
        let listeners: Vec<Listener> = lock(&self.listeners).clone();
        for listener in listeners {
            listener(event);
        }
    }

    /// Emits one of the session's own events.
    pub(crate) fn notice(&self, notice: SessionNotice) {
        self.emit(&SessionEvent::Session(notice));
    }
}
