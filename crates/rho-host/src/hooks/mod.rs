//! Command hooks in Claude Code's convention, mapped onto the seed's contract: `PreToolUse` is
//! `beforeToolCall`, `PostToolUse` is `afterToolCall`, and `UserPromptSubmit`, `Stop`,
//! `SessionStart`, `SessionEnd`, `PreCompact` and `Notification` run where their names say.
//!
//! [`Hooks`] belongs to one session: it runs the hooks of an event in parallel (each a process,
//! [`process`]), reads their replies ([`reply`]), combines them deterministically, announces
//! every run to the session's stream ([`notice`]) and remembers a `continue: false` until the
//! prompt settles. [`tool_hooks`] puts it in front of the gate as the loop's `ToolHooks`.

pub mod config;
pub mod event;
pub mod notice;
pub mod process;
pub mod reply;
pub mod tool_hooks;

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use async_trait::async_trait;
use rho_agent::{StopHook, TurnGate, TurnSummary};
use rho_ai::{AgentMessage, UserMessage};
use rho_stdx::sync::lock;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

pub use self::config::{HookCommand, HooksConfig, OnError};
pub use self::event::HookEvent;
use self::notice::{HookNotice, HookResult, HookRun};
use self::reply::Combined;

/// How many times the `Stop` hooks may send a prompt's run on (Claude Code has no limit; a
/// hook that always blocks would loop forever).
pub const MAX_STOP_BLOCKS: u32 = 3;

/// Why a session starts (`SessionStart`'s `source`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartSource {
    /// A new session at start-up.
    Startup,
    /// A session resumed or continued.
    Resume,
}

impl StartSource {
    fn name(self) -> &'static str {
        match self {
            StartSource::Startup => "startup",
            StartSource::Resume => "resume",
        }
    }
}

/// What a session's hooks know of it.
pub struct HookSetup {
    /// The hooks.
    pub config: Arc<HooksConfig>,
    /// The session's directory: the hooks' working directory and `cwd`.
    pub cwd: PathBuf,
    /// The hooks' environment (the tools' own, without keys).
    pub env: Vec<(OsString, OsString)>,
    /// rho's permission mode (`permission_mode`).
    pub permission_mode: String,
    /// The session id.
    pub session_id: String,
    /// The session file, when there is one.
    pub transcript_path: Option<PathBuf>,
    /// Why the session starts.
    pub source: StartSource,
}

type Emit = Box<dyn Fn(HookNotice) + Send + Sync>;

/// One session's hooks.
pub struct Hooks {
    setup: HookSetup,
    emit: OnceLock<Emit>,
    /// `continue: false` during the current prompt: why.
    stop: Mutex<Option<String>>,
    /// How many times the `Stop` hooks sent the current prompt's run on.
    stop_blocks: AtomicU32,
    /// Whether `SessionStart` ran.
    started: AtomicBool,
    /// Whether `SessionEnd` ran.
    ended: AtomicBool,
}

impl Hooks {
    /// The hooks of one session.
    pub fn new(setup: HookSetup) -> Hooks {
        Hooks {
            setup,
            emit: OnceLock::new(),
            stop: Mutex::new(None),
            stop_blocks: AtomicU32::new(0),
            started: AtomicBool::new(false),
            ended: AtomicBool::new(false),
        }
    }

    /// Announces hook runs through `emit` (set once, by the session).
    pub fn set_emitter(&self, emit: impl Fn(HookNotice) + Send + Sync + 'static) {
        let _ = self.emit.set(Box::new(emit));
    }

    /// Whether some hook runs on `event`.
    pub fn has(&self, event: HookEvent) -> bool {
        self.setup.config.has(event)
    }

    /// A prompt begins: no stop asked, no `Stop` block counted.
    pub fn begin_prompt(&self) {
        *lock(&self.stop) = None;
        self.stop_blocks.store(0, Ordering::SeqCst);
    }

    /// Before a prompt is sent: a new prompt's state, `SessionStart` (once), then
    /// `UserPromptSubmit`. The contexts to add after the prompt's text, or `None` when a hook
    /// refused the prompt or stopped the run (it then settles without running).
    pub async fn before_prompt(
        &self,
        prompt: &str,
        cancel: &CancellationToken,
    ) -> Option<Vec<String>> {
        self.begin_prompt();
        let mut contexts: Vec<String> = self.session_start(cancel).await.into_iter().collect();
        if self.has(HookEvent::UserPromptSubmit) {
            let submitted = self.user_prompt_submit(prompt, cancel).await;
            if submitted.blocks() {
                let reason = submitted
                    .reason
                    .unwrap_or_else(|| "blocked by a UserPromptSubmit hook".to_owned());
                lock(&self.stop).get_or_insert(reason);
            }
            contexts.extend(submitted.additional_context);
        }
        (self.stop_requested().is_none() && !cancel.is_cancelled()).then_some(contexts)
    }

