//! Moving between session files (pi-reference §8.3): starting the RPC session's file, opening
//! another, forking, cloning, naming and exporting — Pi's `AgentSessionRuntime` operations.

use std::path::{Path, PathBuf};

use rho_host::persist::{Persistence, parse_thinking_level};
use rho_session::{EntryKind, ForkMessage, SessionContext, SessionError, SessionFile};

use super::backing::{Backing, PendingFile};
use super::build::{Target, subscribe_output};
use super::host::{Current, Host, lock};

/// Which of a file's settings a newly opened session takes over (the rest stay as they are).
#[derive(Clone, Copy, Debug)]
pub struct Restore {
    /// The model of the file's last `model_change`, when the catalog has it.
    pub model: bool,
    /// The level of the file's last `thinking_level_change`.
    pub thinking: bool,
}

impl Restore {
    /// Everything, as Pi restores a session it switches or forks to.
    pub const ALL: Restore = Restore {
        model: true,
        thinking: true,
    };
}

/// Why a session command failed; the texts are Pi's.
#[derive(Debug, thiserror::Error)]
pub enum SessionCommandError {
    /// The session file could not be read, written or locked.
    #[error(transparent)]
    File(#[from] SessionError),
    /// `fork` of an entry that is not a user message of this session.
    #[error("Invalid entry ID for forking")]
    InvalidForkEntry,
    /// `clone` of a session without entries.
    #[error("Cannot clone session: no current entry selected")]
    NothingToClone,
    /// `export_html` without a session file.
    #[error("Cannot export in-memory session to HTML")]
    InMemory,
    /// `export_html` before the file was written.
    #[error("Nothing to export yet - start a conversation first")]
    NothingToExport,
    /// The opened session ran in a directory that is gone.
    #[error(
        "Stored session working directory does not exist: {session_cwd}\nSession file: {file}\nCurrent working directory: {cwd}"
    )]
    MissingCwd {
        /// The header's cwd.
        session_cwd: String,
        /// The session file.
        file: String,
        /// rho's working directory.
        cwd: String,
    },
    /// Writing the exported page failed.
    #[error("{0:#}")]
    Export(anyhow::Error),
}

impl Host {
    /// Makes `target` the live session: the transcript, model and thinking level of an opened
    /// file are restored as `restore` says, its start entries written. The caller has aborted
    /// the old session's run and released its file.
    pub fn install(&self, target: Target, restore: Restore) -> Result<(), SessionError> {
        let context = match &target {
            Target::Open(file) => file.context(),
            Target::Memory { .. } | Target::Pending(_) => SessionContext::empty(),
        };
        let has_thinking_entry = match &target {
            Target::Open(file) => file
                .branch_entries(None)
                .iter()
                .any(|e| matches!(e.kind, EntryKind::ThinkingLevelChange { .. })),
            Target::Memory { .. } | Target::Pending(_) => false,
        };
        let mut current = lock(&self.current);
        let mut seed = self.seed_of(&current, false);
        let resumed = !context.messages.is_empty();
        if let Some(saved) = context.model.as_ref().filter(|_| restore.model && resumed)
            && let Ok((entry, route)) = self
                .config
                .catalog
                .resolve(&saved.provider, &saved.model_id)
        {
            self.router.add_route(&entry.model, route);
            seed.model = entry.model;
        }
        if restore.thinking
            && resumed
            && has_thinking_entry
            && let Some(level) = parse_thinking_level(&context.thinking_level)
        {
            seed.thinking = level;
        }
        seed.thinking = rho_models::clamp_thinking_level(
            &self.config.catalog.entry_of(&seed.model),
            seed.thinking,
        );
        seed.messages = context.messages.clone();
        let (provider, model_id, thinking) = (
            seed.model.provider.clone(),
            seed.model.id.clone(),
            seed.thinking,
        );
        lock(&self.pending_bash).clear();
        let next = super::build::build(&self.shared(), *lock(&self.retry), seed, target);
        let started = match lock(&next.backing).persistence() {
            Some(persistence) => persistence.record_start(&context, &provider, &model_id, thinking),
            None => Ok(()),
        };
        *current = next;
        started
    }

    /// Writes the live session's pending file, at its first accepted prompt: the header, the
    /// start entries, and what happened before (user commands, a name).
    pub fn materialise(&self, current: &Current) -> Result<(), SessionError> {
        let mut backing = lock(&current.backing);
        let Backing::Pending(pending) = &*backing else {
            return Ok(());
        };
        let file = pending.write()?;
        let name = pending.name.clone();
        let persistence = Persistence::attach(&current.session, file);
        // The printer must come after the writer: the first one retires, a new one follows.
        current
            .output_gate
            .store(false, std::sync::atomic::Ordering::SeqCst);
        subscribe_output(&current.session, &self.shared(), current.epoch, None);
        *backing = Backing::Open(persistence.clone());
        let (provider, model_id, thinking, earlier) = current.session.agent().with_state(|s| {
            (
                s.model.provider.clone(),
                s.model.id.clone(),
                s.thinking_level,
                s.messages.clone(),
            )
        });
        persistence.record_start(&SessionContext::empty(), &provider, &model_id, thinking)?;
        for message in &earlier {
            backing.append_message(message)?;
        }
        if let Some(name) = name {
            backing.set_name(&name)?;
        }
        Ok(())
    }

