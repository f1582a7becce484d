//! The event loop: terminal input, session events and a clock tick, multiplexed on one task.
//! Session events arrive through a channel fed by `session.subscribe`, are folded into the state
//! in order, and a frame is drawn once per batch (ratatui diffs it against the last one, so only
//! changed cells are written).

use std::io;
use std::time::{Duration, Instant};

use crossterm::event::{Event, EventStream};
use futures_util::StreamExt;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use rho_host::{AgentSession, SessionEvent};
use tokio::sync::mpsc;

use crate::app::{App, Effect, Input, Startup};
use crate::effects::Effects;
pub use crate::hooks::{Hooks, ThinkingHook};
use crate::status::{SessionInfo, git_branch};
use crate::terminal::TerminalGuard;
use crate::terminal_report::TerminalReport;
use crate::theme::Theme;
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

/// Runs the interactive mode on `session` until the user leaves. `initial` prompts (from the
/// command line) are sent one after another as if typed. The terminal is restored on return,
/// whatever the outcome, and the work asked of the hosts (a setting or a rule to write) is done.
pub async fn run(
    session: AgentSession,
    info: SessionInfo,
    initial: Vec<String>,
    mut hooks: Hooks,
) -> Result<(), TuiError> {
    let guard = TerminalGuard::enter()?;
    let mut terminal = Terminal::new(CrosstermBackend::new(io::stdout()))?;
    terminal.clear()?;
    let mut session = session;
    let app = starting_app(info, &mut hooks, guard.report());
    let start = Start {
        initial,
        commands: std::mem::take(&mut hooks.start_commands),
        exit_after_first_frame: hooks.exit_after_first_frame,
    };
    let mut effects = Effects::new(hooks);
    let outcome = drive(&mut terminal, &mut session, app, &mut effects, start).await;
    // A run still going would keep tools alive after the screen is gone.
    session.abort_now();
    drop(terminal);
    drop(guard);
    effects.finish().await;
    outcome
}

/// The state as the screen opens, with what `hooks` brought for it.
fn starting_app(info: SessionInfo, hooks: &mut Hooks, report: &TerminalReport) -> App {
    let mut commands = std::mem::take(&mut hooks.ui);
    // The background the terminal reports outranks the `COLORFGBG` guess of an `auto` theme.
    if let (true, Some(background)) = (commands.theme_auto, report.background) {
        commands.theme = Theme::for_background(background);
    }
    let startup = Startup {
        commands,
        git_branch: git_branch(&hooks.cwd),
        warnings: std::mem::take(&mut hooks.warnings),
        typed: report.typed.clone(),
    };
    App::starting(info, startup)
}

/// What happens as the loop starts.
struct Start {
    /// The prompts from the command line.
    initial: Vec<String>,
    /// Effects carried out before the first key.
    commands: Vec<Effect>,
    /// Leave right after the first frame.
    exit_after_first_frame: bool,
}

async fn drive(
    terminal: &mut Terminal<CrosstermBackend<io::Stdout>>,
    session: &mut AgentSession,
    mut app: App,
    effects: &mut Effects,
    start: Start,
) -> Result<(), TuiError> {
    let mut session_events = listen(session);
    for effect in start.commands {
        // Only the sessions effects make sense before the session has done anything.
        for input in effects.carry_out(session, &app, effect) {
            dispatch(&mut app, effects, session, input);
        }
    }
    dispatch(&mut app, effects, session, Input::Started(start.initial));
    let mut input = EventStream::new();
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut stop = StopSignals::listen();
    loop {
        terminal.draw(|frame| view::draw(frame, &app, Instant::now()))?;
        if effects.exiting() || start.exit_after_first_frame {
            return Ok(());
        }
        tokio::select! {
            event = input.next() => match event {
                Some(Ok(Event::Key(key))) => {
                    dispatch(&mut app, effects, session, Input::Key(key));
                }
                Some(Ok(Event::Paste(text))) => {
                    dispatch(&mut app, effects, session, Input::Paste(text));
                }
                Some(Ok(_)) => {}
                Some(Err(error)) => return Err(error.into()),
                // The terminal is gone: nobody is left to talk to.
                None => return Ok(()),
            },
            Some(event) = session_events.recv() => {
                dispatch(&mut app, effects, session, event.into());
                // Everything already queued goes into the same frame.
                while let Ok(event) = session_events.try_recv() {
                    dispatch(&mut app, effects, session, event.into());
                }
            }
            finished = effects.finished() => {
                if let Some(next) = finished.session {
                    // The old session's late events go to a channel nobody reads any more.
                    *session = next;
                    session_events = listen(session);
                }
                dispatch(&mut app, effects, session, finished.input);
            }
            _ = tick.tick(), if app.animating() => {
                dispatch(&mut app, effects, session, Input::Tick);
            }
            () = stop.next() => return Ok(()),
        }
    }
}

/// Feeds `input` to the state and carries out the effects it returns, in order; what an
/// effect answers at once is fed back before the next effect runs.
fn dispatch(app: &mut App, effects: &mut Effects, session: &AgentSession, input: Input) {
    for effect in app.update(input, Instant::now()) {
        for answer in effects.carry_out(session, app, effect) {
            dispatch(app, effects, session, answer);
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

/// The next delivery of `signal`; never, when it could not be listened to.
async fn recv(signal: &mut Option<tokio::signal::unix::Signal>) {
    match signal {
        Some(signal) => {
            signal.recv().await;
        }
        None => std::future::pending::<()>().await,
    }
}
