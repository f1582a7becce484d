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

/// An open session: the file (locked for this process) and its entries.
#[derive(Debug)]
pub struct SessionFile {
    pub(crate) path: PathBuf,
    file: File,
    pub(crate) header: SessionHeader,
    pub(crate) entries: Vec<SessionEntry>,
    pub(crate) index: HashMap<String, usize>,
    /// Where each entry's line sits in the file, for verbatim copies (forks).
    pub(crate) spans: Vec<Range<u64>>,
    pub(crate) leaf: Option<String>,
    len: u64,
    dir_synced: bool,
}

impl SessionFile {
    /// Starts a new session in `dir` (created if missing): writes the file
    /// `<timestamp>_<uuid>.jsonl` with its header now and locks it.
    pub fn create(
        dir: &Path,
        cwd: &str,
        parent_session: Option<String>,
    ) -> Result<SessionFile, SessionError> {
        std::fs::create_dir_all(dir).map_err(|e| SessionError::io(dir, e))?;
        let id = new_session_id();
        let timestamp = iso_timestamp(SystemTime::now());
        let path = dir.join(format!("{}_{id}.jsonl", file_timestamp(&timestamp)));
        let header = SessionHeader::new(id, timestamp, cwd.to_owned(), parent_session);
        Self::create_with_header(&path, header)
    }

    /// Starts a new session at an explicit path (Pi's `--session <path>` for a file that does
    /// not exist yet). Fails if the file exists.
    pub fn create_at(path: &Path, cwd: &str) -> Result<SessionFile, SessionError> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| SessionError::io(parent, e))?;
        }
        let header = SessionHeader::new(
            new_session_id(),
            iso_timestamp(SystemTime::now()),
            cwd.to_owned(),
            None,
        );
        Self::create_with_header(path, header)
    }

    pub(crate) fn create_with_header(
        path: &Path,
        header: SessionHeader,
    ) -> Result<SessionFile, SessionError> {
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .create_new(true)
            .open(path)
            .map_err(|e| SessionError::io(path, e))?;
        lock(&file, path)?;
        let mut session = SessionFile {
            path: path.to_path_buf(),
            file,
            header,
            entries: Vec::new(),
            index: HashMap::new(),
            spans: Vec::new(),
            leaf: None,
            len: 0,
            dir_synced: false,
        };
        session.write_header()?;
        Ok(session)
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
        let header = loaded.header.unwrap_or_else(|| {
            SessionHeader::new(
                new_session_id(),
                iso_timestamp(SystemTime::now()),
                String::new(),
                None,
            )
        });
        let index = loaded
            .entries
            .iter()
            .enumerate()
            .map(|(i, e)| (e.id.clone(), i))
            .collect();
        let leaf = loaded.entries.last().map(|e| e.id.clone());
        let mut session = SessionFile {
            path: path.to_path_buf(),
            file,
            header,
            entries: loaded.entries,
            index,
            spans: loaded
                .spans
                .into_iter()
                .map(|r| r.start as u64..r.end as u64)
                .collect(),
            leaf,
            len,
            dir_synced: true,
        };
        if fresh {
            session
                .file
                .set_len(0)
                .map_err(|e| SessionError::io(path, e))?;
            session.len = 0;
            session.write_header()?;
        }
        Ok((session, loaded.warnings))
    }

    fn write_header(&mut self) -> Result<(), SessionError> {
        let mut line = serde_json::to_vec(&self.header)?;
        line.push(b'\n');
        self.write_line(&line)?;
        Ok(())
    }

    /// Writes one whole line with one `write_all` and, on failure, cuts the file back so a
    /// half-written line never stays behind a later one.
    fn write_line(&mut self, line: &[u8]) -> Result<Range<u64>, SessionError> {
        let start = self.len;
        if let Err(e) = self.file.write_all(line) {
            let _ = self.file.set_len(start);
            return Err(SessionError::io(&self.path, e));
        }
        self.len += line.len() as u64;
        Ok(start..self.len)
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

    pub(crate) fn append_entry(
        &mut self,
        parent_id: Option<String>,
        kind: EntryKind,
    ) -> Result<String, SessionError> {
        let entry = SessionEntry {
            id: new_entry_id(&self.index),
            parent_id,
            timestamp: iso_timestamp(SystemTime::now()),
            kind,
            extra: serde_json::Map::new(),
        };
        let line = entry.to_line()?;
        let span = self.write_line(&line)?;
        let id = entry.id.clone();
        self.index.insert(id.clone(), self.entries.len());
        self.entries.push(entry);
        self.spans.push(span);
        self.leaf = Some(id.clone());
        Ok(id)
    }

    /// Flushes everything appended so far to stable storage (`fsync`; the first call also
    /// syncs the directory, so a new file's name survives too). The host calls it when a
    /// prompt settles and at exit.
    pub fn sync(&mut self) -> Result<(), SessionError> {
        self.file
            .sync_data()
            .map_err(|e| SessionError::io(&self.path, e))?;
        if !self.dir_synced {
            if let Some(dir) = self.path.parent().filter(|p| !p.as_os_str().is_empty()) {
                File::open(dir)
                    .and_then(|d| d.sync_all())
                    .map_err(|e| SessionError::io(dir, e))?;
            }
            self.dir_synced = true;
        }
        Ok(())
    }

    /// The context the model receives at the current leaf.
    pub fn context(&self) -> SessionContext {
        build_session_context(&self.entries, &self.index, self.leaf.as_deref())
    }

    /// The context at another entry (an unknown id gives the last entry's, as in Pi).
    pub fn context_at(&self, leaf_id: &str) -> SessionContext {
        build_session_context(&self.entries, &self.index, Some(leaf_id))
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
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
    let mut tmp_name = path.as_os_str().to_owned();
    tmp_name.push(".migrating");
    let tmp = PathBuf::from(tmp_name);
    let write = || -> std::io::Result<()> {
        let mut f = File::create(&tmp)?;
        f.write_all(contents)?;
        f.sync_all()
    };
    write().map_err(|e| SessionError::io(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| SessionError::io(path, e))?;
    let file = OpenOptions::new()
        .read(true)
        .append(true)
        .open(path)
        .map_err(|e| SessionError::io(path, e))?;
    lock(&file, path)?;
    Ok(file)
}
