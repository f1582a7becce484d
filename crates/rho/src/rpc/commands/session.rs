//! The session commands (Pi's `docs/rpc.md`, "Session"): `new_session`, `switch_session`,
//! `fork`, `clone`, `get_fork_messages`, `set_session_name`, `export_html`. Those that replace
//! the session prepare the next one on a blocking thread (files are read and locked there), then
//! abort the old run, release its file and make the new session live. A preparation that fails
//! answers the command and leaves the old session as it was.

use std::path::Path;
use std::sync::Arc;

use rho_session::{EntryKind, SessionContext, SessionError, SessionFile};
use serde_json::{Value, json};

use crate::rpc::host::{Host, Restore};
use crate::rpc::reply::Reply;
use crate::session_builder::SessionStart;

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

/// A prepared replacement: what the next session starts from, and the response's data.
type Prepared = Result<(SessionStart, Value), SessionCommandError>;

/// Restores nothing of a new file: the model and level carry over.
const KEEP: Restore = Restore {
    model: false,
    thinking: false,
    has_thinking_entry: false,
};

/// `new_session`: a new file in the session directory (memory without one).
pub fn new_session(host: &Arc<Host>, reply: Reply, parent_session: Option<String>) {
    replace(host, reply, false, move |host| {
        // Pi ignores an empty `parentSession`, as JavaScript's falsy "".
        let parent = parent_session.filter(|p| !p.is_empty());
        let cwd = host.cwd().to_string_lossy().into_owned();
        let file = match host.session_dir() {
            Some(dir) => SessionFile::pending_in(&dir, &cwd, parent, None),
            None => SessionFile::in_memory(&cwd),
        };
        let start = host.next_start(file, SessionContext::empty(), KEEP);
        Ok((start, json!({"cancelled": false})))
    });
}

/// `switch_session`: continues `path`, or starts a new session there when it does not exist.
pub fn switch_session(host: &Arc<Host>, reply: Reply, session_path: String) {
    let path = host.cwd().join(session_path);
    let live = host.session().record().path();
    // A second lock of the live file would fail: it is let go of first.
    let same = live.is_some_and(|live| same_file(&live, &path));
    replace(host, reply, same, move |host| {
        if !path.exists() {
            let file = SessionFile::pending_at(&path, &host.cwd().to_string_lossy());
            let start = host.next_start(file, SessionContext::empty(), KEEP);
            return Ok((start, json!({"cancelled": false})));
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
                cwd: host.cwd().to_string_lossy().into_owned(),
            });
        }
        if let Some(dir) = path.parent() {
            host.set_session_dir(dir.to_path_buf());
        }
        let start = opened_start(host, file);
        Ok((start, json!({"cancelled": false})))
    });
}

/// `fork`: the session up to before the user message `entry_id`, in a new file, and that
/// message's text.
pub fn fork(host: &Arc<Host>, reply: Reply, entry_id: String) {
    replace(host, reply, false, move |host| {
        let cwd = host.cwd().to_string_lossy().into_owned();
        let forked = host.session().record().with_file(|file| {
            if !file.is_on_disk() {
                return Err(SessionCommandError::InvalidForkEntry);
            }
            let at = crate::session_tree::fork_point(file, &entry_id)?;
            let next = match &at.parent {
                Some(parent) => file.fork_from(parent)?,
                None => {
                    let path = file.path().unwrap_or(Path::new("."));
                    let dir = path.parent().unwrap_or(Path::new("."));
                    let parent = Some(path.to_string_lossy().into_owned());
                    SessionFile::pending_in(dir, &cwd, parent, None)
                }
            };
            Ok((next, at.text))
        });
        let (file, text) = forked.unwrap_or(Err(SessionCommandError::InvalidForkEntry))?;
        let start = opened_start(host, file);
        Ok((start, json!({"text": text, "cancelled": false})))
    });
}

/// `clone`: the whole current branch in a new file.
pub fn clone(host: &Arc<Host>, reply: Reply) {
    replace(host, reply, false, |host| {
        let cloned =
            host.session()
                .record()
                .with_file(|file| match file.leaf_id().map(str::to_owned) {
                    Some(leaf) if file.is_on_disk() => Ok(file.fork_from(&leaf)?),
                    _ => Err(SessionCommandError::NothingToClone),
                });
        let file = cloned.unwrap_or(Err(SessionCommandError::NothingToClone))?;
        let start = opened_start(host, file);
        Ok((start, json!({"cancelled": false})))
    });
}

