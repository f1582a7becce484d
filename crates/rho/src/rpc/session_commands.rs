//! The session commands of the protocol (Pi's `docs/rpc.md`, "Session"): `new_session`,
//! `switch_session`, `fork`, `clone`, `get_fork_messages`, `set_session_name`, `export_html`.
//! Those that replace the session continue on their own task: the old run is aborted and its
//! file released before the new session goes live.

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::{Value, json};

use super::build::Target;
use super::host::{Host, report_unsaved};
use super::protocol::{Command, Response};
use super::sessions::{Restore, SessionCommandError};

/// Runs a session command; `None` when its response comes from a task, or when `command` is
/// not a session command (then `Err` hands it back).
pub fn handle(
    host: &Arc<Host>,
    id: Option<Value>,
    kind: &str,
    command: Command,
) -> Result<Option<Response>, Command> {
    let response = match command {
        Command::NewSession { parent_session } => {
            replace(host, id, kind, move |host| {
                // Pi ignores an empty `parentSession`, as JavaScript's falsy "".
                let parent = parent_session.filter(|p| !p.is_empty());
                let target = host.new_session_target(parent);
                Ok((target, json!({"cancelled": false})))
            });
            None
        }
        Command::SwitchSession { session_path } => {
            replace(host, id, kind, move |host| {
                let target = host.open_target(&PathBuf::from(session_path))?;
                Ok((target, json!({"cancelled": false})))
            });
            None
        }
        Command::Fork { entry_id } => {
            replace(host, id, kind, move |host| {
                let (target, text) = host.fork_target(&entry_id)?;
                Ok((target, json!({"text": text, "cancelled": false})))
            });
            None
        }
        Command::Clone => {
            replace(host, id, kind, |host| {
                Ok((host.clone_target()?, json!({"cancelled": false})))
            });
            None
        }
        Command::GetForkMessages => {
            let messages: Vec<Value> = host
                .fork_messages()
                .into_iter()
                .map(|m| json!({"entryId": m.entry_id, "text": m.text}))
                .collect();
            Some(Response::data(id, kind, json!({ "messages": messages })))
        }
        Command::SetSessionName { name } => Some(match host.set_session_name(&name) {
            Ok(name) => {
                // Pi announces the name before it answers.
                let mut event = json!({"type": "session_info_changed"});
                if let Some(name) = name {
                    event["name"] = Value::from(name);
                }
                host.output.write(&event);
                Response::ok(id, kind)
            }
            Err(error) => Response::failure(id, kind, error.to_string()),
        }),
        Command::ExportHtml { output_path } => {
            Some(match host.export_html(output_path.as_deref()) {
                Ok(path) => Response::data(id, kind, json!({ "path": path })),
                Err(error) => Response::failure(id, kind, error.to_string()),
            })
        }
        other => return Err(other),
    };
    Ok(response)
}

type Prepare = dyn FnOnce(&Host) -> Result<(Target, Value), SessionCommandError> + Send;

/// Prepares the next session (a failure answers the command and changes nothing), then aborts
/// the old run, releases its file and makes the prepared session live.
fn replace(
    host: &Arc<Host>,
    id: Option<Value>,
    kind: &str,
    prepare: impl FnOnce(&Host) -> Result<(Target, Value), SessionCommandError> + Send + 'static,
) {
    let host = host.clone();
    let kind = kind.to_owned();
    let prepare: Box<Prepare> = Box::new(prepare);
    tokio::spawn(async move {
        let old = host.current().session;
        let response = match prepare(&host) {
            Ok((target, data)) => {
                old.abort().await;
                host.release_file();
                report_unsaved(host.install(target, Restore::ALL));
                Response::data(id, &kind, data)
            }
            Err(error) => Response::failure(id, &kind, error.to_string()),
        };
        host.output.write(&response.to_json());
    });
}
