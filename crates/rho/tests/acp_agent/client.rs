//! The client side of the ACP tests: a workspace, `rho acp` spawned and driven by the
//! crate's own client, or fed raw lines.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    CancelNotification, ContentBlock, InitializeRequest, LoadSessionRequest, McpServer,
    NewSessionRequest, PermissionOptionKind, PromptRequest, RequestPermissionOutcome,
    RequestPermissionRequest, RequestPermissionResponse, SelectedPermissionOutcome,
    SessionConfigOption, SessionConfigOptionValue, SessionId, SessionModeId, SessionNotification,
    SessionUpdate, SetSessionConfigOptionRequest, SetSessionModeRequest, StopReason, TextContent,
};
use agent_client_protocol::{AcpAgent, AcpAgentConfig, Agent, Client};
use serde_json::{Value, json};

/// A project, rho's home and a faux script of `turns` (then a last answer).
pub(crate) struct Workspace {
    pub(crate) _dir: tempfile::TempDir,
    pub(crate) project: PathBuf,
    pub(crate) home: PathBuf,
    pub(crate) script: PathBuf,
}

pub(crate) fn workspace(turns: Value) -> Workspace {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let (project, home) = (base.join("project"), base.join("home"));
    std::fs::create_dir_all(&project).unwrap();
    std::fs::create_dir_all(&home).unwrap();
    let script = base.join("script.json");
    std::fs::write(&script, json!({"turns": turns}).to_string()).unwrap();
    Workspace {
        _dir: dir,
        project,
        home,
        script,
    }
}

/// `rho acp` with the faux script, or (`RHO_HOME/models.json` written) with the models there.
pub(crate) fn agent(ws: &Workspace) -> AcpAgent {
    let mut config = AcpAgentConfig::new(env!("CARGO_BIN_EXE_rho")).arg("acp");
    if !ws.home.join("models.json").exists() {
        config = config
            .arg("--faux-script")
            .arg(ws.script.display().to_string());
    }
    AcpAgent::new(
        config
            .env("RHO_HOME", ws.home.display().to_string())
            .env("HOME", ws.home.display().to_string()),
    )
}

/// A new session's config options, then those after setting option `id` to `value`.
pub(crate) fn switch_option(
    ws: &Workspace,
    id: &'static str,
    value: &'static str,
) -> (Vec<SessionConfigOption>, Vec<SessionConfigOption>) {
    let runtime = runtime();
    let project = ws.project.clone();
    runtime.block_on(async move {
        Client
            .v1()
            .connect_with(agent(ws), async move |cx: ConnectionTo<Agent>| {
                initialize(&cx).await?;
                let made = cx
                    .send_request(NewSessionRequest::new(project))
                    .block_task()
                    .await?;
                let before = made.config_options.unwrap_or_default();
                let set = cx
                    .send_request(SetSessionConfigOptionRequest::new(
                        made.session_id,
                        id,
                        SessionConfigOptionValue::value_id(value),
                    ))
                    .block_task()
                    .await?;
                Ok((before, set.config_options))
            })
            .await
            .unwrap()
    })
}

/// How the client answers permission requests, in order.
pub(crate) type Answers = Arc<Mutex<Vec<PermissionOptionKind>>>;

/// Runs one prompt of `prompt` in a new session in the project; the updates the client got,
/// the permission requests it answered, and the stop reason.
/// The updates the client got, the permission requests it answered, the stop reason.
pub(crate) type Outcome = (
    Vec<SessionUpdate>,
    Vec<RequestPermissionRequest>,
    StopReason,
);

pub(crate) fn run(
    ws: &Workspace,
    prompt: Vec<ContentBlock>,
    answers: Answers,
    cancel_on_tool: bool,
) -> Outcome {
    connect(ws, Flow::Prompt(prompt), answers, cancel_on_tool)
}

