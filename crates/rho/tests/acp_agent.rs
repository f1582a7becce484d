//! `rho acp` driven by the protocol's own Rust client (`agent-client-protocol`'s client side,
//! over a spawned `rho acp`): the handshake, a prompt whose two tool calls start and complete
//! with their kinds and locations, the answer streamed, `end_turn`; an edit arriving as a diff;
//! the gate's question as a permission request answered once, always (the rule written) and
//! rejected; a cancel mid-tool; content blocks of every kind; and the session file on disk.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    CancelNotification, ContentBlock, EmbeddedResource, EmbeddedResourceResource, ImageContent,
    InitializeRequest, NewSessionRequest, PermissionOptionKind, PromptRequest,
    RequestPermissionOutcome, RequestPermissionRequest, RequestPermissionResponse, ResourceLink,
    SelectedPermissionOutcome, SessionNotification, SessionUpdate, StopReason, TextContent,
    TextResourceContents, ToolCallContent, ToolCallStatus, ToolKind,
};
use agent_client_protocol::{AcpAgent, AcpAgentConfig, Agent, Client};
use serde_json::{Value, json};

/// A project, rho's home and a faux script of `turns` (then a last answer).
struct Workspace {
    _dir: tempfile::TempDir,
    project: PathBuf,
    home: PathBuf,
    script: PathBuf,
}

