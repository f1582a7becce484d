//! The gate's and the hooks' questions as `session/request_permission`: allow once, always
//! allow (the exact allow rule the interactive mode writes, in `RHO_HOME/rules.toml`), reject.
//! The question names the tool call being checked: the one whose `tool_execution_start` came
//! last (a batch's calls are checked one after another, in source order).

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};

use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    PermissionOption, PermissionOptionKind, RequestPermissionOutcome, RequestPermissionRequest,
    SessionId, ToolCallUpdate, ToolCallUpdateFields,
};
use async_trait::async_trait;
use rho_host::gate::Approver;
use rho_stdx::sync::lock;
use serde_json::{Value, json};

const ALLOW_ONCE: &str = "allow_once";
const ALLOW_ALWAYS: &str = "allow_always";
const REJECT: &str = "reject_once";

/// Asks the client.
pub struct AcpApprover {
    cx: ConnectionTo<Client>,
    session: OnceLock<SessionId>,
    /// The tool call being checked.
    current: Mutex<Option<String>>,
    /// What was answered "always" in this connection (commands, or `tool:<name>`).
    always: Mutex<HashSet<String>>,
}

impl AcpApprover {
    pub fn new(cx: ConnectionTo<Client>) -> AcpApprover {
        AcpApprover {
            cx,
            session: OnceLock::new(),
            current: Mutex::new(None),
            always: Mutex::new(HashSet::new()),
        }
    }

    /// The session the questions are about.
    pub fn bind(&self, session: SessionId) {
        let _ = self.session.set(session);
    }

    /// A tool call entered its checks.
    pub fn checking(&self, tool_call_id: &str) {
        *lock(&self.current) = Some(tool_call_id.to_owned());
    }

    async fn ask(&self, title: String, raw: Value, key: String, rule: Rule) -> bool {
        if lock(&self.always).contains(&key) {
            return true;
        }
        let Some(session) = self.session.get().cloned() else {
            return false;
        };
        let call = lock(&self.current)
            .clone()
            .unwrap_or_else(|| "permission".to_owned());
        let fields = ToolCallUpdateFields::new().title(title).raw_input(raw);
        let options = vec![
            PermissionOption::new(ALLOW_ONCE, "Allow once", PermissionOptionKind::AllowOnce),
            PermissionOption::new(
                ALLOW_ALWAYS,
                "Always allow",
                PermissionOptionKind::AllowAlways,
            ),
            PermissionOption::new(REJECT, "Reject", PermissionOptionKind::RejectOnce),
        ];
        let request =
            RequestPermissionRequest::new(session, ToolCallUpdate::new(call, fields), options);
        let Ok(answer) = self.cx.send_request(request).block_task().await else {
            return false;
        };
        let chosen = match answer.outcome {
            RequestPermissionOutcome::Selected(selected) => selected.option_id.0.to_string(),
            _ => return false,
        };
        match chosen.as_str() {
            ALLOW_ONCE => true,
            ALLOW_ALWAYS => {
                lock(&self.always).insert(key);
                rule.write().await;
                true
            }
            _ => false,
        }
    }
}

/// The allow rule an "always" writes.
enum Rule {
    Command(String),
    Tool(String),
}

impl Rule {
    /// Appends the rule to `RHO_HOME/rules.toml` (off the runtime); a failure is said on
    /// stderr (the answer still holds for this connection).
    async fn write(self) {
        let Some(home) = rho_models::rho_home(&rho_models::ProcessEnvironment) else {
            return;
        };
        let file = home.join("rules.toml");
        let written = tokio::task::spawn_blocking(move || match &self {
            Rule::Command(command) => rho_tui::rules_file::append_allow_rules(&file, command),
            Rule::Tool(tool) => rho_tui::rules_file::append_tool_rule(&file, tool),
        })
        .await;
        match written {
            Ok(Ok(_)) => {}
            Ok(Err(error)) => eprintln!("rho acp: the allow rule was not written: {error}"),
            Err(error) => eprintln!("rho acp: the allow rule was not written: {error}"),
        }
    }
}

#[async_trait]
impl Approver for AcpApprover {
    async fn approve(&self, command: &str, why: &str) -> bool {
        self.ask(
            format!("Run `{command}`?"),
            json!({"command": command, "why": why}),
            command.to_owned(),
            Rule::Command(command.to_owned()),
        )
        .await
    }

    async fn approve_tool(&self, tool: &str, arguments: &Value, why: &str) -> bool {
        self.ask(
            format!("Call {tool}?"),
            json!({"tool": tool, "arguments": arguments, "why": why}),
            format!("tool:{tool}"),
            Rule::Tool(tool.to_owned()),
        )
        .await
    }
}

/// Pi's trust question about `cwd` as a permission request (its answers as options: trusting
/// or not, for this session or recorded); the index of the answer chosen.
pub async fn ask_trust(
    cx: &ConnectionTo<Client>,
    session: &SessionId,
    cwd: &std::path::Path,
    options: &[rho_host::trust::TrustOption],
) -> Option<usize> {
    let choices = options
        .iter()
        .enumerate()
        .map(|(index, option)| {
            let kind = match (option.trusted, option.updates.is_empty()) {
                (true, false) => PermissionOptionKind::AllowAlways,
                (true, true) => PermissionOptionKind::AllowOnce,
                (false, false) => PermissionOptionKind::RejectAlways,
                (false, true) => PermissionOptionKind::RejectOnce,
            };
            PermissionOption::new(format!("trust-{index}"), option.label.clone(), kind)
        })
        .collect();
    let title = format!(
        "Trust the project {}? Its .rho/ files (settings, rules, MCP servers, hooks, extensions) change what rho does and may run code.",
        cwd.display()
    );
    let fields = ToolCallUpdateFields::new()
        .title(title)
        .kind(agent_client_protocol::v1::schema::ToolKind::Other);
    let request = RequestPermissionRequest::new(
        session.clone(),
        ToolCallUpdate::new("trust", fields),
        choices,
    );
    let answer = cx.send_request(request).block_task().await.ok()?;
    match answer.outcome {
        RequestPermissionOutcome::Selected(selected) => {
            selected.option_id.0.strip_prefix("trust-")?.parse().ok()
        }
        _ => None,
    }
}