/// What the client does once connected.
pub(crate) enum Flow {
    /// A new session, one prompt.
    Prompt(Vec<ContentBlock>),
    /// `session/load` of this id, then one prompt in it.
    Load(String, Vec<ContentBlock>),
    /// A new session switched to this permission mode, then one prompt.
    Mode(&'static str, Vec<ContentBlock>),
    /// A new session with these MCP servers of the client's, then one prompt.
    Servers(Vec<McpServer>, Vec<ContentBlock>),
}

pub(crate) fn connect(
    ws: &Workspace,
    flow: Flow,
    answers: Answers,
    cancel_on_tool: bool,
) -> Outcome {
    let runtime = runtime();
    let updates: Arc<Mutex<Vec<SessionUpdate>>> = Arc::default();
    let asked: Arc<Mutex<Vec<RequestPermissionRequest>>> = Arc::default();
    let (seen, questions) = (updates.clone(), asked.clone());
    let project = ws.project.clone();
    let stop = runtime.block_on(async move {
        Client
            .v1()
            .on_receive_notification(
                async move |notification: SessionNotification, cx: ConnectionTo<Agent>| {
                    // A tool that said "started": it is running.
                    let started = matches!(
                        &notification.update,
                        SessionUpdate::ToolCallUpdate(update)
                            if update.fields.status.is_none()
                                && format!("{:?}", update.fields.content).contains("started")
                    );
                    seen.lock().unwrap().push(notification.update);
                    if cancel_on_tool && started {
                        cx.send_notification(CancelNotification::new(notification.session_id))?;
                    }
                    Ok(())
                },
                agent_client_protocol::on_receive_notification!(),
            )
            .on_receive_request(
                async move |request: RequestPermissionRequest,
                            responder,
                            _cx: ConnectionTo<Agent>| {
                    let kind = answers.lock().unwrap().remove(0);
                    let option = request
                        .options
                        .iter()
                        .find(|o| o.kind == kind)
                        .map(|o| o.option_id.clone())
                        .unwrap();
                    questions.lock().unwrap().push(request);
                    responder.respond(RequestPermissionResponse::new(
                        RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(option)),
                    ))
                },
                agent_client_protocol::on_receive_request!(),
            )
            .connect_with(agent(ws), async move |cx: ConnectionTo<Agent>| {
                let init = initialize(&cx).await?;
                assert!(init.agent_capabilities.prompt_capabilities.image);
                let (session, prompt) = match flow {
                    Flow::Prompt(prompt) => {
                        let made = cx
                            .send_request(NewSessionRequest::new(project))
                            .block_task()
                            .await?;
                        (made.session_id, prompt)
                    }
                    Flow::Mode(mode, prompt) => {
                        let made = cx
                            .send_request(NewSessionRequest::new(project))
                            .block_task()
                            .await?;
                        let modes = made.modes.expect("the permission modes");
                        assert_eq!(modes.current_mode_id.0.as_ref(), "workspace-write");
                        assert_eq!(modes.available_modes.len(), 3);
                        let id = made.session_id;
                        cx.send_request(SetSessionModeRequest::new(
                            id.clone(),
                            SessionModeId::new(mode),
                        ))
                        .block_task()
                        .await?;
                        (id, prompt)
                    }
                    Flow::Servers(servers, prompt) => {
                        let made = cx
                            .send_request(NewSessionRequest::new(project).mcp_servers(servers))
                            .block_task()
                            .await?;
                        (made.session_id, prompt)
                    }
                    Flow::Load(id, prompt) => {
                        let id = SessionId::new(id);
                        cx.send_request(LoadSessionRequest::new(id.clone(), project))
                            .block_task()
                            .await?;
                        (id, prompt)
                    }
                };
                let answer = cx
                    .send_request(PromptRequest::new(session, prompt))
                    .block_task()
                    .await?;
                Ok(answer.stop_reason)
            })
            .await
            .unwrap()
    });
    let updates = updates.lock().unwrap().clone();
    let asked = asked.lock().unwrap().clone();
    (updates, asked, stop)
}

pub(crate) fn text(prompt: &str) -> Vec<ContentBlock> {
    vec![ContentBlock::Text(TextContent::new(prompt))]
}

pub(crate) fn call(name: &str, arguments: Value) -> Value {
    json!({"type": "tool_call", "name": name, "arguments": arguments})
}

/// Each update as a short label.
pub(crate) fn labels(updates: &[SessionUpdate]) -> Vec<String> {
    updates
        .iter()
        .filter_map(|u| match u {
            SessionUpdate::AgentMessageChunk(_) => Some("message".to_owned()),
            SessionUpdate::AgentThoughtChunk(_) => Some("thought".to_owned()),
            SessionUpdate::ToolCall(call) => Some(format!("call {:?}", call.kind)),
            SessionUpdate::ToolCallUpdate(update) => {
                update.fields.status.map(|s| format!("update {s:?}"))
            }
            SessionUpdate::UsageUpdate(_) => Some("usage".to_owned()),
            _ => None,
        })
        .collect()
}

