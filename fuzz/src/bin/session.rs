//! Target `session`: a session file (JSONL) opened as `--continue` opens it (torn-line repair,
//! migration, the tree), its context rebuilt and every message decoded; and read as the session
//! listing reads it.

use rho_session::{SessionFile, session_info};

/// Opens `data` as a session file in a scratch directory of this process.
pub fn run(data: &[u8]) {
    let dir = std::env::temp_dir().join(format!("rho-fuzz-session-{}", std::process::id()));
    let path = dir.join("session.jsonl");
    if std::fs::create_dir_all(&dir).is_err() || std::fs::write(&path, data).is_err() {
        return;
    }
    let _ = session_info(&path);
    if let Ok((session, _warnings)) = SessionFile::open(&path) {
        let _ = session.context();
        for entry in session.entries() {
            let _ = entry.kind.as_message();
            let _ = entry.to_line();
        }
        let _ = (
            session.labels(),
            session.session_name(),
            session.fork_messages(),
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

rho_fuzz::main!(run);