/// `get_fork_messages`: the user messages of the session file (none before it is written).
pub fn get_fork_messages(host: &Arc<Host>, reply: Reply) {
    let messages: Vec<Value> = host
        .session()
        .record()
        .with_file(|file| {
            if file.is_on_disk() {
                file.fork_messages()
            } else {
                Vec::new()
            }
        })
        .unwrap_or_default()
        .into_iter()
        .map(|m| json!({"entryId": m.entry_id, "text": m.text}))
        .collect();
    reply.data(json!({ "messages": messages }));
}

/// `set_session_name`: a `session_info` entry; Pi announces the name before it answers.
pub fn set_session_name(host: &Arc<Host>, reply: Reply, name: String) {
    let name = name.trim().to_owned();
    if name.is_empty() {
        return reply.fail("Session name cannot be empty");
    }
    let named = host.session().record().with_file(|file| {
        file.append_session_info(&name)?;
        Ok::<_, SessionError>(file.session_name())
    });
    match named.unwrap_or(Err(SessionError::Closed)) {
        Ok(name) => {
            let mut event = json!({"type": "session_info_changed"});
            if let Some(name) = name {
                event["name"] = Value::from(name);
            }
            host.output.write(&event);
            reply.ok();
        }
        Err(error) => reply.fail(error),
    }
}

/// `export_html`: the page of the written file, at `output` or Pi's default name; answers the
/// path as Pi reports it (as given, or the default name).
pub fn export_html(host: &Arc<Host>, reply: Reply, output: Option<String>) {
    let cwd = host.cwd().clone();
    let exported = host.session().record().with_file(|file| {
        if file.is_in_memory() {
            return Err(SessionCommandError::InMemory);
        }
        let Some(path) = file.path().filter(|_| file.is_on_disk()) else {
            return Err(SessionCommandError::NothingToExport);
        };
        let shown = output.unwrap_or_else(|| crate::export::default_output_name(path));
        crate::export::export_open_session(file, Some(Path::new(&shown)), &cwd)
            .map(|_| shown)
            .map_err(SessionCommandError::Export)
    });
    match exported.unwrap_or(Err(SessionCommandError::NothingToExport)) {
        Ok(path) => reply.data(json!({ "path": path })),
        Err(error) => reply.fail(error),
    }
}

/// The start of a session on an opened (or forked) file: its transcript, and its own model and
/// thinking level, as Pi restores a session it switches or forks to.
fn opened_start(host: &Host, file: SessionFile) -> SessionStart {
    let context = file.context();
    let has_thinking_entry = file
        .branch_entries(None)
        .iter()
        .any(|e| matches!(e.kind, EntryKind::ThinkingLevelChange { .. }));
    let restore = Restore {
        model: true,
        thinking: true,
        has_thinking_entry,
    };
    host.next_start(file, context, restore)
}

/// Prepares the next session on a blocking thread, then makes it live; `release_first` lets go
/// of the live file before preparing (when the next session is the same file), and takes it back
/// if preparing fails.
fn replace(
    host: &Arc<Host>,
    reply: Reply,
    release_first: bool,
    prepare: impl FnOnce(&Host) -> Prepared + Send + 'static,
) {
    let host = host.clone();
    tokio::spawn(async move {
        let old = host.session();
        let held = if release_first {
            old.abort().await;
            old.record().detach()
        } else {
            None
        };
        let preparing = host.clone();
        let prepared = tokio::task::spawn_blocking(move || prepare(&preparing)).await;
        let prepared = match prepared {
            Ok(prepared) => prepared,
            Err(panic) => {
                if let Some(file) = held {
                    old.record().reattach(file);
                }
                return reply.fail(format!("The session could not be prepared: {panic}"));
            }
        };
        match prepared {
            Ok((start, data)) => {
                drop(held);
                match host.replace(start).await {
                    Ok(()) => reply.data(data),
                    Err(error) => reply.fail(error),
                }
            }
            Err(error) => {
                if let Some(file) = held {
                    old.record().reattach(file);
                }
                reply.fail(error);
            }
        }
    });
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}
