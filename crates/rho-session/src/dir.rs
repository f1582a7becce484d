//! Where sessions live and how they are found: `<RHO_HOME>/sessions/--<encoded cwd>--/`,
//! `--continue`'s most recent session, `--resume`'s list, `--session <id prefix>`.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::entry::{EntryKind, SessionHeader};
use crate::load::{load, parse_header};
use crate::message::Buffer;
use crate::time::{parse_iso_ms, system_time_from_ms};

/// Pi's directory name for a cwd: the leading `/` or `\` dropped, every `/`, `\` and `:`
/// replaced by `-`, wrapped in `--…--` (`/home/u/proj` → `--home-u-proj--`).
pub fn encode_cwd(cwd: &str) -> String {
    let trimmed = cwd
        .strip_prefix('/')
        .or_else(|| cwd.strip_prefix('\\'))
        .unwrap_or(cwd);
    format!("--{}--", trimmed.replace(['/', '\\', ':'], "-"))
}

/// The session directories under one home.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionDir {
    root: PathBuf,
}

impl SessionDir {
    /// The sessions of `home` (`RHO_HOME`): `<home>/sessions`.
    pub fn new(home: &Path) -> Self {
        SessionDir {
            root: home.join("sessions"),
        }
    }

    /// `<home>/sessions`.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The directory of a cwd's sessions (not created here; [`crate::SessionFile::create`]
    /// creates it). `--session-dir` replaces this directory.
    pub fn for_cwd(&self, cwd: &str) -> PathBuf {
        self.root.join(encode_cwd(cwd))
    }

    /// Every session in every cwd's directory, newest first (Pi's `listAll`).
    pub fn list_all(&self) -> Vec<SessionInfo> {
        let mut sessions = Vec::new();
        if let Ok(dirs) = std::fs::read_dir(&self.root) {
            for dir in dirs.flatten() {
                if dir.file_type().is_ok_and(|t| t.is_dir()) {
                    sessions.extend(list_unsorted(&dir.path()));
                }
            }
        }
        sort_newest_first(&mut sessions);
        sessions
    }

    /// `--session <prefix>`: the newest session in `local` (the cwd's directory or
    /// `--session-dir`) whose id starts with `prefix`, else the newest in any directory.
    pub fn find_by_id_prefix(&self, local: &Path, prefix: &str) -> Option<SessionInfo> {
        let pick = |list: Vec<SessionInfo>| list.into_iter().find(|s| s.id.starts_with(prefix));
        pick(list_sessions(local)).or_else(|| pick(self.list_all()))
    }
}

/// One session as the `--resume` picker shows it (Pi's `SessionInfo`).
#[derive(Clone, Debug, PartialEq)]
pub struct SessionInfo {
    /// The file.
    pub path: PathBuf,
    /// The header's session id.
    pub id: String,
    /// The header's cwd.
    pub cwd: String,
    /// The latest `session_info` name, if set and not cleared.
    pub name: Option<String>,
    /// The header's `parentSession`.
    pub parent_session_path: Option<String>,
    /// The header's timestamp.
    pub created: Option<SystemTime>,
    /// The last user or assistant message's time; else the header's; else the file's mtime.
    pub modified: SystemTime,
    /// The number of `message` entries.
    pub message_count: usize,
    /// The first user message's text, or `(no messages)`.
    pub first_message: String,
}

/// The sessions in one directory, newest first (Pi's `list`). Files that are not sessions are
/// left out; a missing directory is an empty list.
pub fn list_sessions(dir: &Path) -> Vec<SessionInfo> {
    let mut sessions = list_unsorted(dir);
    sort_newest_first(&mut sessions);
    sessions
}

/// `--continue`: the most recently modified `*.jsonl` in `dir` whose first line is a session
/// header.
pub fn most_recent_session(dir: &Path) -> Option<PathBuf> {
    let mut best: Option<(SystemTime, PathBuf)> = None;
    for path in jsonl_files(dir) {
        if !has_session_header(&path) {
            continue;
        }
        let Ok(mtime) = std::fs::metadata(&path).and_then(|m| m.modified()) else {
            continue;
        };
        if best.as_ref().is_none_or(|(t, _)| mtime > *t) {
            best = Some((mtime, path));
        }
    }
    best.map(|(_, path)| path)
}

fn sort_newest_first(sessions: &mut [SessionInfo]) {
    sessions.sort_by_key(|s| std::cmp::Reverse(s.modified));
}

fn jsonl_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    read.flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl") && p.is_file())
        .collect()
}

fn has_session_header(path: &Path) -> bool {
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    // A header is one short line; the cap keeps a huge garbage file from being read whole.
    let mut first = Vec::new();
    BufReader::new(file.take(1 << 20))
        .read_until(b'\n', &mut first)
        .is_ok()
        && parse_header(&first).is_some()
}

fn list_unsorted(dir: &Path) -> Vec<SessionInfo> {
    jsonl_files(dir)
        .iter()
        .filter_map(|p| session_info(p))
        .collect()
}

/// Reads one file for the picker; `None` when it is not a session file.
pub fn session_info(path: &Path) -> Option<SessionInfo> {
    let bytes = std::fs::read(path).ok()?;
    let loaded = load(&Buffer::new(bytes)).ok()?;
    let header: SessionHeader = loaded.header?;
    let mtime = std::fs::metadata(path).and_then(|m| m.modified()).ok();
    let mut name = None;
    let mut message_count = 0;
    let mut first_message = String::new();
    let mut last_activity: Option<i64> = None;
    for entry in &loaded.entries {
        match &entry.kind {
            EntryKind::SessionInfo { name: n } => {
                name = n
                    .as_deref()
                    .map(str::trim)
                    .filter(|n| !n.is_empty())
                    .map(str::to_owned);
            }
            EntryKind::Message(message) => {
                message_count += 1;
                // Only user and assistant messages matter here: skip decoding the rest.
                if message
                    .role_hint()
                    .is_some_and(|r| r != "user" && r != "assistant")
                {
                    continue;
                }
                let Ok(message) = message.get() else {
                    continue;
                };
                let time = if let Some(u) = message.as_user() {
                    if first_message.is_empty() {
                        first_message = user_text(u);
                    }
                    u.timestamp
                } else if let Some(a) = message.as_assistant() {
                    a.timestamp
                } else {
                    continue;
                };
                let time = if time > 0 {
                    Some(time)
                } else {
                    parse_iso_ms(&entry.timestamp)
                };
                if let Some(t) = time {
                    last_activity = Some(last_activity.map_or(t, |l| l.max(t)));
                }
            }
            _ => {}
        }
    }
    let created = parse_iso_ms(&header.timestamp);
    let modified = last_activity
        .filter(|&t| t > 0)
        .or(created)
        .map(system_time_from_ms)
        .or(mtime)
        .unwrap_or(SystemTime::UNIX_EPOCH);
    Some(SessionInfo {
        path: path.to_path_buf(),
        id: header.id,
        cwd: header.cwd,
        name,
        parent_session_path: header.parent_session,
        created: created.map(system_time_from_ms),
        modified,
        message_count,
        first_message: if first_message.is_empty() {
            "(no messages)".to_owned()
        } else {
            first_message
        },
    })
}

/// The picker joins text blocks with a space (the fork list joins them with nothing).
fn user_text(user: &rho_ai::UserMessage) -> String {
    match &user.content {
        rho_ai::UserContent::Text(t) => t.clone(),
        rho_ai::UserContent::Blocks(blocks) => blocks
            .iter()
            .filter_map(rho_ai::ContentBlock::as_text)
            .collect::<Vec<_>>()
            .join(" "),
    }
}
