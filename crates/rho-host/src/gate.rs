//! The host's gate in preflight: every call of a file tool has its path checked against the
//! policy (roots, secrets, read-only), every `bash` command against the command rules, before
//! the tool runs. A refusal becomes an error tool result (via `before_tool_call`'s block) and
//! the loop goes on. The `bash` sandbox itself lives in the tool (`BashTool::with_sandbox`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use rho_agent::{
    AfterToolCall, AfterToolCallOverride, BeforeToolCall, BeforeToolCallDecision, HookError,
    ToolHooks,
};
use rho_gate::{Access, CommandDecision, GatePolicy, Refusal};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::tools::path::{resolve_read_path, resolve_to_cwd};

/// Asks the user about a command that needs approval (the interactive mode's prompt).
#[async_trait]
pub trait Approver: Send + Sync {
    /// `true` runs `command`; `why` says which rule asked (or that it could not be parsed).
    async fn approve(&self, command: &str, why: &str) -> bool;
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

    /// The whole preflight check of one call: paths for the file tools, rules for `bash`.
    pub async fn check(&self, tool: &str, args: &Value) -> Result<(), Refusal> {
        if tool == "bash" {
            self.check_command_call(args).await
        } else {
            self.check_path_call(tool, args)
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
    async fn check_command_call(&self, args: &Value) -> Result<(), Refusal> {
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
            CommandDecision::Unparsed { reason } => (command.to_owned(), reason),
        };
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
        let verdict = self.check(&call.tool_call.name, call.args).await;
        Ok(verdict.err().map(|refusal| BeforeToolCallDecision {
            block: true,
            reason: Some(refusal.to_string()),
            terminate: None,
        }))
    }

    /// `grep` over a directory searches hidden files too (as `rg --hidden`): lines from secret
    /// files are withheld from its result.
    async fn after_tool_call(
        &self,
        call: AfterToolCall<'_>,
        _cancel: &CancellationToken,
    ) -> Result<Option<AfterToolCallOverride>, HookError> {
        if call.tool_call.name != "grep" || call.is_error {
            return Ok(None);
        }
        Ok(
            withhold_secret_lines(self.policy.secrets(), &call.result.content).map(|content| {
                AfterToolCallOverride {
                    content: Some(content),
                    ..AfterToolCallOverride::default()
                }
            }),
        )
    }
}

/// The content with every line from a secret file dropped and a notice added, or `None` when
/// there was nothing to drop. A grep line is `path:N: text` (match) or `path-N- text`
/// (context); every prefix before such a separator is tried, so a name with `-3-` in it errs
/// towards withholding.
fn withhold_secret_lines(
    secrets: &rho_gate::SecretRules,
    content: &[rho_ai::ContentBlock],
) -> Option<Vec<rho_ai::ContentBlock>> {
    let mut withheld = 0usize;
    let mut changed = Vec::with_capacity(content.len());
    for block in content {
        let rho_ai::ContentBlock::Text(text) = block else {
            changed.push(block.clone());
            continue;
        };
        let kept: Vec<&str> = text
            .text
            .split('\n')
            .filter(|line| {
                let secret = line_paths(line).any(|p| secrets.denied_by(Path::new(p)).is_some());
                withheld += usize::from(secret);
                !secret
            })
            .collect();
        let mut block = text.clone();
        block.text = kept.join("\n");
        changed.push(rho_ai::ContentBlock::Text(block));
    }
    if withheld == 0 {
        return None;
    }
    if let Some(rho_ai::ContentBlock::Text(last)) = changed.last_mut() {
        last.text.push_str(&format!(
            "\n\n[{withheld} line(s) from secret files withheld by rho's gate]"
        ));
    }
    Some(changed)
}

/// The candidate file paths of one grep output line.
fn line_paths(line: &str) -> impl Iterator<Item = &str> {
    let bytes = line.as_bytes();
    (0..bytes.len()).filter_map(move |i| {
        let sep = bytes[i];
        if sep != b':' && sep != b'-' {
            return None;
        }
        let digits = bytes[i + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        let after = i + 1 + digits;
        (digits > 0 && bytes.get(after) == Some(&sep)).then(|| &line[..i])
    })
}
