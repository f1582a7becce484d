//! [`SessionFile`]: one open, locked, append-only session file and its tree in memory.
//!
//! Durability beyond Pi's: every line reaches the file in one `write(2)` on an `O_APPEND`
//! descriptor, so a crash leaves at most one torn line at the end (repaired on the next open);
//! [`SessionFile::sync`] makes what was appended survive a power loss; an exclusive `flock`
//! held while the file is open keeps a second rho process from interleaving its lines. The
//! kernel drops the lock with the process, so a killed rho leaves none behind.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::context::{SessionContext, build_session_context};
use crate::entry::{EntryKind, SessionEntry, SessionHeader};
use crate::error::{OpenWarning, SessionError};
use crate::load::{NotASessionFile, load};
use crate::message::Buffer;
use crate::time::{file_timestamp, iso_timestamp, new_entry_id, new_session_id};

/// A header for a new session: `id` or a new UUID, now, `cwd`.
fn fresh_header(id: Option<String>, cwd: &str, parent_session: Option<String>) -> SessionHeader {
    SessionHeader::new(
        id.unwrap_or_else(new_session_id),
        iso_timestamp(SystemTime::now()),
        cwd.to_owned(),
        parent_session,
    )
}

/// A session: its header and entries in memory, and where they are kept (see [`Storage`]).
///
/// A new session is usually [`SessionFile::pending_in`]: its file appears only when the session
/// first holds a user or assistant message (Pi 1.6), with every entry buffered until then, so a
/// run that fails before the prompt leaves no empty file behind.
#[derive(Debug)]
pub struct SessionFile {
    storage: Storage,
    pub(crate) header: SessionHeader,
    pub(crate) entries: Vec<SessionEntry>,
    pub(crate) index: HashMap<String, usize>,
    /// Where each entry's line sits in the file, for verbatim copies (forks); empty ranges
    /// while the session is not on disk.
    pub(crate) spans: Vec<Range<u64>>,
    pub(crate) leaf: Option<String>,
}

/// Where a session's entries go.
#[derive(Debug)]
enum Storage {
    /// Nowhere: `--no-session`. The entries live as long as the process.
    Memory,
    /// A file not written yet: created when the first user or assistant message is appended.
    Pending {
        /// Where the file will be.
        path: PathBuf,
    },
    /// An open file, locked for this process, appended to line by line.
    Disk(Disk),
}

#[derive(Debug)]
struct Disk {
    path: PathBuf,
    file: File,
    len: u64,
    dir_synced: bool,
}

/// A durable flush of a session file, detached from the session so it can run on a blocking
/// thread while the session goes on (see [`SessionFile::sync_handle`]).
#[derive(Debug)]
pub struct SyncHandle {
    path: PathBuf,
    file: File,
    /// The directory to sync too (the first sync of a new file, so its name survives).
    dir: Option<PathBuf>,
}

impl SyncHandle {
    /// `fsync`s the file (and its directory the first time). Blocking.
    pub fn sync(self) -> Result<(), SessionError> {
        self.file
            .sync_data()
            .map_err(|e| SessionError::io(&self.path, e))?;
        if let Some(dir) = &self.dir {
            File::open(dir)
                .and_then(|d| d.sync_all())
                .map_err(|e| SessionError::io(dir, e))?;
        }
        Ok(())
    }
}

impl SessionFile {
    /// A session kept in memory only (`--no-session`), with a fresh header for `cwd`.
    pub fn in_memory(cwd: &str) -> SessionFile {
        Self::with_storage(Storage::Memory, fresh_header(None, cwd, None))
    }

    /// A new session in `dir` named as Pi names them, `<timestamp>_<id>.jsonl`, written when
    /// it first holds a user or assistant message. `id` is `--session-id`'s (a new UUID
    /// otherwise).
    pub fn pending_in(
        dir: &Path,
        cwd: &str,
        parent_session: Option<String>,
        id: Option<String>,
    ) -> SessionFile {
        let header = fresh_header(id, cwd, parent_session);
        let path = dir.join(format!(
            "{}_{}.jsonl",
            file_timestamp(&header.timestamp),
            header.id
        ));
        Self::with_storage(Storage::Pending { path }, header)
    }

    /// A new session at an explicit path (Pi's `--session <path>` for a file that does not
    /// exist yet), written when it first holds a user or assistant message.
    pub fn pending_at(path: &Path, cwd: &str) -> SessionFile {
        let header = fresh_header(None, cwd, None);
        Self::with_storage(
            Storage::Pending {
                path: path.to_path_buf(),
            },
            header,
        )
    }

