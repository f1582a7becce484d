//! `session/list`: the sessions in `RHO_HOME/sessions` — of one directory when the client
//! names it, else of every directory — newest first, a page of 100 at a time (the cursor is the
//! offset of the next page). `session/delete`: a session's file deleted as the `/resume`
//! picker deletes one (to the trash where there is one; under its lock, so a file another rho
//! has open is left alone).

use std::path::PathBuf;

use agent_client_protocol::Error;
use agent_client_protocol::v1::schema::{
    DeleteSessionRequest, DeleteSessionResponse, ListSessionsRequest, ListSessionsResponse,
    SessionInfo,
};
use rho_session::{SessionDir, list_sessions};

use super::open::invalid;

const PAGE: usize = 100;

/// The page the request asks for.
pub async fn list(request: ListSessionsRequest) -> Result<ListSessionsResponse, Error> {
    let start: usize = match &request.cursor {
        None => 0,
        Some(cursor) => cursor
            .parse()
            .map_err(|_| invalid(format!("not a cursor rho gave: {cursor}")))?,
    };
    let cwd: Option<PathBuf> = request.cwd;
    let found = tokio::task::spawn_blocking(move || {
        let Some(home) = rho_models::rho_home(&rho_models::ProcessEnvironment) else {
            return Vec::new();
        };
        let dir = SessionDir::new(&home);
        match cwd {
            Some(cwd) => list_sessions(&dir.for_cwd(&cwd.to_string_lossy())),
            None => {
                let mut all = dir.list_all();
                all.sort_by_key(|session| std::cmp::Reverse(session.modified));
                all
            }
        }
    })
    .await
    .map_err(|e| Error::internal_error().data(e.to_string()))?;
    let sessions: Vec<SessionInfo> = found
        .iter()
        .skip(start)
        .take(PAGE)
        .map(|session| {
            let title = session.name.clone().unwrap_or_else(|| {
                let first: String = session.first_message.chars().take(80).collect();
                first
            });
            let updated: chrono::DateTime<chrono::Utc> = session.modified.into();
            SessionInfo::new(session.id.clone(), PathBuf::from(&session.cwd))
                .title((!title.is_empty()).then_some(title))
                .updated_at(updated.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
        })
        .collect();
    let next = start + sessions.len();
    Ok(ListSessionsResponse::new(sessions)
        .next_cursor((next < found.len()).then(|| next.to_string())))
}

/// Deletes the file of the session the request names (not one open in this connection: the
/// caller checks).
pub async fn delete(request: DeleteSessionRequest) -> Result<DeleteSessionResponse, Error> {
    let id = request.session_id.0.to_string();
    let deleted = tokio::task::spawn_blocking(move || {
        let home = rho_models::rho_home(&rho_models::ProcessEnvironment)
            .ok_or_else(|| "no RHO_HOME: there are no session files".to_owned())?;
        let found = SessionDir::new(&home)
            .list_all()
            .into_iter()
            .find(|session| session.id == id)
            .ok_or_else(|| format!("no session {id}"))?;
        crate::session_files::delete_session_file(&found.path).map(drop)
    })
    .await
    .map_err(|e| Error::internal_error().data(e.to_string()))?;
    deleted.map_err(invalid)?;
    Ok(DeleteSessionResponse::new())
}
