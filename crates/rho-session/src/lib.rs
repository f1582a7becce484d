//! rho-session: Pi-compatible session files (JSONL, version 3): write, reopen, repair, branch.
//!
//! A session file is a header line and then one JSON entry per line; entries form a tree
//! through `id`/`parentId`, and the model's context is the path from the current leaf to the
//! root (pi-reference §8.1–8.3).
//!
//! - [`SessionFile`]: create or open a file (locked for this process, repaired on open),
//!   append entries, rebuild the [`SessionContext`], branch, fork, [`SessionFile::sync`].
//! - [`SessionDir`], [`list_sessions`], [`most_recent_session`], [`encode_cwd`]: where
//!   sessions live and how `--continue`, `--resume` and `--session <id>` find them.
//! - [`SessionEntry`] / [`EntryKind`]: the entry types, written with Pi's field order. A
//!   `message` entry's [`EntryMessage`] is decoded on first use, so opening a long session
//!   costs one scan of its lines and a context rebuild decodes only the messages it returns.

mod context;
mod decode;
mod dir;
mod entry;
mod error;
mod file;
mod load;
mod message;
mod migrate;
pub mod time;
mod tree;

pub use context::{ModelRef, SessionContext, build_session_context, user_entry_message};
pub use dir::{
    SessionDir, SessionInfo, encode_cwd, list_sessions, most_recent_session, session_info,
};
pub use entry::{CURRENT_SESSION_VERSION, EntryKind, SessionEntry, SessionHeader};
pub use error::{OpenWarning, SessionError};
pub use file::SessionFile;
pub use message::{EntryMessage, MessageError, SkippedMessage};
pub use tree::ForkMessage;
