//! Switching the interactive mode's session (Pi's `/resume`, `/new`, `/fork`, `/tree`): the next
//! session is built exactly as at start-up (`session_builder::choose`, `session_builder::build_chosen`) on the chosen
//! file, after the old run is aborted and its file synced and released. A `/tree` pick moves the
//! leaf of the same file and keeps the session.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use rho_ai::Usage;
use rho_host::AgentSession;
use rho_host::compaction::CompactionDetails;
use rho_session::{SessionContext, SessionDir, SessionFile, list_sessions};
use rho_stdx::sync::lock;
use rho_tui::SessionInfo;
use rho_tui::sessions::picker::CANNOT_DELETE_CURRENT;
use rho_tui::sessions::{
    Deleted, ForkPoint, SessionRow, SessionSwitcher, SwitchRequest, Switched, TreeFilter, TreeRow,
};

use crate::branch_summary::{abandoned_entries, summarize as summarize_branch};
use crate::cli::Cli;
use crate::rpc::models::RoutedProvider;
use crate::session_builder::{self, Built, Extras};
use crate::session_choice::{SessionTarget, open_existing, opened};
use crate::session_files::{delete_session_file, rename_session_file};
use crate::session_tree::{
    dir_of, fork_point, session_row, tree_filter_setting, tree_rows, tree_target,
};

/// The session the UI runs now, shared with what acts on it (`!cmd`, the thinking recorder).
pub struct Live {
    /// The session (its record is its file).
    pub session: AgentSession,
    /// Where its tools work.
    pub run_cwd: PathBuf,
    /// Its provider, which a model switch extends with the new model's route.
    pub router: Arc<RoutedProvider>,
    /// Its MCP servers (each session connects its own, as Pi's do; stopped when it is left).
    pub mcp: Option<Arc<rho_host::mcp::McpHost>>,
}

/// A shared handle on the live session.
pub type LiveHandle = Arc<Mutex<Live>>;

/// What the interactive mode rebuilds sessions with. The UI calls it beside its own task: the
/// plain methods on the blocking pool, [`SessionSwitcher::switch`] on a task, which moves its
/// file work (opening, forking, syncing, building) to the blocking pool in turn.
pub struct Switcher {
    state: Arc<State>,
}

/// What a [`Switcher`] works with, shared with its work on the blocking pool.
struct State {
    /// The command line; its model flags are reset to `flags` before each build.
    cli: Mutex<Cli>,
    flags: (Option<String>, Option<String>),
    /// Where rho was started.
    cwd: PathBuf,
    /// `RHO_HOME`, whose settings name the tree's filter.
    home: Option<PathBuf>,
    /// `RHO_HOME`'s session directory.
    sessions: Option<SessionDir>,
    /// This cwd's session directory (or `--session-dir`).
    local: Option<PathBuf>,
    approver: Option<Arc<dyn rho_host::gate::Approver>>,
    context_hooks: Option<Arc<dyn rho_agent::ContextHooks>>,
    elicitor: Option<Arc<dyn rho_mcp::Elicitor>>,
    /// Turns a built session into what the status line shows.
    describe: fn(&Built) -> SessionInfo,
    /// What the status line shows for the live session.
    info: Mutex<SessionInfo>,
    live: LiveHandle,
}

/// What a [`Switcher`] is made of.
pub struct SwitcherParts {
    /// The command line.
    pub cli: Cli,
    /// Where rho was started.
    pub cwd: PathBuf,
    /// `RHO_HOME`.
    pub home: Option<PathBuf>,
    /// The approver every session's gate asks.
    pub approver: Option<Arc<dyn rho_host::gate::Approver>>,
    /// The `!cmd`-aware context conversion.
    pub context_hooks: Option<Arc<dyn rho_agent::ContextHooks>>,
    /// Who answers MCP servers' elicitation in every session.
    pub elicitor: Option<Arc<dyn rho_mcp::Elicitor>>,
    /// The status line's facts of a built session.
    pub describe: fn(&Built) -> SessionInfo,
    /// What the status line shows for the live session.
    pub info: SessionInfo,
    /// The live session.
    pub live: LiveHandle,
}

impl Switcher {
    /// A switcher over `parts`.
    pub fn new(parts: SwitcherParts) -> Switcher {
        Switcher {
            state: Arc::new(State::new(parts)),
        }
    }
}

