//! The commands that read the session: `get_state`, `get_messages`, `get_session_stats`,
//! `get_last_assistant_text`, `get_commands`, `get_entries`, `get_tree`. The transcript is copied out of the agent's lock
//! (a copy is reference counts) and serialised after it is released.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use serde_json::value::RawValue;

use crate::rpc::command_list::{Roots, commands_json};
use crate::rpc::host::Host;
use crate::rpc::models::model_json;
use crate::rpc::reply::Reply;
use crate::rpc::stats::{last_assistant_text, session_stats};
use crate::rpc::tree::{entries_json, tree_json};

/// `get_state`.
pub fn get_state(host: &Arc<Host>, reply: Reply) {
    let session = host.session();
    let agent = session.agent();
    let entry = host.current_entry();
    let record = session.record();
    let (id, file, name) = record
        .with_file(|f| {
            (
                f.header().id.clone(),
                f.path().map(|p| p.to_string_lossy().into_owned()),
                f.session_name(),
            )
        })
        .unwrap_or_default();
    let (thinking, streaming, count) =
        agent.with_state(|s| (s.thinking_level, s.is_streaming, s.messages.len()));
    let mut data = Map::new();
    data.insert("model".into(), model_json(&entry));
    data.insert("thinkingLevel".into(), json!(thinking));
    data.insert("isStreaming".into(), Value::Bool(streaming));
    data.insert("isCompacting".into(), Value::Bool(session.is_compacting()));
    data.insert("steeringMode".into(), json!(agent.steering_mode()));
    data.insert("followUpMode".into(), json!(agent.follow_up_mode()));
    // Pi leaves out what is `undefined`: no file, no name.
    if let Some(file) = file {
        data.insert("sessionFile".into(), Value::from(file));
    }
    data.insert("sessionId".into(), Value::from(id));
    if let Some(name) = name {
        data.insert("sessionName".into(), Value::from(name));
    }
    data.insert(
        "autoCompactionEnabled".into(),
        Value::Bool(session.auto_compaction_enabled()),
    );
    data.insert("messageCount".into(), Value::from(count));
    data.insert(
        "pendingMessageCount".into(),
        Value::from(session.queued_count()),
    );
    reply.data(Value::Object(data));
}

/// `get_messages`.
pub fn get_messages(host: &Arc<Host>, reply: Reply) {
    let messages = host.session().agent().with_state(|s| s.messages.clone());
    reply.result(serde_json::to_value(&messages).map(|messages| json!({ "messages": messages })));
}

/// `get_session_stats`: over every entry of the session, read off the runtime (a long session's
/// messages are decoded for it).
pub fn get_session_stats(host: &Arc<Host>, reply: Reply) {
    let session = host.session();
    let window = host.current_entry().model.context_window;
    let messages = session.agent().with_state(|s| s.messages.clone());
    tokio::task::spawn_blocking(move || {
        let stats = session
            .record()
            .with_file(|file| session_stats(file, &messages, window));
        match stats {
            Some(stats) => reply.data(stats),
            None => reply.fail(rho_session::SessionError::Closed),
        }
    });
}

/// `get_last_assistant_text`: `{text}`, or `{}` when there is none (Pi's `undefined`).
pub fn get_last_assistant_text(host: &Arc<Host>, reply: Reply) {
    let messages = host.session().agent().with_state(|s| s.messages.clone());
    reply.data(match last_assistant_text(&messages) {
        Some(text) => json!({ "text": text }),
        None => json!({}),
    });
}

/// `get_commands`: `/mcp` (unless `--no-mcp`), the prompt templates and skills.
pub fn get_commands(host: &Arc<Host>, reply: Reply) {
    let roots = Roots {
        home: rho_models::rho_home(&rho_models::ProcessEnvironment),
        project: host.cwd().join(".rho"),
    };
    let mcp = host.kit.workspace.mcp.is_some();
    reply.data(commands_json(&host.kit.workspace.resources, &roots, mcp));
}

/// `get_entries`: the entries appended after `since` (all without it), in the file's order.
/// Read off the runtime: a long session's entries are a lot of JSON.
pub fn get_entries(host: &Arc<Host>, reply: Reply, since: Option<String>) {
    let session = host.session();
    tokio::task::spawn_blocking(move || {
        let entries = session
            .record()
            .with_file(|file| entries_json(file, since.as_deref()));
        match entries {
            Some(result) => reply.result(result),
            None => reply.fail(rho_session::SessionError::Closed),
        }
    });
}

/// `get_tree`: the entries as a tree, with labels.
pub fn get_tree(host: &Arc<Host>, reply: Reply) {
    let session = host.session();
    tokio::task::spawn_blocking(move || {
        let tree = session.record().with_file(|file| tree_json(file));
        match tree {
            Some(Ok(text)) => match RawValue::from_string(text) {
                Ok(raw) => reply.raw_data(&raw),
                Err(error) => reply.fail(error),
            },
            Some(Err(error)) => reply.fail(error),
            None => reply.fail(rho_session::SessionError::Closed),
        }
    });
}
