//! Building one RPC session: the agent, its session file's writer, and the listener that
//! prints its events. The writer is subscribed before the printer, so an event is printed only
//! after the entry it announces is on disk.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use rho_agent::{AgentMessage, AgentOptions, QueueMode};
use rho_ai::{Model, Provider, ThinkingLevel};
use rho_host::compaction::CompactionPolicy;
use rho_host::persist::Persistence;
use rho_host::{AgentSession, RetryPolicy, SessionEvent, SessionNotice};
use rho_session::SessionFile;

use super::backing::{Backing, PendingFile};
use super::host::{Current, HostConfig, Output};
use super::models::RoutedProvider;
use super::user_bash::UserBashContext;

/// The agent state a session starts from.
pub struct Seed {
    /// The model.
    pub model: Model,
    /// The thinking level.
    pub thinking: ThinkingLevel,
    /// The steering mode.
    pub steering: QueueMode,
    /// The follow-up mode.
    pub follow_up: QueueMode,
    /// The transcript.
    pub messages: Vec<AgentMessage>,
    /// Whether automatic compaction is on (`set_auto_compaction` survives a rebuild).
    pub auto_compaction: bool,
}

/// The session file a new session writes to.
pub enum Target {
    /// None.
    Memory {
        /// A name carried over from the session this one replaces.
        name: Option<String>,
    },
    /// A file written when the first prompt is accepted.
    Pending(PendingFile),
    /// An open file.
    Open(SessionFile),
}

/// What every session shares: the provider router, stdout and the epoch counter.
pub struct Shared<'a> {
    /// The configuration.
    pub config: &'a HostConfig,
    /// The provider the agent calls.
    pub router: &'a Arc<RoutedProvider>,
    /// stdout.
    pub output: &'a Arc<Output>,
    /// The number of the live session.
    pub epoch: &'a Arc<AtomicU64>,
}

/// Builds a session from `seed` writing to `target`; it becomes the live one (its epoch is the
/// newest) once the caller installs it.
pub fn build(shared: &Shared<'_>, retry: RetryPolicy, seed: Seed, target: Target) -> Current {
    let id = match &target {
        Target::Memory { .. } => uuid::Uuid::now_v7().to_string(),
        Target::Pending(pending) => pending.header.id.clone(),
        Target::Open(file) => file.session_id().to_owned(),
    };
    let config = shared.config;
    let provider: Arc<dyn Provider> = shared.router.clone();
    let mut options = AgentOptions::new(provider, seed.model);
    options.tools = config.tools.clone();
    options.tool_hooks = Some(config.gate.clone());
    options.system_prompt = Some(config.system_prompt.clone());
    options.context_hooks = Some(Arc::new(UserBashContext));
    options.session_id = Some(id.clone());
    options.steering_mode = seed.steering;
    options.follow_up_mode = seed.follow_up;
    let session = AgentSession::builder(options)
        .budget(config.budget)
        .retry(retry)
        .prompt_resources(config.resources.clone())
        .compaction(CompactionPolicy {
            enabled: seed.auto_compaction,
            ..config.compaction
        })
        .build();
    session.agent().update_state(|s| {
        s.thinking_level = seed.thinking;
        s.messages = seed.messages;
    });
    let mine = shared.epoch.fetch_add(1, Ordering::SeqCst) + 1;
    let queued = Arc::new(AtomicUsize::new(0));
    let listener_queued = queued.clone();
    session.subscribe(move |event| {
        if let SessionEvent::Session(SessionNotice::QueueUpdate {
            steering,
            follow_up,
        }) = event
        {
            listener_queued.store(steering.len() + follow_up.len(), Ordering::SeqCst);
        }
    });
    let backing = match target {
        Target::Memory { name } => Backing::Memory { name },
        Target::Pending(pending) => Backing::Pending(Box::new(pending)),
        Target::Open(file) => Backing::Open(Persistence::attach(&session, file)),
    };
    let gate = Arc::new(AtomicBool::new(true));
    subscribe_output(&session, shared, mine, Some(gate.clone()));
    Current {
        session,
        id,
        busy: Arc::new(AtomicBool::new(false)),
        queued,
        epoch: mine,
        backing: Arc::new(Mutex::new(backing)),
        output_gate: gate,
    }
}

/// Prints `session`'s events while it is the live session (a replaced session's late events,
/// the end of an aborted run, are not the client's) and while `gate` is open.
pub fn subscribe_output(
    session: &AgentSession,
    shared: &Shared<'_>,
    mine: u64,
    gate: Option<Arc<AtomicBool>>,
) {
    let output = shared.output.clone();
    let epoch = shared.epoch.clone();
    session.subscribe(move |event| {
        let open = gate.as_ref().is_none_or(|g| g.load(Ordering::SeqCst));
        if open && epoch.load(Ordering::SeqCst) == mine {
            output.write(event);
        }
    });
}