    fn with_storage(storage: Storage, header: SessionHeader) -> SessionFile {
        SessionFile {
            storage,
            header,
            entries: Vec::new(),
            index: HashMap::new(),
            spans: Vec::new(),
            leaf: None,
        }
    }

    /// Starts a new session in `dir` (created if missing): writes the file
    /// `<timestamp>_<uuid>.jsonl` with its header now and locks it.
    pub fn create(
        dir: &Path,
        cwd: &str,
        parent_session: Option<String>,
    ) -> Result<SessionFile, SessionError> {
        let mut session = Self::pending_in(dir, cwd, parent_session, None);
        session.materialize()?;
        Ok(session)
    }

    /// Starts a new session at an explicit path now. Fails if the file exists.
    pub fn create_at(path: &Path, cwd: &str) -> Result<SessionFile, SessionError> {
        let mut session = Self::pending_at(path, cwd);
        session.materialize()?;
        Ok(session)
    }

    /// Writes a pending session's file now: the header and every buffered entry, then keeps
    /// it open and locked. A no-op for a session on disk or in memory. The file must not exist:
    /// a file that appeared meanwhile is never overwritten. The file appears whole or not at
    /// all (a kill while its first lines are written leaves no half of them).
    pub fn materialize(&mut self) -> Result<(), SessionError> {
        let Storage::Pending { path } = &self.storage else {
            return Ok(());
        };
        let path = path.clone();
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| SessionError::io(parent, e))?;
        }
        let mut contents = serde_json::to_vec(&self.header)?;
        contents.push(b'\n');
        let mut spans = Vec::with_capacity(self.entries.len());
        for entry in &self.entries {
            let start = contents.len() as u64;
            contents.extend_from_slice(&entry.to_line()?);
            spans.push(start..contents.len() as u64);
        }
        let file = create_whole(&path, &contents)?;
        self.spans = spans;
        self.storage = Storage::Disk(Disk {
            path,
            file,
            len: contents.len() as u64,
            dir_synced: false,
        });
        Ok(())
    }

    /// Opens an existing session file for appending: locks it, reads every entry, repairs a
    /// torn last line, skips malformed lines and migrates older versions (rewriting the file).
    /// An empty file gets a fresh header. The leaf is the last entry.
    pub fn open(path: &Path) -> Result<(SessionFile, Vec<OpenWarning>), SessionError> {
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .open(path)
            .map_err(|e| SessionError::io(path, e))?;
        lock(&file, path)?;
        // Sized up front: growing by doubling would briefly hold the file twice.
        let size = file.metadata().map_or(0, |m| m.len());
        let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0).saturating_add(1));
        file.read_to_end(&mut bytes)
            .map_err(|e| SessionError::io(path, e))?;
        // The entries' messages keep the buffer alive; it is freed with the last of them.
        let loaded =
            load(&Buffer::new(bytes)).map_err(|NotASessionFile| SessionError::NotASessionFile {
                path: path.to_path_buf(),
            })?;
        if let Some(rewritten) = &loaded.rewritten {
            file = replace_contents(path, rewritten)?;
        } else if let Some(cut) = loaded.truncate_to {
            file.set_len(cut as u64)
                .and_then(|()| file.sync_data())
                .map_err(|e| SessionError::io(path, e))?;
        }
        let mut len = file
            .metadata()
            .map_err(|e| SessionError::io(path, e))?
            .len();
        if loaded.needs_newline {
            file.write_all(b"\n")
                .map_err(|e| SessionError::io(path, e))?;
            len += 1;
        }
        let fresh = loaded.header.is_none();
        let header = loaded
            .header
            .unwrap_or_else(|| fresh_header(None, "", None));
        let index = loaded
            .entries
            .iter()
            .enumerate()
            .map(|(i, e)| (e.id.clone(), i))
            .collect();
        let leaf = loaded.entries.last().map(|e| e.id.clone());
        let mut session = SessionFile {
            storage: Storage::Disk(Disk {
                path: path.to_path_buf(),
                file,
                len,
                dir_synced: true,
            }),
            header,
            entries: loaded.entries,
            index,
            spans: loaded
                .spans
                .into_iter()
                .map(|r| r.start as u64..r.end as u64)
                .collect(),
            leaf,
        };
        if fresh {
            if let Storage::Disk(disk) = &mut session.storage {
                disk.file
                    .set_len(0)
                    .map_err(|e| SessionError::io(path, e))?;
                disk.len = 0;
            }
            let mut line = serde_json::to_vec(&session.header)?;
            line.push(b'\n');
            session.write_line(&line)?;
        }
        Ok((session, loaded.warnings))
    }

    /// Writes one whole line with one `write_all` and, on failure, cuts the file back so a
    /// half-written line never stays behind a later one. `None` when the session is not on
    /// disk.
    fn write_line(&mut self, line: &[u8]) -> Result<Option<Range<u64>>, SessionError> {
        let Storage::Disk(disk) = &mut self.storage else {
            return Ok(None);
        };
        let start = disk.len;
        if let Err(e) = disk.file.write_all(line) {
            let _ = disk.file.set_len(start);
            return Err(SessionError::io(&disk.path, e));
        }
        disk.len += line.len() as u64;
        Ok(Some(start..disk.len))
    }

    /// Appends an entry as a child of the current leaf and makes it the leaf. Returns its id.
    pub fn append(&mut self, kind: EntryKind) -> Result<String, SessionError> {
        let parent = self.leaf.clone();
        self.append_entry(parent, kind)
    }

    /// Appends an entry under an explicit parent (`None`: a new root), making it the leaf: a
    /// branch from an earlier point of the conversation.
    pub fn append_with_parent(
        &mut self,
        parent_id: Option<&str>,
        kind: EntryKind,
    ) -> Result<String, SessionError> {
        if let Some(p) = parent_id {
            self.require(p)?;
        }
        self.append_entry(parent_id.map(str::to_owned), kind)
    }

    /// Adds the entry in memory and writes it: one line on disk, or — for a pending session
    /// whose first user or assistant message this is — the whole file. A failed write leaves
    /// the entry out (no later entry can name a parent the file lacks).
    pub(crate) fn append_entry(
        &mut self,
        parent_id: Option<String>,
        kind: EntryKind,
    ) -> Result<String, SessionError> {
        let starts_file = matches!(self.storage, Storage::Pending { .. })
            && kind
                .message_role()
                .is_some_and(|r| r == "user" || r == "assistant");
        let entry = SessionEntry {
            id: new_entry_id(&self.index),
            parent_id,
            timestamp: iso_timestamp(SystemTime::now()),
            kind,
            extra: serde_json::Map::new(),
        };
        let span = match &self.storage {
            Storage::Disk(_) => {
                let line = entry.to_line()?;
                self.write_line(&line)?.unwrap_or(0..0)
            }
            Storage::Memory | Storage::Pending { .. } => 0..0,
        };
        let id = entry.id.clone();
        self.index.insert(id.clone(), self.entries.len());
        self.entries.push(entry);
        self.spans.push(span);
        if starts_file && let Err(error) = self.materialize() {
            self.entries.pop();
            self.spans.pop();
            self.index.remove(&id);
            return Err(error);
        }
        self.leaf = Some(id.clone());
        Ok(id)
    }

    /// Flushes everything appended so far to stable storage (`fsync`; the first call also
    /// syncs the directory, so a new file's name survives too). Blocking: an async caller uses
    /// [`SessionFile::sync_handle`] on a blocking thread instead.
    pub fn sync(&mut self) -> Result<(), SessionError> {
        match self.sync_handle() {
            Some(handle) => handle.sync(),
            None => Ok(()),
        }
    }

    /// What [`SessionFile::sync`] would flush, detached so it can run elsewhere; `None` when
    /// the session is not on disk (or its descriptor cannot be duplicated, which only fails
    /// when the process is out of descriptors: then there is nothing better to do).
    pub fn sync_handle(&mut self) -> Option<SyncHandle> {
        let Storage::Disk(disk) = &mut self.storage else {
            return None;
        };
        let file = disk.file.try_clone().ok()?;
        let dir = (!disk.dir_synced)
            .then(|| disk.path.parent().filter(|p| !p.as_os_str().is_empty()))
            .flatten()
            .map(Path::to_path_buf);
        disk.dir_synced = true;
        Some(SyncHandle {
            path: disk.path.clone(),
            file,
            dir,
        })
    }

    /// The context the model receives at the current leaf.
    pub fn context(&self) -> SessionContext {
        build_session_context(&self.entries, &self.index, self.leaf.as_deref())
    }

    /// The context at another entry (an unknown id gives the last entry's, as in Pi).
    pub fn context_at(&self, leaf_id: &str) -> SessionContext {
        build_session_context(&self.entries, &self.index, Some(leaf_id))
    }

    /// The file's path: where it is, or where a pending session's file will be; `None` for a
    /// session kept in memory.
    pub fn path(&self) -> Option<&Path> {
        match &self.storage {
            Storage::Memory => None,
            Storage::Pending { path } => Some(path),
            Storage::Disk(disk) => Some(&disk.path),
        }
    }

    /// Whether the entries are written to a file now (a pending session's are not yet).
    pub fn is_on_disk(&self) -> bool {
        matches!(self.storage, Storage::Disk(_))
    }

    /// Whether the session is kept in memory only.
    pub fn is_in_memory(&self) -> bool {
        matches!(self.storage, Storage::Memory)
    }

    /// The header (session id, cwd, parent session).
    pub fn header(&self) -> &SessionHeader {
        &self.header
    }

    /// The session id (the header's `id`), also the provider's prompt-cache key.
    pub fn session_id(&self) -> &str {
        &self.header.id
    }

    /// All entries in file order (header excluded).
    pub fn entries(&self) -> &[SessionEntry] {
        &self.entries
    }

    /// The entry with this id.
    pub fn entry(&self, id: &str) -> Option<&SessionEntry> {
        self.index.get(id).map(|&i| &self.entries[i])
    }

    /// The current leaf (`None` before the first entry or after [`SessionFile::reset_leaf`]).
    pub fn leaf_id(&self) -> Option<&str> {
        self.leaf.as_deref()
    }

    pub(crate) fn require(&self, id: &str) -> Result<(), SessionError> {
        if self.index.contains_key(id) {
            Ok(())
        } else {
            Err(SessionError::EntryNotFound { id: id.to_owned() })
        }
    }
}

