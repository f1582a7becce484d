//! The event loop: terminal input, session events and a clock tick, multiplexed on one task.
//! Session events arrive through a channel fed by `session.subscribe`, are folded into the state
//! in order, and a frame is drawn once per batch (ratatui diffs it against the last one, so only
//! changed cells are written).

use std::io;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossterm::event::{Event, EventStream};
use futures_util::StreamExt;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use rho_ai::ThinkingLevel;
use rho_host::{AgentSession, SessionEvent};
use tokio::sync::mpsc;

use crate::app::App;
use crate::approval::{ApprovalDialog, ApprovalRequest};
use crate::keys::Command;
use crate::side::Side;
use crate::status::{SessionInfo, git_branch};
use crate::terminal::TerminalGuard;
use crate::terminal_report::TerminalReport;
use crate::theme::Theme;
use crate::user_shell::UserShell;
use crate::view;

/// Why the interactive mode stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    /// The terminal could not be set up, read or drawn to.
    #[error("terminal: {0}")]
    Terminal(#[from] io::Error),
}

/// How often moving parts (spinners, elapsed times, countdowns) are redrawn.
const TICK: Duration = Duration::from_millis(80);

/// What the binary plugs into the interactive mode besides the session.
pub struct Hooks {
    /// The session's working directory (git branch, `@` completion).
    pub cwd: PathBuf,
    /// Approval requests from the gate's [`crate::approval::TuiApprover`].
    pub approvals: Option<mpsc::UnboundedReceiver<ApprovalRequest>>,
    /// Runs `!cmd` lines; without one they are refused with a message.
    pub shell: Option<Arc<dyn UserShell>>,
    /// Leave right after the first frame is drawn (start-up measurement).
    pub exit_after_first_frame: bool,
    /// Told of every thinking level the user picks, before it applies (the session file and
    /// the settings record it); an `Err` is shown as an error line.
    pub thinking_changed: Option<ThinkingHook>,
    /// Lists and switches sessions (`/resume`, `/new`, `/fork`, `/tree`); without one they are
    /// refused with a message.
    pub sessions: Option<Arc<dyn crate::sessions::SessionSwitcher>>,
    /// Commands carried out before the first key (`rho --resume` opens the session picker).
    pub start_commands: Vec<Command>,
    /// Carries out `/model`, `/session`, `/export`, `/settings`…; without one they are refused
    /// with a message.
    pub commands: Option<Arc<dyn crate::slash::CommandHost>>,
    /// The command registry (with skills and templates), the keybindings and the theme.
    pub ui: crate::slash::Commands,
    /// Start-up problems to show as the first lines (a bad `keybindings.json`).
    pub warnings: Vec<String>,
}

/// Runs the interactive mode on `session` until the user leaves. `initial` prompts (from the
/// command line) are sent one after another as if typed. The terminal is restored on return,
/// whatever the outcome.
pub async fn run(
    session: AgentSession,
    info: SessionInfo,
    initial: Vec<String>,
    hooks: Hooks,
) -> Result<(), TuiError> {
    let guard = TerminalGuard::enter()?;
    let mut terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
    terminal.clear()?;
    let mut session = session;
    let report = guard.report().clone();
    let outcome = drive(&mut terminal, &mut session, info, initial, hooks, report).await;
    // A run still going would keep tools alive after the screen is gone.
    session.abort_now();
    drop(terminal);
    drop(guard);
    outcome
}