    /// Why a hook said `continue: false` during this prompt.
    pub fn stop_requested(&self) -> Option<String> {
        lock(&self.stop).clone()
    }

    fn announce(&self, notice: HookNotice) {
        if let Some(emit) = self.emit.get() {
            emit(notice);
        }
    }

    /// The fields every event's input has.
    fn input(&self, event: HookEvent) -> Map<String, Value> {
        let mut input = Map::new();
        input.insert("session_id".into(), json!(self.setup.session_id));
        input.insert(
            "transcript_path".into(),
            json!(
                self.setup
                    .transcript_path
                    .as_ref()
                    .map(|p| p.display().to_string())
            ),
        );
        input.insert("cwd".into(), json!(self.setup.cwd.display().to_string()));
        input.insert("hook_event_name".into(), json!(event.name()));
        input.insert("permission_mode".into(), json!(self.setup.permission_mode));
        input
    }

    /// Runs the hooks of `event` matching `subject` in parallel, with the event's input on
    /// stdin (the common fields, then what `fields` adds: built only when a hook matches, so a
    /// call no hook judges costs no copy of its arguments); announces each run and combines the
    /// replies in configuration order.
    async fn run(
        &self,
        event: HookEvent,
        subject: &str,
        fields: impl FnOnce(&mut Map<String, Value>),
        call: Option<(&str, &str)>,
        cancel: &CancellationToken,
    ) -> Combined {
        let hooks = self.setup.config.matching(event, subject);
        if hooks.is_empty() {
            return Combined::default();
        }
        let mut input = self.input(event);
        fields(&mut input);
        let stdin = Value::Object(input).to_string().into_bytes();
        let runs: Vec<HookRun> = hooks
            .iter()
            .map(|hook| HookRun {
                hook_event: event,
                command: hook.command.clone(),
                tool_call_id: call.map(|(id, _)| id.to_owned()),
                tool_name: call.map(|(_, name)| name.to_owned()),
            })
            .collect();
        for run in &runs {
            self.announce(HookNotice::Start(run.clone()));
        }
        let ran = futures::future::join_all(hooks.iter().map(|hook| {
            process::run(
                &hook.command,
                &stdin,
                &self.setup.cwd,
                &self.setup.env,
                hook.timeout,
                cancel,
            )
        }))
        .await;
        let mut replies = Vec::with_capacity(hooks.len());
        for ((hook, ran), run) in hooks.iter().zip(&ran).zip(runs) {
            let reply = reply::read(event, ran, hook.on_error);
            self.announce(HookNotice::End(Box::new(HookResult {
                run,
                decision: reply.decision,
                reason: reply.reason.clone(),
                stop_reason: reply.stop.clone(),
                updated_input: reply.updated_input.clone(),
                additional_context: reply.additional_context.clone(),
                system_message: reply.system_message.clone(),
                exit_code: match ran.exit {
                    process::Exit::Code(code) => Some(code),
                    _ => None,
                },
                duration_ms: u64::try_from(ran.duration.as_millis()).unwrap_or(u64::MAX),
                error: reply.error.clone(),
            })));
            replies.push(reply);
        }
        let combined = Combined::of(&replies);
        if let Some(reason) = &combined.stop {
            lock(&self.stop).get_or_insert_with(|| reason.clone());
        }
        combined
    }

    /// `PreToolUse` for call `id` of `tool` with `args`.
    pub async fn pre_tool_use(
        &self,
        id: &str,
        tool: &str,
        args: &Value,
        cancel: &CancellationToken,
    ) -> Combined {
        self.run(
            HookEvent::PreToolUse,
            tool,
            |input| {
                input.insert("tool_name".into(), json!(tool));
                input.insert("tool_input".into(), args.clone());
                input.insert("tool_use_id".into(), json!(id));
            },
            Some((id, tool)),
            cancel,
        )
        .await
    }

    /// `PostToolUse` for call `id` of `tool` with `args`, which gave `response` (made only when
    /// a hook judges the call).
    pub async fn post_tool_use(
        &self,
        id: &str,
        tool: &str,
        args: &Value,
        response: impl FnOnce() -> Value,
        cancel: &CancellationToken,
    ) -> Combined {
        self.run(
            HookEvent::PostToolUse,
            tool,
            |input| {
                input.insert("tool_name".into(), json!(tool));
                input.insert("tool_input".into(), args.clone());
                input.insert("tool_response".into(), response());
                input.insert("tool_use_id".into(), json!(id));
            },
            Some((id, tool)),
            cancel,
        )
        .await
    }

