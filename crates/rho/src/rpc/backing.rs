//! The session file behind the RPC session (pi-reference §8.1–8.3): none (`--no-session`), one
//! chosen but not written yet (a new session's file appears when its first prompt is accepted),
//! or an open, locked file its [`Persistence`] writes to.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use rho_agent::AgentMessage;
use rho_host::persist::Persistence;
use rho_session::{SessionError, SessionFile, SessionHeader};

/// A new session whose id and path are fixed now and whose file is written later.
#[derive(Clone, Debug)]
pub struct PendingFile {
    /// The header the file will start with (its id is the session's id from the start).
    pub header: SessionHeader,
    /// Where the file will be.
    pub path: PathBuf,
    /// A name set before the file exists, written after the header.
    pub name: Option<String>,
}

impl PendingFile {
    /// A new session in `dir` named as Pi names them: `<timestamp>_<id>.jsonl`.
    pub fn in_dir(dir: &Path, cwd: &Path, parent_session: Option<String>) -> PendingFile {
        let header = new_header(cwd, parent_session);
        let timestamp = rho_session::time::file_timestamp(&header.timestamp);
        let path = dir.join(format!("{timestamp}_{}.jsonl", header.id));
        PendingFile {
            header,
            path,
            name: None,
        }
    }

    /// A new session at a path given by the client (`--session`, `switch_session` of a file
    /// that does not exist yet).
    pub fn at(path: PathBuf, cwd: &Path) -> PendingFile {
        PendingFile {
            header: new_header(cwd, None),
            path,
            name: None,
        }
    }

    /// Writes the header and opens (locks) the file. `create_new` refuses to overwrite a file
    /// that appeared in the meantime.
    pub fn write(&self) -> Result<SessionFile, SessionError> {
        let io = |error| SessionError::Io {
            path: self.path.clone(),
            source: error,
        };
        if let Some(parent) = self.path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(io)?;
        }
        let mut line = serde_json::to_vec(&self.header)?;
        line.push(b'\n');
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&self.path)
            .map_err(io)?;
        file.write_all(&line).map_err(io)?;
        drop(file);
        let (file, _) = SessionFile::open(&self.path)?;
        Ok(file)
    }
}

fn new_header(cwd: &Path, parent_session: Option<String>) -> SessionHeader {
    SessionHeader::new(
        rho_session::time::new_session_id(),
        rho_session::time::iso_timestamp(SystemTime::now()),
        cwd.to_string_lossy().into_owned(),
        parent_session,
    )
}

/// Where the current session's entries go.
pub enum Backing {
    /// Nothing is written (`--no-session`, or no `RHO_HOME`); a name lives in memory.
    Memory {
        /// The session's name.
        name: Option<String>,
    },
    /// A new session, written when its first prompt is accepted.
    Pending(Box<PendingFile>),
    /// An open file.
    Open(Persistence),
}

impl Backing {
    /// `get_state.sessionFile`: the file's path, also before it is written (as Pi reports it).
    pub fn path(&self) -> Option<PathBuf> {
        match self {
            Backing::Memory { .. } => None,
            Backing::Pending(pending) => Some(pending.path.clone()),
            Backing::Open(persistence) => persistence.path(),
        }
    }

    /// `get_state.sessionName`.
    pub fn name(&self) -> Option<String> {
        match self {
            Backing::Memory { name } => name.clone(),
            Backing::Pending(pending) => pending.name.clone(),
            Backing::Open(persistence) => persistence.with_file(|f| f.session_name()).flatten(),
        }
    }

    /// Records a name: a `session_info` entry, or kept until there is a file.
    pub fn set_name(&mut self, name: &str) -> Result<(), SessionError> {
        match self {
            Backing::Memory { name: kept } => *kept = Some(name.to_owned()),
            Backing::Pending(pending) => pending.name = Some(name.to_owned()),
            Backing::Open(persistence) => {
                if let Some(written) = persistence.with_file(|f| f.append_session_info(name)) {
                    written?;
                }
            }
        }
        Ok(())
    }

    /// Appends a message the session layer does not announce (a user's `bashExecution`); a
    /// pending file gets it when it is written, from the agent's transcript.
    pub fn append_message(&self, message: &AgentMessage) -> Result<(), SessionError> {
        match self {
            Backing::Open(persistence) => persistence
                .with_file(|f| f.append_message(message.clone()).map(drop))
                .unwrap_or(Ok(())),
            Backing::Memory { .. } | Backing::Pending(_) => Ok(()),
        }
    }

    /// The open file's persistence.
    pub fn persistence(&self) -> Option<&Persistence> {
        match self {
            Backing::Open(persistence) => Some(persistence),
            Backing::Memory { .. } | Backing::Pending(_) => None,
        }
    }
}
