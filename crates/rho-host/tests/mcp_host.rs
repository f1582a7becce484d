//! MCP in a session, below the binary: `McpHost` with a scripted server, a scripted user
//! (`HostUi`) answering `/mcp` and elicitation. What `/mcp` changes is saved to the file that
//! defines the server (or the project's) and takes effect in the session's tools at once.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use rho_host::mcp::{DialogElicitor, McpHost, McpToolFilter};
use rho_host::tool_set::ToolSet;
use rho_host::ui::{HostUi, Menu, NoticeLevel};
use rho_mcp::log::McpLog;
use rho_mcp::{
    Defaults, Elicitation, ElicitationAnswer, Elicitor, Exposure, McpConfig, McpContext,
    NoCredentials,
};
use serde_json::{Value, json};
use tokio::sync::mpsc;

fn scripted() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../rho-mcp/tests/servers/scripted.py")
}

/// A user who answers from a list, and what they were shown.
#[derive(Default)]
struct ScriptedUser {
    answers: Mutex<VecDeque<Option<String>>>,
    notices: Mutex<Vec<(String, NoticeLevel)>>,
    asked: Mutex<Vec<String>>,
}

impl ScriptedUser {
    fn answering(answers: &[Option<&str>]) -> ScriptedUser {
        ScriptedUser {
            answers: Mutex::new(answers.iter().map(|a| a.map(str::to_owned)).collect()),
            ..ScriptedUser::default()
        }
    }

    fn next(&self, asked: String) -> Option<String> {
        self.asked.lock().unwrap().push(asked);
        self.answers.lock().unwrap().pop_front().flatten()
    }

    fn notices(&self) -> Vec<(String, NoticeLevel)> {
        self.notices.lock().unwrap().clone()
    }
}

#[async_trait]
impl HostUi for ScriptedUser {
    fn notify(&self, message: &str, level: NoticeLevel) {
        self.notices
            .lock()
            .unwrap()
            .push((message.to_owned(), level));
    }
    async fn select(&self, title: &str, options: &[String]) -> Option<String> {
        self.next(format!("select {title}: {}", options.join("|")))
    }
    async fn confirm(&self, title: &str, message: &str) -> Option<bool> {
        self.next(format!("confirm {title}: {message}"))
            .map(|a| a == "yes")
    }
    async fn input(&self, title: &str, placeholder: &str) -> Option<String> {
        self.next(format!("input {title} [{placeholder}]"))
    }
    async fn menu(&self, menu: Menu) -> Option<usize> {
        let rows: Vec<String> = menu.items.iter().map(|i| i.label.clone()).collect();
        let answer = self.next(format!("menu {}: {}", menu.title, rows.join("|")))?;
        rows.iter().position(|row| row.trim() == answer)
    }
}

/// A home with `servers` as its `mcp.json`, a trusted project dir, and the host started.
struct Setup {
    _dir: tempfile::TempDir,
    home: PathBuf,
    project: PathBuf,
    host: Arc<McpHost>,
    tools: Arc<ToolSet>,
}

fn setup(servers: Value) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let project = dir.path().join("project");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        home.join("mcp.json"),
        serde_json::to_string_pretty(&json!({"mcpServers": servers})).unwrap(),
    )
    .unwrap();
    let config = McpConfig::load(&home, &project, true);
    let (signals, receiver) = mpsc::unbounded_channel();
    let context = Arc::new(McpContext {
        cwd: project.clone(),
        log: Arc::new(McpLog::new(home.join("mcp.log"))),
        elicitor: Arc::new(Defaults),
        signals,
        tool_environment: Arc::new(rho_gate::ToolEnvironment::default()),
        credentials: Arc::new(NoCredentials),
        http: rho_http::HttpClient::shared(),
        auth: None,
    });
    let host = McpHost::start(config, context, receiver, McpToolFilter::default());
    let tools = Arc::new(ToolSet::new(Vec::new()));
    host.attach(&tools);
    Setup {
        _dir: dir,
        home,
        project,
        host,
        tools,
    }
}

