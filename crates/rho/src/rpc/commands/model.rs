//! The commands that choose the model and how it runs: `set_model`, `cycle_model`,
//! `get_available_models`, the thinking level and the queue modes. A switch resolves the new
//! model's key, which may run a `!command` for seconds: that happens on a blocking thread.

use std::sync::Arc;

use rho_agent::QueueMode;
use rho_ai::ThinkingLevel;
use rho_models::supported_thinking_levels;
use serde_json::{Value, json};

use crate::rpc::host::{Host, report_unremembered};
use crate::rpc::models::model_json;
use crate::rpc::reply::Reply;

/// `set_model`.
pub fn set_model(host: &Arc<Host>, reply: Reply, provider: String, model_id: String) {
    let host = host.clone();
    tokio::task::spawn_blocking(move || match host.set_model(&provider, &model_id) {
        Ok(entry) => reply.data(model_json(&entry)),
        Err(error) => reply.fail(error),
    });
}

/// `cycle_model`: `null` when there is nothing to cycle to.
pub fn cycle_model(host: &Arc<Host>, reply: Reply) {
    let host = host.clone();
    tokio::task::spawn_blocking(move || match host.cycle_model() {
        Ok(None) => reply.data(Value::Null),
        Ok(Some(entry)) => {
            let level = host.session().agent().with_state(|s| s.thinking_level);
            reply.data(
                json!({"model": model_json(&entry), "thinkingLevel": level, "isScoped": false}),
            );
        }
        Err(error) => reply.fail(error),
    });
}

/// `get_available_models`.
pub fn get_available_models(host: &Arc<Host>, reply: Reply) {
    let models: Vec<Value> = host.catalog.available().iter().map(model_json).collect();
    reply.data(json!({ "models": models }));
}

/// `set_thinking_level` (clamped to the model).
pub fn set_thinking_level(host: &Arc<Host>, reply: Reply, level: String) {
    // Pi 1.6 takes any string and clamps it to the model; a name that is no level is `off`.
    let level = ThinkingLevel::parse(&level).unwrap_or(ThinkingLevel::Off);
    host.set_thinking_level(level);
    reply.ok();
}

/// `get_available_thinking_levels`: `{levels}` the current model supports (`["off"]` for a
/// model without reasoning).
pub fn get_available_thinking_levels(host: &Arc<Host>, reply: Reply) {
    let levels = supported_thinking_levels(&host.current_entry());
    reply.data(json!({ "levels": levels }));
}

/// `cycle_thinking_level`: `null` for a model without reasoning.
pub fn cycle_thinking_level(host: &Arc<Host>, reply: Reply) {
    let entry = host.current_entry();
    if !entry.model.reasoning {
        return reply.data(Value::Null);
    }
    let levels = supported_thinking_levels(&entry);
    let level = host.session().agent().with_state(|s| s.thinking_level);
    let next = levels
        .iter()
        .position(|l| *l == level)
        .map_or(0, |index| (index + 1) % levels.len());
    match levels.get(next).copied() {
        Some(next) => {
            host.set_thinking_level(next);
            reply.data(json!({ "level": next }));
        }
        None => reply.data(Value::Null),
    }
}

/// `set_steering_mode`.
pub fn set_steering_mode(host: &Arc<Host>, reply: Reply, mode: QueueMode) {
    host.session().agent().set_steering_mode(mode);
    report_unremembered(host.remember.steering_mode(mode));
    reply.ok();
}

/// `set_follow_up_mode`.
pub fn set_follow_up_mode(host: &Arc<Host>, reply: Reply, mode: QueueMode) {
    host.session().agent().set_follow_up_mode(mode);
    report_unremembered(host.remember.follow_up_mode(mode));
    reply.ok();
}
