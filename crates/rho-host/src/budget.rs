//! Budgets per prompt (contract §3): turns, cost and tokens counted over every model call made for
//! one prompt, retries included. They are enforced through the agent's [`TurnGate`], so a run
//! ends after the current turn's tools, and the session then settles with reason `budget`.

use rho_stdx::sync::lock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use rho_agent::{TurnGate, TurnSummary};
use rho_ai::Usage;

/// Limits for one prompt; `None` means unlimited.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Budget {
    /// Most turns (assistant responses with their tools).
    pub max_turns: Option<u64>,
    /// Most cost in USD (`usage.cost.total`).
    pub max_cost: Option<f64>,
    /// Most tokens (`usage.totalTokens`) over all model calls.
    pub max_tokens: Option<u64>,
}

impl Budget {
    /// Whether any limit is set.
    pub fn is_limited(&self) -> bool {
        self.max_turns.is_some() || self.max_cost.is_some() || self.max_tokens.is_some()
    }

    /// Whether `tally` has reached one of the limits.
    pub fn is_exhausted(&self, tally: &Tally) -> bool {
        self.max_turns.is_some_and(|max| tally.turns >= max)
            || self
                .max_cost
                .is_some_and(|max| tally.usage.cost.total >= max)
            || self
                .max_tokens
                .is_some_and(|max| tally.usage.total_tokens >= max)
    }
}

/// What the current prompt has done so far.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tally {
    /// Turns ended.
    pub turns: u64,
    /// Usage of every assistant message ended.
    pub usage: Usage,
}

/// The running tally of a prompt, shared by the session (which counts) and the gate (which reads).
#[derive(Debug, Default)]
pub(crate) struct Meter {
    budget: Budget,
    tally: Mutex<Tally>,
    /// The budget ended the run (or prevented a retry) during this prompt.
    tripped: AtomicBool,
}

impl Meter {
    pub(crate) fn new(budget: Budget) -> Self {
        Meter {
            budget,
            ..Meter::default()
        }
    }

    /// Starts a new prompt: nothing counted, nothing tripped.
    pub(crate) fn reset(&self) {
        *lock(&self.tally) = Tally::default();
        self.tripped.store(false, Ordering::SeqCst);
    }

    pub(crate) fn add_turn(&self) {
        lock(&self.tally).turns += 1;
    }

    pub(crate) fn add_usage(&self, usage: &Usage) {
        lock(&self.tally).usage.add(usage);
    }

    /// Takes the tally of the prompt that just ended.
    pub(crate) fn take(&self) -> Tally {
        std::mem::take(&mut *lock(&self.tally))
    }

    /// Whether a limit is reached; if so, remembers that the budget stopped the prompt.
    pub(crate) fn trip_if_exhausted(&self) -> bool {
        let exhausted = self.budget.is_exhausted(&lock(&self.tally));
        if exhausted {
            self.tripped.store(true, Ordering::SeqCst);
        }
        exhausted
    }

    /// Whether a limit is reached, without remembering it.
    pub(crate) fn is_exhausted(&self) -> bool {
        self.budget.is_exhausted(&lock(&self.tally))
    }

    pub(crate) fn tripped(&self) -> bool {
        self.tripped.load(Ordering::SeqCst)
    }
}

/// Whether the run would go on after a turn even without tool calls (queued messages).
pub(crate) type MoreWork = Arc<dyn Fn() -> bool + Send + Sync>;

/// The [`TurnGate`] that ends a run once the prompt's budget is reached, composed with the gate
/// the agent was configured with (either one stopping ends the run).
pub(crate) struct BudgetGate {
    pub(crate) meter: Arc<Meter>,
    pub(crate) inner: Option<Arc<dyn TurnGate>>,
    pub(crate) more_work: MoreWork,
}

impl TurnGate for BudgetGate {
    fn should_stop_after_turn(&self, turn: TurnSummary<'_>) -> bool {
        // The budget only stops a run that would go on: a model that already finished within
        // its last allowed turn completed, it was not stopped.
        let continues = turn.message.tool_calls().next().is_some() || (self.more_work)();
        let budget_stop = continues && self.meter.trip_if_exhausted();
        let inner_stop = self
            .inner
            .as_ref()
            .is_some_and(|gate| gate.should_stop_after_turn(turn));
        budget_stop || inner_stop
    }
}