/// How long a busy lock is retried before the file counts as in use. A process that forks (the
/// bash tool, a test harness) shares every open descriptor with the child until its `exec`
/// closes them, so a lock just released by this process can look held for that instant.
const LOCK_PATIENCE: std::time::Duration = std::time::Duration::from_millis(250);

/// Takes the exclusive lock, retrying briefly (see [`LOCK_PATIENCE`]); another live rho process
/// holding it gets [`SessionError::Locked`].
/// Creates `path` holding `contents`, locked, whole or not at all: the bytes go to a hidden
/// sibling first, which is then renamed to `path` without replacing anything (or, where the
/// file system cannot rename that way, linked to it). Fails if `path` exists.
fn create_whole(path: &Path, contents: &[u8]) -> Result<File, SessionError> {
    let io = |e| SessionError::io(path, e);
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let temporary = path.with_file_name(format!(
        ".{name}.{:016x}.tmp",
        rho_stdx::random::u64(contents.len() as u64)
    ));
    let mut file = OpenOptions::new()
        .read(true)
        .append(true)
        .create_new(true)
        .open(&temporary)
        .map_err(io)?;
    let placed = lock(&file, path)
        .and_then(|()| file.write_all(contents).map_err(io))
        .and_then(|()| place(&temporary, path).map_err(io));
    if let Err(error) = placed {
        let _ = std::fs::remove_file(&temporary);
        return Err(error);
    }
    Ok(file)
}