    /// `UserPromptSubmit` for `prompt`.
    pub async fn user_prompt_submit(&self, prompt: &str, cancel: &CancellationToken) -> Combined {
        self.run(
            HookEvent::UserPromptSubmit,
            "",
            |input| {
                input.insert("prompt".into(), json!(prompt));
            },
            None,
            cancel,
        )
        .await
    }

    /// `SessionStart`, once per session: the context its hooks add.
    pub async fn session_start(&self, cancel: &CancellationToken) -> Option<String> {
        if self.started.swap(true, Ordering::SeqCst) {
            return None;
        }
        let source = self.setup.source.name();
        self.run(
            HookEvent::SessionStart,
            source,
            |input| {
                input.insert("source".into(), json!(source));
            },
            None,
            cancel,
        )
        .await
        .additional_context
    }

    /// `SessionEnd`, once per session, with Claude Code's `reason` (`exit`, `clear`, `other`).
    pub async fn session_end(&self, reason: &str) {
        if !self.has(HookEvent::SessionEnd) || self.ended.swap(true, Ordering::SeqCst) {
            return;
        }
        self.run(
            HookEvent::SessionEnd,
            reason,
            |input| {
                input.insert("reason".into(), json!(reason));
            },
            None,
            &CancellationToken::new(),
        )
        .await;
    }

    /// `PreCompact` (`trigger`: `manual` or `auto`): whether a hook blocked the compaction.
    pub async fn pre_compact(
        &self,
        trigger: &str,
        instructions: Option<&str>,
        cancel: &CancellationToken,
    ) -> Option<String> {
        if !self.has(HookEvent::PreCompact) {
            return None;
        }
        let combined = self
            .run(
                HookEvent::PreCompact,
                trigger,
                |input| {
                    input.insert("trigger".into(), json!(trigger));
                    input.insert(
                        "custom_instructions".into(),
                        json!(instructions.unwrap_or("")),
                    );
                },
                None,
                cancel,
            )
            .await;
        combined.blocks().then(|| {
            combined
                .reason
                .unwrap_or_else(|| "a PreCompact hook".to_owned())
        })
    }

    /// `Notification`: rho needs the user (`permission_prompt`: an approval).
    pub async fn notification(&self, message: &str) {
        if !self.has(HookEvent::Notification) {
            return;
        }
        self.run(
            HookEvent::Notification,
            "permission_prompt",
            |input| {
                input.insert("message".into(), json!(message));
                input.insert("notification_type".into(), json!("permission_prompt"));
            },
            None,
            &CancellationToken::new(),
        )
        .await;
    }
}

/// The `Stop` hooks before a run ends on its own: a block sends it on with the reason as a
/// follow-up message, at most [`MAX_STOP_BLOCKS`] times per prompt.
#[async_trait]
impl StopHook for Hooks {
    async fn before_stop(
        &self,
        _context: &[AgentMessage],
        cancel: &CancellationToken,
    ) -> Option<Vec<AgentMessage>> {
        if !self.has(HookEvent::Stop) || self.stop_requested().is_some() {
            return None;
        }
        let blocked = self.stop_blocks.load(Ordering::SeqCst);
        if blocked >= MAX_STOP_BLOCKS {
            return None;
        }
        let combined = self
            .run(
                HookEvent::Stop,
                "",
                |input| {
                    input.insert("stop_hook_active".into(), json!(blocked > 0));
                },
                None,
                cancel,
            )
            .await;
        if !combined.blocks() || combined.stop.is_some() || cancel.is_cancelled() {
            return None;
        }
        self.stop_blocks.fetch_add(1, Ordering::SeqCst);
        let reason = combined
            .reason
            .unwrap_or_else(|| "A Stop hook asks you to go on.".to_owned());
        Some(vec![UserMessage::text(reason).into()])
    }
}

/// `continue: false` ends the run after the current tool batch; the gate `inner` (the
/// budget's) still decides otherwise.
pub struct HookTurnGate {
    /// The session's hooks.
    pub hooks: Arc<Hooks>,
    /// The gate it was composed with.
    pub inner: Option<Arc<dyn TurnGate>>,
}

impl TurnGate for HookTurnGate {
    fn should_stop_after_turn(&self, turn: TurnSummary<'_>) -> bool {
        self.hooks.stop_requested().is_some()
            || self
                .inner
                .as_ref()
                .is_some_and(|inner| inner.should_stop_after_turn(turn))
    }
}