impl State {
    fn new(parts: SwitcherParts) -> State {
        let sessions = parts.home.as_deref().map(SessionDir::new);
        let local = match (&parts.cli.session_dir, &sessions) {
            (Some(dir), _) => Some(parts.cwd.join(dir)),
            (None, Some(s)) => Some(s.for_cwd(&parts.cwd.to_string_lossy())),
            (None, None) => None,
        };
        let flags = (parts.cli.model.clone(), parts.cli.provider.clone());
        State {
            cli: Mutex::new(parts.cli),
            flags,
            cwd: parts.cwd,
            home: parts.home,
            sessions,
            local,
            approver: parts.approver,
            context_hooks: parts.context_hooks,
            elicitor: parts.elicitor,
            describe: parts.describe,
            info: Mutex::new(parts.info),
            live: parts.live,
        }
    }

    /// Runs `f` on the live session's file; `None` when it is kept in memory.
    fn live_file<R>(&self, f: impl FnOnce(&mut SessionFile) -> R) -> Option<R> {
        let record = lock(&self.live).session.record().clone();
        record
            .with_file(|file| (!file.is_in_memory()).then(|| f(file)))
            .flatten()
    }

    fn live_path(&self) -> Option<PathBuf> {
        lock(&self.live).session.record().path()
    }

    /// The directory this session's files go to: beside the live file, else the cwd's.
    fn session_dir(&self) -> Option<PathBuf> {
        let beside = self
            .live_path()
            .and_then(|p| dir_of(&p).map(Path::to_path_buf));
        beside.or_else(|| self.local.clone())
    }

    /// The target a replacing request opens; nothing is released yet.
    fn prepare(&self, request: &SwitchRequest) -> Result<(SessionTarget, Option<String>), String> {
        let run_cwd = lock(&self.live).run_cwd.clone();
        match request {
            SwitchRequest::Open(path) => {
                let live_path = self.live_path();
                // A second lock of the same file would fail: let go of it first, and take it
                // back if the file cannot be opened.
                let held = if live_path
                    .as_deref()
                    .is_some_and(|live| same_file(live, path))
                {
                    detach(&mut lock(&self.live))
                } else {
                    None
                };
                let opened = open_existing(path, &self.cwd).map_err(|e| {
                    reattach(&mut lock(&self.live), held);
                    format!("{e:#}")
                })?;
                Ok((SessionTarget::Open(Box::new(opened)), None))
            }
            SwitchRequest::New => Ok((
                match self.session_dir() {
                    Some(dir) => SessionTarget::New { dir, id: None },
                    None => SessionTarget::Ephemeral,
                },
                None,
            )),
            SwitchRequest::Fork(entry_id) => {
                let dir = self.session_dir();
                let forked = self.live_file(|file| {
                    let at = fork_point(file, entry_id).map_err(|e| e.to_string())?;
                    let new_file = match &at.parent {
                        Some(parent) => file.fork_from(parent),
                        None => {
                            let parent = file.path().map(|p| p.to_string_lossy().into_owned());
                            let dir = dir.unwrap_or_else(|| run_cwd.clone());
                            SessionFile::create(&dir, &run_cwd.to_string_lossy(), parent)
                        }
                    }
                    .map_err(|e| e.to_string())?;
                    Ok((new_file, at.text))
                });
                let (file, text) = forked
                    .unwrap_or_else(|| Err("Cannot fork: this session has no file".to_owned()))?;
                Ok((
                    SessionTarget::Open(Box::new(opened(file, run_cwd))),
                    Some(text),
                ))
            }
            SwitchRequest::Branch { .. } => Err("not a replacing switch".to_owned()),
        }
    }
}

