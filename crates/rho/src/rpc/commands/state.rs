//! The commands that read the session: `get_state`, `get_messages`, `get_session_stats`,
//! `get_last_assistant_text`, `get_commands`. The transcript is copied out of the agent's lock
//! (a copy is reference counts) and serialised after it is released.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::rpc::host::Host;
use crate::rpc::models::model_json;
use crate::rpc::reply::Reply;
use crate::rpc::stats::{last_assistant_text, session_stats};

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

/// `get_session_stats`.
pub fn get_session_stats(host: &Arc<Host>, reply: Reply) {
    let session = host.session();
    let window = host.current_entry().model.context_window;
    let id = session.record().header().map(|h| h.id).unwrap_or_default();
    let messages = session.agent().with_state(|s| s.messages.clone());
    reply.data(session_stats(&id, &messages, window));
}

/// `get_last_assistant_text`: `{text}`, or `{}` when there is none (Pi's `undefined`).
pub fn get_last_assistant_text(host: &Arc<Host>, reply: Reply) {
    let messages = host.session().agent().with_state(|s| s.messages.clone());
    reply.data(match last_assistant_text(&messages) {
        Some(text) => json!({ "text": text }),
        None => json!({}),
    });
}

/// `get_commands`.
pub fn get_commands(_host: &Arc<Host>, reply: Reply) {
    reply.data(json!({"commands": []}));
}
