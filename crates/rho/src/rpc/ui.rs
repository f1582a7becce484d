//! Pi's extension UI sub-protocol, rho's side: a notice is an `extension_ui_request` with
//! `method:"notify"`; a question (`select`, `confirm`, `input`) is one with a fresh UUID `id`,
//! answered by the client's `extension_ui_response` line carrying that `id` (`value`,
//! `confirmed` or `cancelled`). Answers to ids rho did not ask, or already had answered, are
//! ignored, as Pi ignores them.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use rho_host::ui::{HostUi, NoticeLevel};
use rho_rpc::UiResponse;
use rho_stdx::sync::lock;
use serde_json::{Map, Value, json};
use tokio::sync::oneshot;

use super::reply::Output;

/// The questions waiting for the client, by id.
pub struct RpcUi {
    output: Arc<Output>,
    pending: Mutex<HashMap<String, oneshot::Sender<UiResponse>>>,
}

impl RpcUi {
    /// Asks on `output`.
    pub fn new(output: Arc<Output>) -> RpcUi {
        RpcUi {
            output,
            pending: Mutex::default(),
        }
    }

    /// Where requests go.
    pub fn output(&self) -> &Arc<Output> {
        &self.output
    }

    /// Hands the client's answer to the question waiting for it.
    pub fn answer(&self, response: UiResponse) {
        if let Some(waiting) = lock(&self.pending).remove(&response.id) {
            let _ = waiting.send(response);
        }
    }

    /// Writes the request `method` with `fields` and waits for its answer; `None` when it is
    /// cancelled or the client goes away.
    async fn ask(&self, method: &str, fields: Value) -> Option<UiResponse> {
        let id = uuid::Uuid::new_v4().to_string();
        let (sender, receiver) = oneshot::channel();
        lock(&self.pending).insert(id.clone(), sender);
        // A question nobody waits for any more (its tool call was aborted) is forgotten.
        let _forget = Forget {
            pending: &self.pending,
            id: id.clone(),
        };
        self.output.write(&request(&id, method, fields));
        let answer = receiver.await.ok()?;
        (!answer.cancelled).then_some(answer)
    }
}

/// Removes a question from the waiting ones when its asker stops waiting.
struct Forget<'a> {
    pending: &'a Mutex<HashMap<String, oneshot::Sender<UiResponse>>>,
    id: String,
}

impl Drop for Forget<'_> {
    fn drop(&mut self) {
        lock(self.pending).remove(&self.id);
    }
}

/// `{"type":"extension_ui_request","id","method",…fields}`, keys in Pi's order.
fn request(id: &str, method: &str, fields: Value) -> Value {
    let mut object = Map::new();
    object.insert("type".into(), "extension_ui_request".into());
    object.insert("id".into(), id.into());
    object.insert("method".into(), method.into());
    if let Value::Object(fields) = fields {
        object.extend(fields);
    }
    Value::Object(object)
}

#[async_trait]
impl HostUi for RpcUi {
    fn notify(&self, message: &str, level: NoticeLevel) {
        let id = uuid::Uuid::new_v4().to_string();
        self.output.write(&request(
            &id,
            "notify",
            json!({"message": message, "notifyType": level.as_str()}),
        ));
    }

    async fn select(&self, title: &str, options: &[String]) -> Option<String> {
        let answer = self
            .ask("select", json!({"title": title, "options": options}))
            .await?;
        answer.value.filter(|value| options.contains(value))
    }

    async fn confirm(&self, title: &str, message: &str) -> Option<bool> {
        let answer = self
            .ask("confirm", json!({"title": title, "message": message}))
            .await?;
        Some(answer.confirmed.unwrap_or(false))
    }

    async fn input(&self, title: &str, placeholder: &str) -> Option<String> {
        let answer = self
            .ask("input", json!({"title": title, "placeholder": placeholder}))
            .await?;
        answer.value
    }
}
