//! The hooks in front of the gate, as the loop's `ToolHooks`: `PreToolUse` runs first (as in
//! Claude Code); a block or `deny` is the seed's blocked call; `ask` goes to the user; an
//! `updatedInput` is prepared and validated against the tool's schema as the model's own
//! arguments were; then the gate checks what will really run (an `allow` spares the user a
//! question, never a refusal). `PostToolUse` may turn the result into an error carrying its
//! reason, and adds its context to the result.

use std::sync::Arc;

use async_trait::async_trait;
use rho_agent::{
    AfterToolCall, AfterToolCallOverride, BeforeToolCall, BeforeToolCallDecision, HookError,
    ToolHooks,
};
use rho_ai::ContentBlock;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::reply::Decision;
use super::{HookEvent, Hooks};
use crate::gate::{Approval, Approver, Gate};

/// The gate with the session's hooks before and after it.
pub struct HookedGate {
    gate: Arc<Gate>,
    hooks: Arc<Hooks>,
    /// Who decides a call a hook asks about (none: the call is refused).
    asker: Option<Arc<dyn Approver>>,
}

impl HookedGate {
    /// `hooks` around `gate`; `asker` decides the calls a hook asks about.
    pub fn new(gate: Arc<Gate>, hooks: Arc<Hooks>, asker: Option<Arc<dyn Approver>>) -> Self {
        HookedGate { gate, hooks, asker }
    }
}

fn refused(reason: String, terminate: bool) -> Option<BeforeToolCallDecision> {
    Some(BeforeToolCallDecision {
        block: true,
        reason: Some(reason),
        terminate: terminate.then_some(true),
        args: None,
    })
}

#[async_trait]
impl ToolHooks for HookedGate {
    async fn before_tool_call(
        &self,
        call: BeforeToolCall<'_>,
        cancel: &CancellationToken,
    ) -> Result<Option<BeforeToolCallDecision>, HookError> {
        let tool = call.tool_call.name.as_str();
        let combined = self
            .hooks
            .pre_tool_use(&call.tool_call.id, tool, call.args, cancel)
            .await;
        if combined.blocks() {
            let reason = combined
                .reason
                .unwrap_or_else(|| format!("Blocked by a PreToolUse hook: {tool}"));
            return Ok(refused(reason, combined.terminate));
        }
        let mut updated = None;
        if let Some(replaced) = combined.updated_input {
            let mut input = call.args.as_object().cloned().unwrap_or_default();
            input.extend(replaced);
            match (call.revalidate)(&Value::Object(input)) {
                Ok(args) => updated = Some(args),
                Err(text) => {
                    return Ok(refused(
                        format!("A PreToolUse hook's updatedInput is not valid for {tool}: {text}"),
                        false,
                    ));
                }
            }
        }
        let args = updated.as_ref().unwrap_or(call.args);
        let approval = match combined.decision {
            Decision::Allow | Decision::Ask => Approval::Given,
            _ => Approval::Rules,
        };
        if let Err(refusal) = self
            .gate
            .check_call_with(tool, args, call.annotations, approval)
            .await
        {
            return Ok(refused(refusal.to_string(), false));
        }
        if combined.decision == Decision::Ask {
            let why = match &combined.reason {
                Some(reason) => format!("a PreToolUse hook asks: {reason}"),
                None => "a PreToolUse hook asks".to_owned(),
            };
            let approved = match &self.asker {
                Some(approver) if tool == "bash" => {
                    let command = args.get("command").and_then(Value::as_str).unwrap_or("");
                    approver.approve(command, &why).await
                }
                Some(approver) => approver.approve_tool(tool, args, &why).await,
                None => {
                    return Ok(refused(
                        format!(
                            "This {tool} call needs approval ({why}), and there is no one to ask, so it was refused."
                        ),
                        false,
                    ));
                }
            };
            if !approved {
                return Ok(refused(
                    format!("The user did not approve this {tool} call ({why})."),
                    false,
                ));
            }
        }
        Ok(updated.map(|args| BeforeToolCallDecision {
            args: Some(args),
            ..BeforeToolCallDecision::default()
        }))
    }

    async fn after_tool_call(
        &self,
        call: AfterToolCall<'_>,
        cancel: &CancellationToken,
    ) -> Result<Option<AfterToolCallOverride>, HookError> {
        if !self.hooks.has(HookEvent::PostToolUse) {
            return Ok(None);
        }
        let tool = call.tool_call.name.as_str();
        let response = || {
            json!({
                "content": call.result.content,
                "details": call.result.details,
                "isError": call.is_error,
            })
        };
        let combined = self
            .hooks
            .post_tool_use(&call.tool_call.id, tool, call.args, response, cancel)
            .await;
        let mut content = call.result.content.clone();
        let blocks = combined.blocks();
        if blocks {
            let reason = combined
                .reason
                .unwrap_or_else(|| "the result was refused".to_owned());
            content.push(ContentBlock::text(format!("PostToolUse hook: {reason}")));
        }
        if let Some(context) = combined.additional_context {
            content.push(ContentBlock::text(context));
        }
        if content.len() == call.result.content.len() {
            return Ok(None);
        }
        Ok(Some(AfterToolCallOverride {
            content: Some(content),
            is_error: blocks.then_some(true),
            ..AfterToolCallOverride::default()
        }))
    }
}

/// The approver that runs the `Notification` hooks before it asks the user.
pub struct NotifyingApprover {
    inner: Arc<dyn Approver>,
    hooks: Arc<Hooks>,
}

impl NotifyingApprover {
    /// `inner`, announced through `hooks`.
    pub fn new(inner: Arc<dyn Approver>, hooks: Arc<Hooks>) -> NotifyingApprover {
        NotifyingApprover { inner, hooks }
    }
}

#[async_trait]
impl Approver for NotifyingApprover {
    async fn approve(&self, command: &str, why: &str) -> bool {
        self.hooks
            .notification("rho needs your permission to use bash")
            .await;
        self.inner.approve(command, why).await
    }

    async fn approve_tool(&self, tool: &str, arguments: &Value, why: &str) -> bool {
        self.hooks
            .notification(&format!("rho needs your permission to use {tool}"))
            .await;
        self.inner.approve_tool(tool, arguments, why).await
    }
}