impl Switcher {
    async fn replace(&self, request: SwitchRequest) -> Result<Switched, String> {
        let state = &self.state;
        let old = lock(&state.live).session.clone();
        // Opening (and locking) or forking a file is file work: off the runtime.
        let preparing = (Arc::clone(state), request.clone());
        let (target, editor_text) = off_runtime(move || preparing.0.prepare(&preparing.1)).await?;
        old.abort().await;
        // The old file is let go of only once the new session stands: a switch that fails
        // leaves the old session as it was, still recording. Detaching syncs it.
        let live = Arc::clone(&state.live);
        let held = off_runtime(move || Ok(detach(&mut lock(&live)))).await?;
        let built = {
            let mut cli = lock(&state.cli).clone();
            (cli.model, cli.provider) = state.flags.clone();
            // `--name` and `--session-id` named the session the run started with.
            cli.name = None;
            cli.session_id = None;
            let extras = Extras {
                approver: state.approver.clone(),
                context_hooks: state.context_hooks.clone(),
                elicitor: state.elicitor.clone(),
                hook_approver: None,
                mcp_servers: Vec::new(),
            };
            let cwd = state.cwd.clone();
            // Settings, keys (a `!command` may run for seconds), the workspace and the file are
            // read off the runtime, so the screen and signals stay served meanwhile.
            off_runtime(move || {
                session_builder::choose(&mut cli, &target, &cwd)
                    .and_then(|chosen| session_builder::build_chosen(&cli, chosen, target, extras))
                    .map_err(|e| format!("{e:#}"))
            })
            .await
        };
        let built = match built {
            Ok(built) => built,
            Err(error) => {
                reattach(&mut lock(&state.live), held);
                return Err(error);
            }
        };
        drop(held);
        // The session left behind ends (its `SessionEnd` hooks, Claude Code's reasons).
        let reason = match request {
            SwitchRequest::New => "clear",
            _ => "other",
        };
        old.end(reason).await;
        let info = (state.describe)(&built);
        *lock(&state.info) = info.clone();
        let messages = built.session.agent().with_state(|s| s.messages.clone());
        let left = std::mem::replace(
            &mut *lock(&state.live),
            Live {
                session: built.session.clone(),
                run_cwd: built.run_cwd.clone(),
                router: built.router.clone(),
                mcp: built.mcp.clone(),
            },
        );
        if let Some(mcp) = left.mcp {
            mcp.shutdown().await;
        }
        let notice = match request {
            SwitchRequest::Open(_) => "Resumed session",
            SwitchRequest::New => "✓ New session started",
            SwitchRequest::Fork(_) => "Forked to new session",
            SwitchRequest::Branch { .. } => "Navigated to selected point",
        };
        Ok(Switched {
            warnings: Vec::new(),
            session: Some(built.session),
            info,
            messages,
            editor_text,
            notice: notice.to_owned(),
        })
    }

    /// `/tree`: the leaf moves as Pi moves it, the agent's transcript follows; same session.
    async fn branch(
        &self,
        entry_id: &str,
        summarize: bool,
        info: SessionInfo,
    ) -> Result<Switched, String> {
        let session = lock(&self.state.live).session.clone();
        session.abort().await;
        let summary = if summarize {
            let abandoned = self
                .state
                .live_file(|file| abandoned_entries(file, file.leaf_id(), entry_id))
                .unwrap_or_default();
            if abandoned.is_empty() {
                None
            } else {
                let model = session.agent().with_state(|s| s.model.clone());
                let agent = session.agent();
                Some(summarize_branch(agent.provider(), &model, agent.api_key(), &abandoned).await?)
            }
        } else {
            None
        };
        // Appending to the file and rebuilding the context from it: off the runtime.
        let state = Arc::clone(&self.state);
        let entry_id = entry_id.to_owned();
        let (context, editor_text) = off_runtime(move || {
            state
                .live_file(|file| move_leaf(file, &entry_id, summary.as_ref()))
                .unwrap_or_else(|| Err("This session has no file".to_owned()))
        })
        .await?;
        session.restore(&context);
        Ok(Switched {
            warnings: Vec::new(),
            session: None,
            info,
            messages: context.messages,
            editor_text,
            notice: "Navigated to selected point".to_owned(),
        })
    }
}

/// Moves the leaf of `file` to the `/tree` pick `entry_id`, recording `summary` of the branch
/// left behind; the context from there and the text for the editor.
fn move_leaf(
    file: &mut SessionFile,
    entry_id: &str,
    summary: Option<&(String, CompactionDetails, Option<Usage>)>,
) -> Result<(SessionContext, Option<String>), String> {
    let (leaf, text) = tree_target(file, entry_id).ok_or_else(|| "No such entry".to_owned())?;
    match (summary, &leaf) {
        (Some((text, details, usage)), _) => {
            let details = serde_json::to_value(details).ok();
            let usage = usage.as_ref().and_then(|u| serde_json::to_value(u).ok());
            file.branch_with_summary(leaf.as_deref(), text, details, None, usage)
                .map_err(|e| e.to_string())?;
        }
        (None, Some(id)) => file.branch(id).map_err(|e| e.to_string())?,
        (None, None) => file.reset_leaf(),
    }
    Ok((file.context(), text))
}

/// Runs `work` on the blocking pool and waits for it: a switch reads, writes and syncs session
/// files, and the screen and the signals are served meanwhile.
async fn off_runtime<R: Send + 'static>(
    work: impl FnOnce() -> Result<R, String> + Send + 'static,
) -> Result<R, String> {
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|e| Err(format!("The session switch failed: {e}")))
}

