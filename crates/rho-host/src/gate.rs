//! The host's gate in preflight: every call of a file tool has its path checked against the
//! policy (roots, secrets, read-only), every `bash` command against the command rules, before
//! the tool runs. A refusal becomes an error tool result (via `before_tool_call`'s block) and
//! the loop goes on. The `bash` sandbox itself lives in the tool (`BashTool::with_sandbox`).

use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use rho_agent::{BeforeToolCall, BeforeToolCallDecision, HookError, ToolAnnotations, ToolHooks};
use rho_gate::{Access, CommandDecision, GatePolicy, Refusal};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::tools::path::{resolve_read_path, resolve_to_cwd};

/// Asks the user about a call that needs approval (the interactive mode's prompt).
#[async_trait]
pub trait Approver: Send + Sync {
    /// `true` runs `command`; `why` says which rule asked (or that it could not be parsed).
    async fn approve(&self, command: &str, why: &str) -> bool;

    /// `true` runs this call of `tool` (an `ask` rule for a tool, an MCP tool's say); asked as
    /// the command `tool {arguments}` unless the approver knows tools apart.
    async fn approve_tool(&self, tool: &str, arguments: &Value, why: &str) -> bool {
        self.approve(&format!("{tool} {arguments}"), why).await
    }
}

/// Whether a call that a rule would ask about is asked about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Approval {
    /// As the rules say.
    Rules,
    /// Already given (a `PreToolUse` hook's `allow`): refusals still hold, questions do not.
    Given,
}

/// The gate as the loop's [`ToolHooks`].
pub struct Gate {
    policy: Arc<GatePolicy>,
    approver: Option<Arc<dyn Approver>>,
}

impl Gate {
    /// A gate enforcing `policy`; without an approver (non-interactive) `ask` refuses.
    pub fn new(policy: Arc<GatePolicy>) -> Self {
        Gate {
            policy,
            approver: None,
        }
    }

    /// Lets `approver` decide commands that need approval.
    pub fn with_approver(mut self, approver: Arc<dyn Approver>) -> Self {
        self.approver = Some(approver);
        self
    }

    /// The policy.
    pub fn policy(&self) -> &GatePolicy {
        &self.policy
    }

    /// Who decides calls that need approval.
    pub fn approver(&self) -> Option<&Arc<dyn Approver>> {
        self.approver.as_ref()
    }

    /// The whole preflight check of one call: paths for the file tools, rules for `bash`.
    pub async fn check(&self, tool: &str, args: &Value) -> Result<(), Refusal> {
        self.check_call(tool, args, ToolAnnotations::default())
            .await
    }

    /// [`Gate::check`] knowing what the tool says of itself: any other tool (an MCP server's)
    /// runs in read-only mode only when it says it is read-only, and passes the `tool` rules.
    pub async fn check_call(
        &self,
        tool: &str,
        args: &Value,
        annotations: ToolAnnotations,
    ) -> Result<(), Refusal> {
        self.check_call_with(tool, args, annotations, Approval::Rules)
            .await
    }

    /// [`Gate::check_call`], with `approval` saying whether questions are still asked.
    pub async fn check_call_with(
        &self,
        tool: &str,
        args: &Value,
        annotations: ToolAnnotations,
        approval: Approval,
    ) -> Result<(), Refusal> {
        match tool {
            "bash" => self.check_command_call(args, approval).await,
            "read" | "write" | "edit" | "ls" | "grep" | "find" => self.check_path_call(tool, args),
            _ => {
                self.check_tool_call(tool, args, annotations, approval)
                    .await
            }
        }
    }