pub(crate) fn message_text(updates: &[SessionUpdate]) -> String {
    updates
        .iter()
        .filter_map(|u| match u {
            SessionUpdate::AgentMessageChunk(chunk) => match &chunk.content {
                ContentBlock::Text(text) => Some(text.text.clone()),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// `rho acp` fed raw lines; what it writes, parsed.
pub(crate) struct Raw {
    pub(crate) child: std::process::Child,
    pub(crate) stdin: Option<std::process::ChildStdin>,
    pub(crate) lines: std::sync::mpsc::Receiver<Value>,
}

impl Raw {
    pub(crate) fn start(ws: &Workspace) -> Raw {
        use std::io::BufRead;
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_rho"))
            .current_dir(&ws.project)
            .env("RHO_HOME", &ws.home)
            .env("HOME", &ws.home)
            .arg("acp")
            .arg("--faux-script")
            .arg(&ws.script)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (sender, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in std::io::BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
            {
                let value =
                    serde_json::from_str(&line).unwrap_or_else(|_| json!({"not json": line}));
                if sender.send(value).is_err() {
                    return;
                }
            }
        });
        Raw {
            stdin: child.stdin.take(),
            child,
            lines,
        }
    }

    pub(crate) fn send(&mut self, line: &str) {
        use std::io::Write;
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// Reads until the response to `id`, and returns it.
    pub(crate) fn answer(&self, id: Value) -> Value {
        loop {
            let line = self
                .lines
                .recv_timeout(std::time::Duration::from_secs(30))
                .expect("an answer");
            if line.get("id") == Some(&id) && line.get("method").is_none() {
                return line;
            }
        }
    }
}

/// `session/list` for the project, after the handshake.
pub(crate) fn list_sessions(
    ws: &Workspace,
) -> agent_client_protocol::v1::schema::ListSessionsResponse {
    let runtime = runtime();
    let project = ws.project.clone();
    runtime.block_on(async move {
        Client
            .v1()
            .connect_with(agent(ws), async move |cx: ConnectionTo<Agent>| {
                let init = initialize(&cx).await?;
                assert!(init.agent_capabilities.session_capabilities.list.is_some());
                cx.send_request(
                    agent_client_protocol::v1::schema::ListSessionsRequest::new().cwd(project),
                )
                .block_task()
                .await
            })
            .await
            .unwrap()
    })
}

/// A runtime for one client connection.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// The first `tool_call_update` that ends a call.
pub(crate) fn first_end(
    updates: &[SessionUpdate],
) -> agent_client_protocol::v1::schema::ToolCallUpdate {
    updates
        .iter()
        .find_map(|u| match u {
            SessionUpdate::ToolCallUpdate(update) if update.fields.status.is_some() => {
                Some(update.clone())
            }
            _ => None,
        })
        .expect("a tool call's end")
}

/// `session/delete` of `id`, after the handshake; the error's message when refused.
pub(crate) fn delete_session(ws: &Workspace, id: &str) -> Result<(), String> {
    let runtime = runtime();
    let id = SessionId::new(id.to_owned());
    runtime.block_on(async move {
        Client
            .v1()
            .connect_with(agent(ws), async move |cx: ConnectionTo<Agent>| {
                let init = initialize(&cx).await?;
                assert!(
                    init.agent_capabilities
                        .session_capabilities
                        .delete
                        .is_some()
                );
                let deleted = cx
                    .send_request(agent_client_protocol::v1::schema::DeleteSessionRequest::new(id))
                    .block_task()
                    .await;
                Ok(deleted.map(drop).map_err(|e| format!("{e:?}")))
            })
            .await
            .unwrap()
    })
}

/// The sign-in methods `initialize` offers, `session/new`'s error code and message, and
/// whether `authenticate` with the first method was answered.
pub(crate) fn sign_in_flow(ws: &Workspace) -> (Vec<String>, i32, String, bool) {
    let runtime = runtime();
    let project = ws.project.clone();
    runtime.block_on(async move {
        Client
            .v1()
            .connect_with(agent(ws), async move |cx: ConnectionTo<Agent>| {
                let init = initialize(&cx).await?;
                let ids: Vec<String> = init
                    .auth_methods
                    .iter()
                    .map(|m| m.id().0.to_string())
                    .collect();
                let refused = cx
                    .send_request(NewSessionRequest::new(project))
                    .block_task()
                    .await
                    .expect_err("no key: no session");
                let authenticated = cx
                    .send_request(agent_client_protocol::v1::schema::AuthenticateRequest::new(
                        ids[0].clone(),
                    ))
                    .block_task()
                    .await
                    .is_ok();
                let data = refused.data.map(|d| d.to_string()).unwrap_or_default();
                Ok((ids, i32::from(refused.code), data, authenticated))
            })
            .await
            .unwrap()
    })
}

/// The handshake: `initialize` at protocol version 1.
async fn initialize(
    cx: &ConnectionTo<Agent>,
) -> Result<agent_client_protocol::v1::schema::InitializeResponse, agent_client_protocol::Error> {
    cx.send_request(InitializeRequest::new(ProtocolVersion::V1))
        .block_task()
        .await
}

/// A session written by `rho --mode json` in the project with `prompt` (the faux script
/// answers); its id.
pub(crate) fn write_session(ws: &Workspace, prompt: &str) -> String {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_rho"))
        .current_dir(&ws.project)
        .env("RHO_HOME", &ws.home)
        .env("HOME", &ws.home)
        .args(["--mode", "json", "--faux-script"])
        .arg(&ws.script)
        .arg(prompt)
        .output()
        .unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    let header: Value = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
    header["id"].as_str().unwrap().to_owned()
}