/// Gives the file at `temporary` the name `path`, never replacing a file already there.
fn place(temporary: &Path, path: &Path) -> std::io::Result<()> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    match renameat_with(CWD, temporary, CWD, path, RenameFlags::NOREPLACE) {
        Ok(()) => Ok(()),
        Err(e) if e == rustix::io::Errno::INVAL || e == rustix::io::Errno::NOSYS => {
            std::fs::hard_link(temporary, path)?;
            std::fs::remove_file(temporary)
        }
        Err(e) => Err(e.into()),
    }
}

fn lock(file: &File, path: &Path) -> Result<(), SessionError> {
    use rustix::fs::{FlockOperation, flock};
    let deadline = std::time::Instant::now() + LOCK_PATIENCE;
    loop {
        match flock(file, FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => return Ok(()),
            Err(e) if e == rustix::io::Errno::WOULDBLOCK => {
                if std::time::Instant::now() >= deadline {
                    return Err(SessionError::Locked {
                        path: path.to_path_buf(),
                    });
                }
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            Err(e) => return Err(SessionError::io(path, e.into())),
        }
    }
}

/// Rewrites a file whose lock we hold: the new contents go to a sibling file, synced, then
/// renamed over the original, so a crash leaves the old or the new file, never half of one.
/// The renamed file is locked before the old lock is released with the old descriptor.
fn replace_contents(path: &Path, contents: &[u8]) -> Result<File, SessionError> {
    rho_stdx::fs::write_atomic(path, contents, rho_stdx::fs::Access::Shared)
        .map_err(|e| SessionError::io(path, e))?;
    let file = OpenOptions::new()
        .read(true)
        .append(true)
        .open(path)
        .map_err(|e| SessionError::io(path, e))?;
    lock(&file, path)?;
    Ok(file)
}