async fn drive(
    terminal: &mut Terminal<CrosstermBackend<io::Stdout>>,
    session: &mut AgentSession,
    info: SessionInfo,
    initial: Vec<String>,
    mut hooks: Hooks,
    report: TerminalReport,
) -> Result<(), TuiError> {
    let mut session_events = listen(session);
    let mut switching = crate::sessions::switch::Switching::new(hooks.sessions.take());
    let (failed_tx, mut failed_prompts) = mpsc::unbounded_channel::<String>();
    let mut app = App::new(info);
    app.commands = std::mem::take(&mut hooks.ui);
    // The background the terminal reports outranks the `COLORFGBG` guess of an `auto` theme.
    if let (true, Some(background)) = (app.commands.theme_auto, report.background) {
        app.commands.theme = Theme::for_background(background);
    }
    app.editor.insert(&report.typed);
    let command_host = hooks.commands.take();
    for warning in std::mem::take(&mut hooks.warnings) {
        app.transcript
            .push(crate::transcript::Entry::Error(warning));
    }
    app.status.git_branch = git_branch(&hooks.cwd);
    app.pending_prompts = initial.into();
    for command in std::mem::take(&mut hooks.start_commands) {
        // Only the sessions commands make sense before the session has done anything.
        let _ = switching.handle(&mut app, command);
    }
    let mut side = Side::new(hooks);
    let mut input = EventStream::new();
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut stop = StopSignals::listen();
    loop {
        if !app.working
            && let Some(prompt) = app.pending_prompts.pop_front()
        {
            app.start_prompt(Instant::now());
            execute(session, Command::Prompt(prompt), &failed_tx);
        }
        if !app.working {
            side.record_pending();
        }
        terminal.draw(|frame| view::draw(frame, &app, Instant::now()))?;
        if app.exit || side.exit_after_first_frame {
            return Ok(());
        }
        tokio::select! {
            event = input.next() => match event {
                Some(Ok(Event::Key(key))) => {
                    for command in app.on_key(key, Instant::now()) {
                        if let Command::Slash(action) = command {
                            let host = command_host.as_ref();
                            crate::slash::host::run_action(host, session, &mut app, action);
                            continue;
                        }
                        if let Some(command) = switching.handle(&mut app, command) {
                            side.execute(session, &mut app, command, &failed_tx);
                        }
                    }
                }
                Some(Ok(Event::Paste(text))) => {
                    for command in app.on_paste(&text) {
                        side.execute(session, &mut app, command, &failed_tx);
                    }
                }
                Some(Ok(_)) => {}
                Some(Err(error)) => return Err(error.into()),
                // The terminal is gone: nobody is left to talk to.
                None => return Ok(()),
            },
            Some(event) = session_events.recv() => {
                let now = Instant::now();
                app.apply(&event, now);
                // Everything already queued goes into the same frame.
                while let Ok(event) = session_events.try_recv() {
                    app.apply(&event, now);
                }
            }
            Some(message) = failed_prompts.recv() => app.prompt_failed(message),
            Some(request) = recv_some(&mut side.approvals) => {
                app.ask_approval(ApprovalDialog::for_request(&request));
                side.replies.insert(request.id, request.reply);
            }
            Some(done) = side.shell_done.recv() => side.shell_finished(&mut app, done),
            Some(files) = side.files_done.recv() => app.files_indexed(files),
            Some(result) = switching.done.recv() => {
                if let Some(next) = switching.finished(&mut app, result) {
                    // The old session's late events go to a channel nobody reads any more.
                    *session = next;
                    session_events = listen(session);
                }
            }
            _ = tick.tick(), if app.animating() => {}
            () = stop.next() => return Ok(()),
        }
    }
}

/// The session's events, from now on, on a channel of their own.
fn listen(session: &AgentSession) -> mpsc::UnboundedReceiver<SessionEvent> {
    let (event_tx, events) = mpsc::unbounded_channel::<SessionEvent>();
    session.subscribe(move |event| {
        let _ = event_tx.send(event.clone());
    });
    events
}

/// Hands one command to the session. A prompt runs on its own task so the loop keeps drawing;
/// its events arrive through the subscription, and only a refusal comes back here.
pub(crate) fn execute(
    session: &AgentSession,
    command: Command,
    failed: &mpsc::UnboundedSender<String>,
) {
    match command {
        Command::Prompt(text) => {
            let session = session.clone();
            let failed = failed.clone();
            tokio::spawn(async move {
                if let Err(error) = session.prompt(&text).await {
                    let _ = failed.send(error.to_string());
                }
            });
        }
        Command::Steer(text) => session.steer(&text),
        Command::FollowUp(text) => session.follow_up(&text),
        Command::ClearQueue => drop(session.clear_queue()),
        Command::Abort => session.abort_now(),
        Command::SetThinking(level) => session
            .agent()
            .update_state(|state| state.thinking_level = level),
        // Handled beside the session (`side.rs`).
        Command::Answer(..) | Command::Shell(_) | Command::IndexFiles | Command::CancelShell => {}
        // Handled by the loop itself: they replace the session (`sessions/switch.rs`).
        Command::OpenSessionPicker
        | Command::OpenForkPicker
        | Command::OpenTree
        | Command::SaveTreeLabel
        | Command::ChangeSessionFile
        | Command::SwitchSession(_) => {}
        // Handled by the loop with the command host (`slash/host.rs`).
        Command::Slash(_) => {}
    }
}

/// What the host does with a thinking level the user picked.
pub type ThinkingHook = Box<dyn Fn(ThinkingLevel) -> Result<(), String> + Send>;

/// SIGTERM, SIGHUP and a SIGINT sent from outside (Ctrl+C itself arrives as a key in raw mode)
/// end the interactive mode cleanly: the terminal is restored on the way out.
struct StopSignals {
    term: Option<tokio::signal::unix::Signal>,
    hup: Option<tokio::signal::unix::Signal>,
    int: Option<tokio::signal::unix::Signal>,
}

impl StopSignals {
    fn listen() -> Self {
        use tokio::signal::unix::{SignalKind, signal};
        StopSignals {
            term: signal(SignalKind::terminate()).ok(),
            hup: signal(SignalKind::hangup()).ok(),
            int: signal(SignalKind::interrupt()).ok(),
        }
    }

    async fn next(&mut self) {
        let StopSignals { term, hup, int } = self;
        tokio::select! {
            () = recv(term) => {}
            () = recv(hup) => {}
            () = recv(int) => {}
        }
    }
}

/// The next item of an optional channel; never, without one.
async fn recv_some<T>(receiver: &mut Option<mpsc::UnboundedReceiver<T>>) -> Option<T> {
    match receiver {
        Some(receiver) => receiver.recv().await,
        None => std::future::pending().await,
    }
}

/// The next delivery of `signal`; never, when it could not be listened to.
async fn recv(signal: &mut Option<tokio::signal::unix::Signal>) {
    match signal {
        Some(signal) => {
            signal.recv().await;
        }
        None => std::future::pending::<()>().await,
    }
}