/// Stops the live session's recording and hands its file back, still locked: dropping it lets
/// go; [`reattach`] gives it back to the live session.
fn detach(live: &mut Live) -> Option<SessionFile> {
    live.session.record().detach()
}

/// Gives the live session back the file a failed switch took from it.
fn reattach(live: &mut Live, file: Option<SessionFile>) {
    if let Some(file) = file {
        live.session.record().reattach(file);
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

#[async_trait]
impl SessionSwitcher for Switcher {
    fn list(&self, all: bool) -> Vec<SessionRow> {
        let listed = match (all, &self.state.sessions, &self.state.local) {
            (true, Some(sessions), _) => sessions.list_all(),
            (_, _, Some(local)) => list_sessions(local),
            (_, _, None) => Vec::new(),
        };
        let live = self.state.live_path();
        // The empty session `rho --resume` starts on is nothing to resume.
        listed
            .into_iter()
            .filter(|s| s.message_count > 0 || live.as_deref() != Some(s.path.as_path()))
            .map(session_row)
            .collect()
    }

    fn fork_points(&self) -> Vec<ForkPoint> {
        self.state
            .live_file(|file| file.fork_messages())
            .unwrap_or_default()
            .into_iter()
            .map(|m| ForkPoint {
                entry_id: m.entry_id,
                text: m.text,
            })
            .collect()
    }

    fn tree(&self) -> Vec<TreeRow> {
        self.state
            .live_file(|file| tree_rows(file))
            .unwrap_or_default()
    }

    fn tree_filter(&self) -> TreeFilter {
        let run_cwd = lock(&self.state.live).run_cwd.clone();
        tree_filter_setting(self.state.home.as_deref(), &run_cwd)
    }

    fn set_label(&self, entry_id: &str, label: Option<&str>) -> Result<(), String> {
        let label = label.map(str::trim).filter(|l| !l.is_empty());
        self.state
            .live_file(|file| {
                file.append_label_change(entry_id, label)
                    .map(drop)
                    .map_err(|e| e.to_string())
            })
            .unwrap_or_else(|| Err("This session has no file".to_owned()))
    }

    fn current_session(&self) -> Option<PathBuf> {
        self.state.live_path()
    }

    fn delete_session(&self, path: &Path) -> Result<Deleted, String> {
        if self
            .current_session()
            .is_some_and(|live| same_file(&live, path))
        {
            return Err(CANNOT_DELETE_CURRENT.to_owned());
        }
        delete_session_file(path)
    }

    fn rename_session(&self, path: &Path, name: &str) -> Result<(), String> {
        let live = self.current_session();
        if live.is_some_and(|live| same_file(&live, path)) {
            // The open file is locked by this process: its own writer appends.
            return self
                .state
                .live_file(|file| file.append_session_info(name).map(drop))
                .unwrap_or(Ok(()))
                .map_err(|e| e.to_string());
        }
        rename_session_file(path, name)
    }

    async fn switch(&self, request: SwitchRequest) -> Result<Switched, String> {
        // What the layers below warn of while the screen is up is held (`warnings.rs`) and
        // shown in the conversation.
        let result = self.switch_inner(request).await;
        let warnings = crate::warnings::take();
        match result {
            Ok(mut switched) => {
                switched.warnings = warnings;
                Ok(switched)
            }
            Err(error) => Err(warnings
                .into_iter()
                .chain(std::iter::once(error))
                .collect::<Vec<_>>()
                .join("\n")),
        }
    }
}

impl Switcher {
    /// Carries out one switch: a branch inside the live file, or a replacing one.
    async fn switch_inner(&self, request: SwitchRequest) -> Result<Switched, String> {
        match &request {
            SwitchRequest::Branch {
                entry_id,
                summarize,
            } => {
                let info = self.current_info();
                self.branch(entry_id, *summarize, info).await
            }
            _ => self.replace(request).await,
        }
    }

    /// The status line's facts of the live session as they are now: `/model`, Shift+Tab and
    /// `/settings` may have changed them since it was built.
    fn current_info(&self) -> SessionInfo {
        let mut info = lock(&self.state.info).clone();
        let live = lock(&self.state.live);
        live.session.agent().with_state(|s| {
            info.provider.clone_from(&s.model.provider);
            info.model_id.clone_from(&s.model.id);
            info.reasoning = s.model.reasoning;
            info.context_window = s.model.context_window;
            info.thinking = s.thinking_level;
        });
        info.auto_compact = live.session.auto_compaction_enabled();
        info
    }
}
