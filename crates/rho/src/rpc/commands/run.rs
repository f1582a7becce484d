//! The commands that run or stop work: `prompt`, `steer`, `follow_up`, `abort`, `abort_retry`,
//! `compact`, the automatic compaction and retry switches, and the user's `bash`.

use std::sync::Arc;

use rho_ai::ImageContent;
use rho_host::SessionError;
use rho_host::session::SESSION_BUSY;

use crate::rpc::host::{Host, report_unremembered};
use crate::rpc::reply::Reply;
use crate::rpc::user_bash;
use rho_rpc::StreamingBehavior;

/// `prompt`: runs the message, or queues it as `streamingBehavior` says while a prompt runs.
/// Accepted, it is answered before the run's first event; a failure after that shows as events
/// only. The run holds the session until it settles, also if it panics.
pub fn prompt(
    host: &Arc<Host>,
    reply: Reply,
    message: String,
    images: Vec<ImageContent>,
    behavior: Option<StreamingBehavior>,
) {
    // `/mcp` is a command, run at once (also while a prompt runs) and answered once it is done.
    if let (Some(mcp), Some(args)) = (
        host.kit.workspace.mcp.clone(),
        rho_host::mcp::mcp_command_args(&message),
    ) {
        let ui = host.ui.clone();
        let args = args.to_owned();
        tokio::spawn(async move {
            mcp.command(&args, ui.as_ref()).await;
            reply.data(disposition("handled"));
        });
        return;
    }
    let session = host.session();
    match session.start_prompt(message.clone(), images.clone()) {
        Ok(run) => {
            reply.data(disposition("started"));
            tokio::spawn(async move {
                let _ = run.await;
            });
        }
        Err(SessionError::Busy) => match behavior {
            Some(StreamingBehavior::Steer) => {
                session.steer_with_images(&message, images);
                reply.data(disposition("queued"));
            }
            Some(StreamingBehavior::FollowUp) => {
                session.follow_up_with_images(&message, images);
                reply.data(disposition("queued"));
            }
            None => reply.fail(SESSION_BUSY),
        },
        Err(error) => reply.fail(error),
    }
}

/// Pi 1.6's answer to a prompt: `started`, `queued`, or `handled` (a command such as `/mcp`).
/// Pi's `RpcClient` reads it from every accepted prompt.
fn disposition(kind: &str) -> serde_json::Value {
    serde_json::json!({ "disposition": kind })
}

/// `steer`: queues a steering message (skills and templates expanded first).
pub fn steer(host: &Arc<Host>, reply: Reply, message: String, images: Vec<ImageContent>) {
    host.session().steer_with_images(&message, images);
    reply.data(disposition("queued"));
}

/// `follow_up`: queues a follow-up message (skills and templates expanded first).
pub fn follow_up(host: &Arc<Host>, reply: Reply, message: String, images: Vec<ImageContent>) {
    host.session().follow_up_with_images(&message, images);
    reply.data(disposition("queued"));
}

/// `clear_queue`: empties both queues (a `queue_update` says so, also when they were empty) and
/// answers the removed texts.
pub fn clear_queue(host: &Arc<Host>, reply: Reply) {
    let (steering, follow_up) = host.session().clear_queue();
    reply.data(serde_json::json!({"steering": steering, "followUp": follow_up}));
}

/// `abort`: cancels the run and answers once it has settled (after `agent_settled`).
pub fn abort(host: &Arc<Host>, reply: Reply) {
    let session = host.session();
    tokio::spawn(async move {
        session.abort().await;
        reply.ok();
    });
}

/// `abort_retry`: cancels a retry wait.
pub fn abort_retry(host: &Arc<Host>, reply: Reply) {
    host.session().abort_retry();
    reply.ok();
}

/// `compact`: summarises the older part of the session now.
pub fn compact(host: &Arc<Host>, reply: Reply, custom_instructions: Option<String>) {
    let session = host.session();
    tokio::spawn(async move {
        match session.compact(custom_instructions.as_deref()).await {
            Ok(result) => reply.result(serde_json::to_value(&result)),
            Err(error) => reply.fail(error),
        }
    });
}

/// `set_auto_compaction`.
pub fn set_auto_compaction(host: &Arc<Host>, reply: Reply, enabled: bool) {
    host.session().set_auto_compaction(enabled);
    report_unremembered(host.remember.auto_compaction(enabled));
    reply.ok();
}

/// `set_auto_retry`: takes effect at the next failure, also during a prompt.
pub fn set_auto_retry(host: &Arc<Host>, reply: Reply, enabled: bool) {
    host.session().set_auto_retry(enabled);
    report_unremembered(host.remember.auto_retry(enabled));
    reply.ok();
}

/// `bash`: runs a user shell command, its output streamed as `bash_execution_update` events
/// (with the request's `id`) before the answer; its `bashExecution` message joins the
/// transcript (after the running prompt, if one runs), kept from the model with
/// `excludeFromContext`.
pub fn bash(
    host: &Arc<Host>,
    reply: Reply,
    id: Option<serde_json::Value>,
    command: String,
    exclude_from_context: Option<bool>,
) {
    let cancel = host.begin_user_bash();
    let host = host.clone();
    tokio::spawn(async move {
        let output = host.output.clone();
        let on_output = move |delta: &str| {
            let mut update = serde_json::Map::new();
            update.insert("type".into(), "bash_execution_update".into());
            if let Some(id) = &id {
                update.insert("id".into(), id.clone());
            }
            update.insert("delta".into(), delta.into());
            output.write(&update);
        };
        match user_bash::run(&command, host.cwd(), &cancel, on_output).await {
            Ok(result) => {
                let message =
                    result.to_message(&command, rho_ai::message::now_ms(), exclude_from_context);
                host.session().add_message(message);
                reply.data(result.to_json());
            }
            Err(error) => reply.fail(error),
        }
    });
}

/// `abort_bash`: stops the user shell command.
pub fn abort_bash(host: &Arc<Host>, reply: Reply) {
    host.abort_user_bash();
    reply.ok();
}
