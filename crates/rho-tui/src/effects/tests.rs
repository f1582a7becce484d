//! The hosts' calls run beside the UI task: while one is slow, the state still takes inputs and
//! frames are still drawn, and the answer arrives as an input when the call is done.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, mpsc as blocking};
use std::time::{Duration, Instant, UNIX_EPOCH};

use async_trait::async_trait;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use rho_agent::AgentOptions;
use rho_ai::ThinkingLevel;
use rho_ai::faux::FauxProvider;
use rho_host::AgentSession;
use tokio::sync::mpsc;

use super::Effects;
use crate::app::{App, Effect, Input, SessionsReply};
use crate::hooks::{Hooks, ThinkingHook};
use crate::sessions::{
    Deleted, ForkPoint, SessionRow, SessionSwitcher, SwitchRequest, Switched, TreeRow,
};
use crate::status::SessionInfo;
use crate::view;
use crate::view::spinner::spinner;

/// How long a call waits to be let go before it declares the test stuck. Never reached when the
/// calls run beside the UI task: the test lets them go as soon as it has seen them start.
const STUCK: Duration = Duration::from_secs(60);

/// A switcher whose `list` says it started (and for which scope), then waits for the test.
struct SlowList {
    started: mpsc::UnboundedSender<bool>,
    release: Mutex<blocking::Receiver<()>>,
}

impl SlowList {
    fn row(all: bool) -> SessionRow {
        SessionRow {
            path: PathBuf::from(if all {
                "/s/everywhere.jsonl"
            } else {
                "/s/here.jsonl"
            }),
            name: None,
            first_message: if all { "everywhere" } else { "here" }.to_owned(),
            cwd: "/p".to_owned(),
            modified: UNIX_EPOCH,
            message_count: 1,
            size: 10,
            parent: None,
        }
    }
}

#[async_trait]
impl SessionSwitcher for SlowList {
    fn list(&self, all: bool) -> Vec<SessionRow> {
        self.started.send(all).unwrap();
        self.release
            .lock()
            .unwrap()
            .recv_timeout(STUCK)
            .expect("list ran on the UI task, so nothing could let it finish");
        vec![SlowList::row(all)]
    }
    fn fork_points(&self) -> Vec<ForkPoint> {
        Vec::new()
    }
    fn tree(&self) -> Vec<TreeRow> {
        Vec::new()
    }
    fn set_label(&self, _: &str, _: Option<&str>) -> Result<(), String> {
        Ok(())
    }
    fn delete_session(&self, _: &Path) -> Result<Deleted, String> {
        Ok(Deleted::Removed)
    }
    fn rename_session(&self, _: &Path, _: &str) -> Result<(), String> {
        Ok(())
    }
    async fn switch(&self, _: SwitchRequest) -> Result<Switched, String> {
        Err("not here".to_owned())
    }
}

fn info() -> SessionInfo {
    SessionInfo {
        provider: "faux".to_owned(),
        model_id: "faux-1".to_owned(),
        reasoning: true,
        thinking: ThinkingLevel::Medium,
        context_window: 200_000,
        auto_compact: true,
        cwd: "~/p".to_owned(),
    }
}

fn hooks(
    sessions: Option<Arc<dyn SessionSwitcher>>,
    thinking_changed: Option<ThinkingHook>,
) -> Hooks {
    Hooks {
        cwd: PathBuf::from("/p"),
        approvals: None,
        shell: None,
        exit_after_first_frame: false,
        thinking_changed,
        sessions,
        start_commands: Vec::new(),
        commands: None,
        ui: crate::slash::Commands::default(),
        warnings: Vec::new(),
        dialogs: None,
        extensions: None,
    }
}

fn session() -> AgentSession {
    let provider = FauxProvider::new();
    AgentSession::new(AgentOptions::new(
        Arc::new(provider.clone()),
        provider.model(),
    ))
}

/// The screen drawn from `app` at `now`.
fn frame(terminal: &mut Terminal<TestBackend>, app: &App, now: Instant) -> String {
    terminal.draw(|frame| view::draw(frame, app, now)).unwrap();
    format!("{}", terminal.backend())
}

#[tokio::test]
async fn a_slow_session_list_leaves_ticks_and_frames_going_until_its_answer_opens_the_picker() {
    let (started_tx, mut started) = mpsc::unbounded_channel();
    let (release, release_rx) = blocking::channel();
    let switcher = SlowList {
        started: started_tx,
        release: Mutex::new(release_rx),
    };
    let mut effects = Effects::new(hooks(Some(Arc::new(switcher)), None));
    let session = session();
    let mut terminal = Terminal::new(TestBackend::new(80, 20)).unwrap();
    let t0 = Instant::now();
    let mut app = App::new(info());
    // A prompt runs, so the clock moves the spinner.
    app.update(Input::Started(vec!["go".to_owned()]), t0);

    let answered = effects.carry_out(&session, &app, Effect::OpenSessionPicker);
    assert!(answered.is_empty());
    // The listing has started beside the UI task and waits; meanwhile the clock ticks and the
    // frame shows the spinner's next step.
    assert_eq!(started.recv().await, Some(false));
    let tick = t0 + Duration::from_millis(80);
    assert!(app.update(Input::Tick, tick).is_empty());
    let screen = frame(&mut terminal, &app, tick);
    assert!(
        screen.contains(&format!(
            "{} Working...",
            spinner(Duration::from_millis(80))
        )),
        "{screen}"
    );
    assert!(!screen.contains("Resume Session"), "{screen}");

    release.send(()).unwrap();
    assert_eq!(started.recv().await, Some(true));
    release.send(()).unwrap();
    let finished = effects.finished().await;
    assert!(finished.session.is_none());
    let Input::Sessions(SessionsReply::Listed {
        here, everywhere, ..
    }) = &finished.input
    else {
        panic!("not the listing: {:?}", finished.input);
    };
    assert_eq!(
        (here.clone(), everywhere.clone()),
        (vec![SlowList::row(false)], vec![SlowList::row(true)])
    );
    assert!(app.update(finished.input, tick).is_empty());
    let screen = frame(&mut terminal, &app, tick);
    assert!(screen.contains("Resume Session"), "{screen}");
}

#[tokio::test]
async fn a_thinking_level_applies_at_once_and_is_recorded_before_rho_leaves() {
    let (told_tx, told) = blocking::channel();
    let told_tx = Mutex::new(told_tx);
    let hook: ThinkingHook = Arc::new(move |previous, now| {
        told_tx.lock().unwrap().send((previous, now)).unwrap();
        Ok(())
    });
    let mut effects = Effects::new(hooks(None, Some(hook)));
    let session = session();
    let app = App::new(info());
    let level = |session: &AgentSession| session.agent().with_state(|s| s.thinking_level);
    let before = level(&session);

    let answered = effects.carry_out(&session, &app, Effect::SetThinking(ThinkingLevel::High));
    assert!(answered.is_empty());
    assert_eq!(level(&session), ThinkingLevel::High);
    // The same level again is no change to record.
    effects.carry_out(&session, &app, Effect::SetThinking(ThinkingLevel::High));
    effects.finish().await;
    assert_eq!(
        told.try_iter().collect::<Vec<_>>(),
        vec![(before, ThinkingLevel::High)]
    );
}