fn demo() -> Value {
    json!({"demo": {"command": "python3", "args": [scripted().display().to_string()], "exposure": "direct"}})
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[tokio::test]
async fn exposure_and_enabling_change_the_tools_at_once_and_are_saved_where_the_server_is_defined()
{
    let s = setup(demo());
    s.host.settled().await;
    assert!(
        s.tools
            .active_names()
            .contains(&"mcp__demo__echo".to_owned())
    );

    s.host
        .set_exposure("demo", Exposure::Deferred)
        .await
        .unwrap();
    assert_eq!(
        read_json(&s.home.join("mcp.json"))["mcpServers"]["demo"]["exposure"],
        "deferred"
    );
    assert!(
        !s.tools
            .active_names()
            .iter()
            .any(|n| n.starts_with("mcp__demo__"))
    );
    assert!(
        s.tools
            .loadable()
            .iter()
            .any(|r| r.tool.name() == "mcp__demo__echo")
    );

    // Disabled for this project only: an override in the project's file; the global file keeps
    // the server enabled.
    s.host.set_enabled("demo", false, true).await.unwrap();
    let project_file = s.project.join(".rho/mcp.json");
    assert_eq!(
        read_json(&project_file),
        json!({"mcpServers": {"demo": {"enabled": false}}})
    );
    assert!(
        read_json(&s.home.join("mcp.json"))["mcpServers"]["demo"]
            .get("enabled")
            .is_none()
    );
    assert!(s.tools.get("mcp__demo__echo").is_none());

    // Enabled again: the override (now the server's file for this change) says so, and the
    // server connects with its tools.
    s.host.set_enabled("demo", true, false).await.unwrap();
    assert_eq!(
        read_json(&project_file),
        json!({"mcpServers": {"demo": {"enabled": true}}})
    );
    assert!(s.tools.get("mcp__demo__echo").is_some());
    s.host.shutdown().await;
}

#[tokio::test]
async fn slash_mcp_reconnects_the_only_server_and_answers_a_wrong_form_with_the_usage() {
    let s = setup(demo());
    let user = ScriptedUser::default();
    s.host.command("", &user).await;
    assert_eq!(
        user.notices(),
        [(
            "demo: connected, 17 tools (direct)".to_owned(),
            NoticeLevel::Info
        )]
    );
    let user = ScriptedUser::default();
    s.host.command("reconnect", &user).await;
    s.host.command("reconnect nope", &user).await;
    s.host.command("reconnect demo extra", &user).await;
    assert_eq!(
        user.notices(),
        [
            (
                "Reconnected to MCP server \"demo\" (connected · 17 tools · resources).".to_owned(),
                NoticeLevel::Info
            ),
            (
                "No MCP server named \"nope\".".to_owned(),
                NoticeLevel::Error
            ),
            (
                "Usage: /mcp, /mcp login [server], /mcp logout [server], /mcp reconnect [server]"
                    .to_owned(),
                NoticeLevel::Warning
            ),
        ]
    );
    s.host.shutdown().await;
}

#[tokio::test]
async fn the_manager_walks_from_the_servers_to_a_servers_exposure() {
    let s = setup(demo());
    s.host.settled().await;
    let user = ScriptedUser::answering(&[
        Some("demo"),
        Some("Exposure"),
        Some("deferred"),
        None, // back from the server's menu
        None, // out of the manager
    ]);
    s.host.manage(&user).await;
    let asked = user.asked.lock().unwrap().clone();
    assert_eq!(asked[0], "menu MCP servers: demo");
    assert_eq!(
        asked[1],
        "menu MCP server demo: Tools|Reconnect|Exposure|Disable|Disable in this project"
    );
    assert_eq!(
        asked[2],
        "menu Exposure of demo:   codemode|  deferred|✓ direct"
    );
    assert_eq!(
        read_json(&s.home.join("mcp.json"))["mcpServers"]["demo"]["exposure"],
        "deferred"
    );
    assert_eq!(asked.len(), 5, "{asked:?}");
    s.host.shutdown().await;
}

fn question(schema: Value) -> Elicitation {
    Elicitation {
        server: "demo".into(),
        message: "Tell me".into(),
        schema,
    }
}

#[tokio::test]
async fn elicitation_through_dialogs_asks_each_field_and_keeps_defaults_for_empty_answers() {
    let schema = json!({"type": "object", "properties": {
        "name": {"type": "string", "default": "Ada"},
        "age": {"type": "integer", "default": 36},
        "plan": {"type": "string", "enum": ["free", "pro"], "enumNames": ["Free", "Pro"]},
        "ok": {"type": "boolean", "default": false},
    }, "required": ["plan"]});
    let user = Arc::new(ScriptedUser::answering(&[
        Some("yes"),
        Some(""),
        Some("thirty"),
        Some("41"),
        Some("Pro"),
        Some("yes"),
    ]));
    let elicitor = DialogElicitor::new(user.clone());
    let answer = elicitor.elicit(question(schema.clone())).await;
    assert_eq!(
        answer,
        ElicitationAnswer::Accept(json!({"name": "Ada", "age": 41, "plan": "pro", "ok": true}))
    );
    let asked = user.asked.lock().unwrap().clone();
    assert_eq!(
        asked[0],
        "confirm MCP server \"demo\" asks for information: Tell me"
    );
    assert_eq!(asked[1], "input name (optional) [Ada]");
    assert_eq!(asked[4], "select plan: Free|Pro");
    assert_eq!(asked[5], "select ok (optional): no|yes");
    assert_eq!(
        user.notices(),
        [(
            "\"thirty\" is not a valid age.".to_owned(),
            NoticeLevel::Warning
        )]
    );

    let declined = DialogElicitor::new(Arc::new(ScriptedUser::answering(&[Some("no")])));
    assert_eq!(
        declined.elicit(question(schema.clone())).await,
        ElicitationAnswer::Decline
    );
    let dismissed = DialogElicitor::new(Arc::new(ScriptedUser::answering(&[Some("yes"), None])));
    assert_eq!(
        dismissed.elicit(question(schema)).await,
        ElicitationAnswer::Cancel
    );
}