    /// Stops writing the live session's file and releases its lock (synced first).
    pub fn release_file(&self) {
        let current = self.current();
        let backing = lock(&current.backing);
        if let Some(persistence) = backing.persistence() {
            drop(persistence.detach());
            for error in persistence.take_errors() {
                eprintln!("Error: the session was not fully saved: {error}");
            }
        }
    }

    /// `new_session`: a new file in the session directory (none without one).
    pub fn new_session_target(&self, parent_session: Option<String>) -> Target {
        match &*lock(&self.session_dir) {
            Some(dir) => Target::Pending(PendingFile::in_dir(dir, self.cwd(), parent_session)),
            None => Target::Memory { name: None },
        }
    }

    /// The path of the live session's file (written or not).
    pub fn session_file(&self) -> Option<PathBuf> {
        lock(&self.current().backing).path()
    }

    /// `switch_session`: opens (locks) `path`, or prepares a new session there when it does
    /// not exist. The live file is released first only when it is the same file (a second lock
    /// of it would fail); otherwise the caller releases it after this succeeds.
    pub fn open_target(&self, path: &Path) -> Result<Target, SessionCommandError> {
        let path = self.cwd().join(path);
        if !path.exists() {
            return Ok(Target::Pending(PendingFile::at(path, self.cwd())));
        }
        if self
            .session_file()
            .is_some_and(|live| same_file(&live, &path))
        {
            self.release_file();
        }
        let (file, warnings) = SessionFile::open(&path)?;
        for warning in warnings {
            eprintln!("Warning: {}: {warning}", path.display());
        }
        let stored = file.header().cwd.clone();
        if !stored.is_empty() && !Path::new(&stored).is_dir() {
            return Err(SessionCommandError::MissingCwd {
                session_cwd: stored,
                file: path.to_string_lossy().into_owned(),
                cwd: self.cwd().to_string_lossy().into_owned(),
            });
        }
        if let Some(dir) = path.parent() {
            *lock(&self.session_dir) = Some(dir.to_path_buf());
        }
        Ok(Target::Open(file))
    }

    /// `fork`: the session up to before the user message `entry_id`, in a new file, and that
    /// message's text.
    pub fn fork_target(&self, entry_id: &str) -> Result<(Target, String), SessionCommandError> {
        let current = self.current();
        let backing = lock(&current.backing);
        let forked = backing.persistence().and_then(|p| {
            p.with_file(|file| {
                let crate::session_tree::ForkAt { parent, text } =
                    crate::session_tree::fork_point(file, entry_id)?;
                let target = match &parent {
                    Some(parent) => Target::Open(file.fork_from(parent)?),
                    None => {
                        let dir = file.path().parent().unwrap_or(Path::new("."));
                        let parent = Some(file.path().to_string_lossy().into_owned());
                        Target::Pending(PendingFile::in_dir(dir, self.cwd(), parent))
                    }
                };
                Ok((target, text))
            })
        });
        forked.unwrap_or(Err(SessionCommandError::InvalidForkEntry))
    }

    /// `clone`: the whole current branch in a new file.
    pub fn clone_target(&self) -> Result<Target, SessionCommandError> {
        let current = self.current();
        let backing = lock(&current.backing);
        let cloned = backing.persistence().and_then(|p| {
            p.with_file(|file| match file.leaf_id().map(str::to_owned) {
                Some(leaf) => Ok(Target::Open(file.fork_from(&leaf)?)),
                None => Err(SessionCommandError::NothingToClone),
            })
        });
        cloned.unwrap_or(Err(SessionCommandError::NothingToClone))
    }

    /// `get_fork_messages`: the user messages of the file (none before it is written).
    pub fn fork_messages(&self) -> Vec<ForkMessage> {
        let current = self.current();
        let backing = lock(&current.backing);
        backing
            .persistence()
            .and_then(|p| p.with_file(|file| file.fork_messages()))
            .unwrap_or_default()
    }

    /// `set_session_name`; returns the name the session now has.
    pub fn set_session_name(&self, name: &str) -> Result<Option<String>, SessionError> {
        let current = self.current();
        let mut backing = lock(&current.backing);
        backing.set_name(name)?;
        Ok(backing.name())
    }

    /// `export_html`: the page of the written file, at `output` or Pi's default name; returns
    /// the path as Pi reports it (as given, or the default name).
    pub fn export_html(&self, output: Option<&str>) -> Result<String, SessionCommandError> {
        let current = self.current();
        let backing = lock(&current.backing);
        let persistence = match &*backing {
            Backing::Memory { .. } => return Err(SessionCommandError::InMemory),
            Backing::Pending(_) => return Err(SessionCommandError::NothingToExport),
            Backing::Open(persistence) => persistence,
        };
        let written = persistence.with_file(|file| {
            let shown = match output {
                Some(output) => output.to_owned(),
                None => crate::export::default_output_name(file.path()),
            };
            crate::export::export_open_session(file, Some(Path::new(&shown)), self.cwd())
                .map(|_| shown)
                .map_err(SessionCommandError::Export)
        });
        written.unwrap_or(Err(SessionCommandError::NothingToExport))
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}