fn workspace(turns: Value) -> Workspace {
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

fn agent(ws: &Workspace) -> AcpAgent {
    AcpAgent::new(
        AcpAgentConfig::new(env!("CARGO_BIN_EXE_rho"))
            .arg("acp")
            .arg("--faux-script")
            .arg(ws.script.display().to_string())
            .env("RHO_HOME", ws.home.display().to_string())
            .env("HOME", ws.home.display().to_string()),
    )
}

/// How the client answers permission requests, in order.
type Answers = Arc<Mutex<Vec<PermissionOptionKind>>>;

/// Runs one prompt of `prompt` in a new session in the project; the updates the client got,
/// the permission requests it answered, and the stop reason.
fn run(
    ws: &Workspace,
    prompt: Vec<ContentBlock>,
    answers: Answers,
    cancel_on_tool: bool,
) -> (
    Vec<SessionUpdate>,
    Vec<RequestPermissionRequest>,
    StopReason,
) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let updates: Arc<Mutex<Vec<SessionUpdate>>> = Arc::default();
    let asked: Arc<Mutex<Vec<RequestPermissionRequest>>> = Arc::default();
    let (seen, questions) = (updates.clone(), asked.clone());
    let project = ws.project.clone();
    let stop = runtime.block_on(async move {
        Client
            .v1()
            .on_receive_notification(
                async move |notification: SessionNotification, cx: ConnectionTo<Agent>| {
                    let started = matches!(notification.update, SessionUpdate::ToolCall(_));
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
                let init = cx
                    .send_request(InitializeRequest::new(ProtocolVersion::V1))
                    .block_task()
                    .await?;
                assert!(init.agent_capabilities.prompt_capabilities.image);
                let session = cx
                    .send_request(NewSessionRequest::new(project))
                    .block_task()
                    .await?;
                let answer = cx
                    .send_request(PromptRequest::new(session.session_id, prompt))
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

fn text(prompt: &str) -> Vec<ContentBlock> {
    vec![ContentBlock::Text(TextContent::new(prompt))]
}

fn call(name: &str, arguments: Value) -> Value {
    json!({"type": "tool_call", "name": name, "arguments": arguments})
}

/// Each update as a short label.
fn labels(updates: &[SessionUpdate]) -> Vec<String> {
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

fn message_text(updates: &[SessionUpdate]) -> String {
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

#[test]
fn a_prompt_with_two_reads_streams_calls_their_ends_and_the_answer_then_end_turn() {
    let ws = workspace(json!([
        [call("read", json!({"path": "a.txt"})), call("bash", json!({"command": "ls"}))],
        [{"type": "text", "text": "Both read."}]
    ]));
    std::fs::write(ws.project.join("a.txt"), "alpha\n").unwrap();
    let (updates, asked, stop) = run(&ws, text("look"), Answers::default(), false);
    assert_eq!(stop, StopReason::EndTurn);
    assert!(asked.is_empty());
    let labels = labels(&updates);
    assert_eq!(
        labels
            .iter()
            .filter(|l| !l.starts_with("usage"))
            .cloned()
            .collect::<Vec<_>>(),
        [
            "call Read",
            "call Execute",
            "update Completed",
            "update Completed",
            "message"
        ],
        "{labels:?}"
    );
    let SessionUpdate::ToolCall(read) = &updates
        .iter()
        .find(|u| matches!(u, SessionUpdate::ToolCall(_)))
        .unwrap()
    else {
        unreachable!()
    };
    assert_eq!(read.title, "Read a.txt");
    assert_eq!(read.kind, ToolKind::Read);
    assert_eq!(read.status, ToolCallStatus::InProgress);
    assert_eq!(read.locations[0].path, ws.project.join("a.txt"));
    assert_eq!(read.raw_input, Some(json!({"path": "a.txt"})));
    assert_eq!(message_text(&updates), "Both read.");
    // The session is on disk as in the other modes.
    let sessions = std::fs::read_dir(ws.home.join("sessions")).unwrap().count();
    assert_eq!(sessions, 1);
}

#[test]
fn an_edit_arrives_as_a_diff_and_the_file_is_changed() {
    let ws = workspace(json!([
        [call("edit", json!({"path": "a.txt", "edits": [{"oldText": "alpha", "newText": "beta"}]}))],
        [{"type": "text", "text": "Edited."}]
    ]));
    std::fs::write(ws.project.join("a.txt"), "alpha\n").unwrap();
    let (updates, _, stop) = run(&ws, text("edit it"), Answers::default(), false);
    assert_eq!(stop, StopReason::EndTurn);
    let end = updates
        .iter()
        .find_map(|u| match u {
            SessionUpdate::ToolCallUpdate(update) if update.fields.status.is_some() => {
                Some(update.clone())
            }
            _ => None,
        })
        .unwrap();
    let content = end.fields.content.unwrap();
    let ToolCallContent::Diff(diff) = &content[0] else {
        panic!("{content:?}")
    };
    assert_eq!(diff.path, ws.project.join("a.txt"));
    assert_eq!(
        (diff.old_text.as_deref(), diff.new_text.as_str()),
        (Some("alpha"), "beta")
    );
    assert_eq!(
        std::fs::read_to_string(ws.project.join("a.txt")).unwrap(),
        "beta\n"
    );
}

#[test]
fn the_gates_question_is_a_permission_request_answered_once_always_and_rejected() {
    let ws = workspace(json!([
        [call("bash", json!({"command": "echo once"}))],
        [call("bash", json!({"command": "echo always"}))],
        [call("bash", json!({"command": "echo always"}))],
        [call("bash", json!({"command": "echo rejected"}))],
        [{"type": "text", "text": "ok"}]
    ]));
    std::fs::write(
        ws.home.join("rules.toml"),
        "[[rule]]\ndecision = \"ask\"\nprefix = \"echo\"\n",
    )
    .unwrap();
    let answers: Answers = Arc::new(Mutex::new(vec![
        PermissionOptionKind::AllowOnce,
        PermissionOptionKind::AllowAlways,
        PermissionOptionKind::RejectOnce,
    ]));
    let (updates, asked, stop) = run(&ws, text("go"), answers, false);
    assert_eq!(stop, StopReason::EndTurn);
    // "always" answered the second `echo always` without a question.
    assert_eq!(asked.len(), 3);
    assert_eq!(
        asked[0].tool_call.fields.title.as_deref(),
        Some("Run `echo once`?")
    );
    let statuses: Vec<String> = labels(&updates)
        .into_iter()
        .filter(|l| l.starts_with("update"))
        .collect();
    assert_eq!(
        statuses,
        [
            "update Completed",
            "update Completed",
            "update Completed",
            "update Failed"
        ]
    );
    let rules = std::fs::read_to_string(ws.home.join("rules.toml")).unwrap();
    assert!(rules.contains("echo always"), "{rules}");
}

#[test]
fn a_cancel_mid_tool_stops_the_run_and_answers_cancelled() {
    let ws = workspace(json!([
        [call("bash", json!({"command": "sleep 30"}))],
        [{"type": "text", "text": "never"}]
    ]));
    let started = std::time::Instant::now();
    let (updates, _, stop) = run(&ws, text("wait"), Answers::default(), true);
    assert_eq!(stop, StopReason::Cancelled);
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    assert!(!message_text(&updates).contains("never"));
}

#[test]
fn every_kind_of_content_reaches_the_model() {
    let ws = workspace(json!([[{"type": "text", "text": "seen"}]]));
    let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGBgAAAABQABh6FO1AAAAABJRU5ErkJggg==";
    let prompt = vec![
        ContentBlock::Text(TextContent::new("look at these")),
        ContentBlock::Image(ImageContent::new(png, "image/png")),
        ContentBlock::ResourceLink(ResourceLink::new("notes", "file:///tmp/notes.md")),
        ContentBlock::Resource(EmbeddedResource::new(
            EmbeddedResourceResource::TextResourceContents(TextResourceContents::new(
                "fn main() {}",
                "file:///src/main.rs",
            )),
        )),
    ];
    let (_, _, stop) = run(&ws, prompt, Answers::default(), false);
    assert_eq!(stop, StopReason::EndTurn);
    let session = std::fs::read_dir(ws.home.join("sessions"))
        .unwrap()
        .flatten()
        .flat_map(|d| std::fs::read_dir(d.path()).unwrap().flatten())
        .map(|e| e.path())
        .find(|p: &PathBuf| p.extension().is_some_and(|e| e == "jsonl"))
        .unwrap();
    let user = std::fs::read_to_string(&session)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|e| e["message"]["role"] == "user")
        .unwrap();
    let content = &user["message"]["content"];
    assert_eq!(
        content[0]["text"],
        "look at these\n\n[notes](file:///tmp/notes.md)\n\n<resource uri=\"file:///src/main.rs\">\nfn main() {}\n</resource>"
    );
    assert_eq!(content[1]["type"], "image");
    assert_eq!(content[1]["mimeType"], "image/png");
}