    /// A tool that is neither a file tool nor `bash`.
    async fn check_tool_call(
        &self,
        tool: &str,
        args: &Value,
        annotations: ToolAnnotations,
        approval: Approval,
    ) -> Result<(), Refusal> {
        let harmless = tool == crate::tools::tool_search::NAME;
        if self.policy.mode() == rho_gate::PermissionMode::ReadOnly
            && !harmless
            && annotations.read_only_hint != Some(true)
        {
            return Err(Refusal::NotReadOnly {
                tool: tool.to_owned(),
            });
        }
        let (part, why) = match self.policy.rules().decide_tool(tool) {
            CommandDecision::Allow => return Ok(()),
            CommandDecision::Deny { part, rule } => {
                return Err(Refusal::ToolDenied {
                    tool: part,
                    rule: rule.to_string(),
                });
            }
            CommandDecision::Ask { part, rule } => (part, format!("ask rule in {rule}")),
            CommandDecision::Unknown { part, .. } | CommandDecision::Unparsed { reason: part } => {
                (part, "it cannot be checked".to_owned())
            }
        };
        if approval == Approval::Given {
            return Ok(());
        }
        match &self.approver {
            Some(approver) if approver.approve_tool(tool, args, &why).await => Ok(()),
            Some(_) => Err(Refusal::CommandNotApproved { part }),
            None => Err(Refusal::CommandNeedsApproval { part, why }),
        }
    }

    /// Checks the path argument of a file tool; other tools pass. A missing or mistyped
    /// argument passes too: the tool reports it in its own words.
    pub fn check_path_call(&self, tool: &str, args: &Value) -> Result<(), Refusal> {
        let (access, default) = match tool {
            "read" => (Access::Read, None),
            "ls" | "grep" | "find" => (Access::Read, Some(".")),
            "write" | "edit" => (Access::Write, None),
            _ => return Ok(()),
        };
        let Some(path) = args.get("path").and_then(Value::as_str).or(default) else {
            return Ok(());
        };
        if path.contains('\0') {
            // Caught on the argument: lexical `..` could drop the component that holds it.
            return Err(Refusal::BadPath {
                path: path.escape_debug().take(300).collect(),
                problem: "it contains a NUL byte".to_owned(),
            });
        }
        let cwd = self.policy.cwd();
        let resolved: PathBuf = if tool == "read" {
            resolve_read_path(path, cwd)
        } else {
            resolve_to_cwd(path, cwd)
        };
        self.policy.check_path(tool, access, &resolved).map(drop)
    }

    /// The command rules' refusal of a `bash` call, asking the approver where there is one.
    async fn check_command_call(&self, args: &Value, approval: Approval) -> Result<(), Refusal> {
        let Some(command) = args.get("command").and_then(Value::as_str) else {
            return Ok(());
        };
        let (part, why) = match self.policy.check_command(command) {
            CommandDecision::Allow => return Ok(()),
            CommandDecision::Deny { part, rule } => {
                return Err(Refusal::CommandDenied {
                    part,
                    rule: rule.to_string(),
                });
            }
            CommandDecision::Ask { part, rule } => (part, format!("ask rule in {rule}")),
            CommandDecision::Unknown { part, rule } => {
                let why = format!(
                    "some of its words are only known when it runs, and the rule in {rule} could match it"
                );
                (part, why)
            }
            CommandDecision::Unparsed { reason } => (command.to_owned(), reason),
        };
        if approval == Approval::Given {
            return Ok(());
        }
        match &self.approver {
            Some(approver) if approver.approve(command, &why).await => Ok(()),
            Some(_) => Err(Refusal::CommandNotApproved { part }),
            None => Err(Refusal::CommandNeedsApproval { part, why }),
        }
    }
}

#[async_trait]
impl ToolHooks for Gate {
    async fn before_tool_call(
        &self,
        call: BeforeToolCall<'_>,
        _cancel: &CancellationToken,
    ) -> Result<Option<BeforeToolCallDecision>, HookError> {
        let verdict = self
            .check_call(&call.tool_call.name, call.args, call.annotations)
            .await;
        Ok(verdict.err().map(|refusal| BeforeToolCallDecision {
            block: true,
            reason: Some(refusal.to_string()),
            terminate: None,
            args: None,
        }))
    }
}
